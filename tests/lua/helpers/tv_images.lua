-- The formula images of the torchvision reference script (test_data_transforms_tv*.lua): imgF, a
-- float C x H x W image in [0, 1], and imgB, a byte one.
-- Use: local imgF, imgB = dofile(dir .. '/helpers/tv_images.lua')
local function imgF(C, H, W)
  local x = torch.FloatTensor(C, H, W)
  for c = 0, C - 1 do for i = 0, H - 1 do for j = 0, W - 1 do
    x[c + 1][i + 1][j + 1] = ((c * 11 + i * 7 + j * 3) % 17) / 16
  end end end
  return x
end

local function imgB(C, H, W)
  local x = torch.ByteTensor(C, H, W)
  for c = 0, C - 1 do for i = 0, H - 1 do for j = 0, W - 1 do
    x[c + 1][i + 1][j + 1] = (c * 91 + i * 37 + j * 17 + i * j * 5) % 256
  end end end
  return x
end

return imgF, imgB
