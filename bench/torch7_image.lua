-- Torch7's image package on a 500x375 JPEG against PIL (bench/torch7_image_ref.py, Pillow on the
-- same file in the same run): image.load (bytes, and Torch7's default floats in [0, 1]) against
-- Image.open + convert('RGB'); image.scale to 341x256 (the shorter side to 256, imagenet's
-- preprocessing) and up to 1000x750, bilinear, against resize(BILINEAR); image.crop of 224x224
-- against crop; image.hflip against transpose(FLIP_LEFT_RIGHT). Byte images on both sides unless
-- the name says float (PIL has no 3-channel float images). PIL's bilinear downscale filters over
-- the scale factor (antialiased), Torch7's interpolates between the 4 nearest pixels: same call,
-- less work on our side when shrinking.
-- Usage: tocha bench/torch7_image.lua
require 'image'
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
torch.setnumthreads(1)
torch.manualSeed(0)

-- A photo-like 500x375 JPEG: smooth gradients, a few shapes and some noise (so that the decoder
-- does not meet flat blocks only).
local Wd, Ht = 500, 375
local img = torch.FloatTensor(3, Ht, Wd)
local xs = torch.linspace(0, 1, Wd):view(1, Wd):expand(Ht, Wd)
local ys = torch.linspace(0, 1, Ht):view(Ht, 1):expand(Ht, Wd)
img[1]:copy(xs):mul(0.7):add(0.1)
img[2]:copy(ys):mul(0.6):add(torch.sin(xs * 12):mul(0.15)):add(0.2)
img[3]:copy(xs + ys):mul(0.4):add(0.1)
img:add(torch.randn(3, Ht, Wd):mul(0.04)):clamp(0, 1)
local path = os.tmpname() .. '.jpg'
image.saveJPG(path, img)

local byte = image.load(path, 3, 'byte')
local flt = image.load(path, 3, 'float')
local function us(fn, n) return H.best(fn, n, 2) * 1e6 end
local ours = {
  load_byte = us(function() image.load(path, 3, 'byte') end, 20),
  load_float = us(function() image.load(path, 3, 'float') end, 20),
  scale_down = us(function() image.scale(byte, 341, 256) end, 20),
  scale_down_float = us(function() image.scale(flt, 341, 256) end, 20),
  scale_up = us(function() image.scale(byte, 1000, 750) end, 10),
  crop = us(function() image.crop(byte, 50, 50, 274, 274) end, 200),
  hflip = us(function() image.hflip(byte) end, 50),
}
local ref = H.reference('torch7_image_ref.py', path)
os.remove(path)
os.remove(path:sub(1, -5))

print(string.format('image on a %dx%d JPEG (1 thread), us per call', Wd, Ht))
print(string.format('%-18s %10s %10s %10s   %s', 'case', 'tocha us', 'PIL us', 'speedup', 'PIL call'))
local what = {
  load_byte = "Image.open(f).convert('RGB')", load_float = "Image.open(f).convert('RGB')",
  scale_down = 'resize((341, 256), BILINEAR)', scale_down_float = 'resize((341, 256), BILINEAR) (bytes)',
  scale_up = 'resize((1000, 750), BILINEAR)', crop = 'crop((50, 50, 274, 274))', hflip = 'transpose(FLIP_LEFT_RIGHT)',
}
for _, k in ipairs({ 'load_byte', 'load_float', 'scale_down', 'scale_down_float', 'scale_up', 'crop', 'hflip' }) do
  local r = ref[({ load_float = 'load_byte', scale_down_float = 'scale_down' })[k] or k]
  print(string.format('%-18s %10.1f %10s %10s   %s', k, ours[k], H.fmt(r, '%.1f'), r and string.format('%.2fx', r / ours[k]) or 'n/a', what[k]))
end
print('speedup = PIL time / tocha time (higher is better for Tocha)')
