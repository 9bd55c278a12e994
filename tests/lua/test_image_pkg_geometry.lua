-- The image package's geometry (lua/image/scale.lua, geometry.lua): image.scale in its size forms
-- and modes, image.crop, flips, translate, rotate and warp. Reference values: PyTorch 1.13 where
-- Torch7's algorithm is PyTorch's (F.interpolate 'nearest' for 'simple', 'bilinear' with
-- align_corners=True for enlarging, 'area' for shrinking by whole factors, grid_sample with border
-- padding and align_corners=True for warp's clamp mode; computed in float64 from the 4-decimal
-- inputs IMG and BIG, by /tmp/img_ref/ref.py at the time), closed forms otherwise (flips and crops
-- exactly, Torch7's fractional area weights, cubic splines reproducing ramps, quarter turns).
require 'image'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- PyTorch 1.13 values (see the header); inputs IMG and BIG.
local REF = {
  IMG = {{{0.2794, 0.2737, 0.8621, 0.6567}, {0.9225, 0.8395, 0.2947, 0.5607}, {0.763, 0.7594, 0.063, 0.0576}},
    {{0.1674, 0.0376, 0.1222, 0.8475}, {0.0132, 0.9499, 0.1099, 0.9936}, {0.9242, 0.8652, 0.6603, 0.3073}}},
  NEAREST_5x7 = {{{0.2793999910, 0.2793999910, 0.2736999988, 0.2736999988, 0.8621000051, 0.8621000051,
    0.6567000150}, {0.2793999910, 0.2793999910, 0.2736999988, 0.2736999988, 0.8621000051, 0.8621000051,
    0.6567000150}, {0.9225000143, 0.9225000143, 0.8395000100, 0.8395000100, 0.2946999967, 0.2946999967,
    0.5606999993}, {0.9225000143, 0.9225000143, 0.8395000100, 0.8395000100, 0.2946999967, 0.2946999967,
    0.5606999993}, {0.7630000114, 0.7630000114, 0.7594000101, 0.7594000101, 0.0630000010, 0.0630000010,
    0.0575999990}}, {{0.1674000024, 0.1674000024, 0.0375999994, 0.0375999994, 0.1221999973, 0.1221999973,
    0.8475000262}, {0.1674000024, 0.1674000024, 0.0375999994, 0.0375999994, 0.1221999973, 0.1221999973,
    0.8475000262}, {0.0131999999, 0.0131999999, 0.9498999714, 0.9498999714, 0.1098999977, 0.1098999977,
    0.9936000108}, {0.0131999999, 0.0131999999, 0.9498999714, 0.9498999714, 0.1098999977, 0.1098999977,
    0.9936000108}, {0.9241999983, 0.9241999983, 0.8651999831, 0.8651999831, 0.6603000164, 0.6603000164,
    0.3073000013}}},
  NEAREST_2x3 = {{{0.2793999910, 0.2736999988, 0.8621000051}, {0.9225000143, 0.8395000100, 0.2946999967}},
    {{0.1674000024, 0.0375999994, 0.1221999973}, {0.0131999999, 0.9498999714, 0.1098999977}}},
  BILINEAR_UP_5x7 = {{{0.2794, 0.27655, 0.2737, 0.5679, 0.8621, 0.7594, 0.6567}, {0.60095, 0.578775, 0.5566,
    0.5675, 0.5784, 0.59355, 0.6087}, {0.9225, 0.881, 0.8395, 0.5671, 0.2947, 0.4277, 0.5607}, {0.84275, 0.8211,
    0.79945, 0.48915, 0.17885, 0.244, 0.30915}, {0.763, 0.7612, 0.7594, 0.4112, 0.063, 0.0603, 0.0576}},
    {{0.1674, 0.1025, 0.0376, 0.0799, 0.1222, 0.48485, 0.8475}, {0.0903, 0.292025, 0.49375, 0.3049, 0.11605,
    0.5183, 0.92055}, {0.0132, 0.48155, 0.9499, 0.5299, 0.1099, 0.55175, 0.9936}, {0.4687, 0.688125, 0.90755,
    0.646325, 0.3851, 0.517775, 0.65045}, {0.9242, 0.8947, 0.8652, 0.76275, 0.6603, 0.4838, 0.3073}}},
  BIG = {{{0.8949, 0.731, 0.949, 0.8394, 0.1391, 0.9579, 0.5309, 0.0885}, {0.6438, 0.7176, 0.3435, 0.056,
    0.1901, 0.0611, 0.7367, 0.3485}, {0.4223, 0.8997, 0.3541, 0.479, 0.2224, 0.1758, 0.8073, 0.3548}, {0.5649,
    0.8115, 0.022, 0.3769, 0.21, 0.9119, 0.6865, 0.9222}, {0.9533, 0.8397, 0.8598, 0.7366, 0.7991, 0.6076,
    0.8076, 0.5303}, {0.6339, 0.5266, 0.2606, 0.4588, 0.525, 0.3195, 0.3443, 0.5146}}, {{0.2865, 0.2166, 0.3031,
    0.9701, 0.3223, 0.5628, 0.4248, 0.2579}, {0.9469, 0.7188, 0.7511, 0.996, 0.0082, 0.855, 0.3708, 0.7815},
    {0.1678, 0.2336, 0.3811, 0.3001, 0.2631, 0.3757, 0.4012, 0.3657}, {0.7664, 0.9121, 0.3582, 0.1164, 0.8282,
    0.2806, 0.6749, 0.9395}, {0.5019, 0.2743, 0.8741, 0.535, 0.6294, 0.686, 0.503, 0.663}, {0.8735, 0.7145,
    0.6721, 0.8254, 0.4468, 0.922, 0.9564, 0.3067}}},
  AREA_3x2 = {{{0.6469, 0.3816}, {0.4913, 0.5363625}, {0.6586625, 0.556}}, {{0.6486375, 0.4479125}, {0.4044625,
    0.5161125}, {0.65885, 0.6391625}}},
  WARP_BORDER = {{{0.42516, 0.59821, 0.66772, 0.6327}, {0.844735, 0.469855, 0.355665, 0.434925}, {0.76084,
    0.34156, 0.05976, 0.0576}}, {{0.210945, 0.177745, 0.578065, 0.884025}, {0.653615, 0.51999, 0.592215,
    0.822025}, {0.8888, 0.74226, 0.4485, 0.3073}}},
}

local function T(t) return torch.DoubleTensor(t) end
local IMG, BIG = T(REF.IMG), T(REF.BIG)

local function errors(f, pattern) tester:assertErrorPattern(f, pattern) end

function tests.scaleSimpleIsNearest()
  local x = IMG:float()
  tester:assertTensorEq(image.scale(x, 7, 5, 'simple'), T(REF.NEAREST_5x7):float(), 1e-6)
  tester:assertTensorEq(image.scale(x, 3, 2, 'simple'), T(REF.NEAREST_2x3):float(), 1e-6)
  -- 2-D input, and a byte image keeps its values exactly
  tester:assertTensorEq(image.scale(x[2], 7, 5, 'simple'), T(REF.NEAREST_5x7)[2]:float(), 1e-6)
  local b = torch.ByteTensor(2, 3, 4):random(0, 255)
  tester:assertTensorEq(image.scale(b, 7, 5, 'simple'):double(), image.scale(b:double(), 7, 5, 'simple'), 0)
end

function tests.scaleBilinearEnlargesWithAlignedCorners()
  tester:assertTensorEq(image.scale(IMG, 7, 5), T(REF.BILINEAR_UP_5x7), 1e-6)
  tester:assertTensorEq(image.scale(IMG:float(), 7, 5, 'bilinear'):double(), T(REF.BILINEAR_UP_5x7), 1e-6)
  tester:assertTensorEq(image.scale(IMG[1], 7, 5), T(REF.BILINEAR_UP_5x7)[1], 1e-6)
end

function tests.scaleBilinearShrinksByArea()
  tester:assertTensorEq(image.scale(BIG, 2, 3), T(REF.AREA_3x2), 1e-6)
  -- a fractional ratio: Torch7 weights the end pixels by the part covered (3 -> 2: 1.5 pixels each)
  local row = T({ { 1, 2, 4 } })
  tester:assertTensorEq(image.scale(row, 2, 1), T({ { (1 + 0.5 * 2) / 1.5, (0.5 * 2 + 4) / 1.5 } }), 1e-6)
  -- width shrinks while height grows
  local y = image.scale(T({ { 1, 3, 5, 7 }, { 5, 7, 9, 11 } }), 2, 3)
  tester:assertTensorEq(y, T({ { 2, 6 }, { 4, 8 }, { 6, 10 } }), 1e-12)
end

function tests.scaleBicubic()
  -- Catmull-Rom with linear extrapolation at the borders reproduces a ramp exactly
  local ramp = torch.range(0, 4):double():view(1, 5):expand(3, 5):contiguous()
  local up = image.scale(ramp, 9, 3, 'bicubic')
  tester:assertTensorEq(up[1], torch.range(0, 8):double():div(2), 1e-6)
  local down = image.scale(ramp, 3, 3, 'bicubic')
  tester:assertTensorEq(down[2], T({ 0, 2, 4 }), 1e-6)
  -- one value by hand: p = 0, 1, 0, 0 at x = 0.5 (generic/image.c's cubic): 1 + 0.25 (0 + 0.5 (-5 + 0.5 * 3)) = 0.5625
  local spike = T({ { 0, 1, 0, 0 } })
  local y = image.scale(spike, 7, 1, 'bicubic')  -- steps of 0.5
  tester:assertalmosteq(y[1][4], 0.5625, 1e-6)
  tester:assertalmosteq(y[1][3], 1, 1e-6)
end

function tests.scaleByteRoundsEachPass()
  local b = torch.ByteTensor({ { 0, 255 } })
  local y = image.scale(b, 3, 1)
  tester:asserteq(torch.type(y), 'torch.ByteTensor')
  tester:assertTableEq(y[1]:totable(), { 0, 128, 255 })
  local c = image.scale(torch.ByteTensor({ { 0, 255, 0, 0 } }), 7, 1, 'bicubic')  -- overshoot clamped
  tester:assert(c:max() <= 255 and c:min() >= 0)
end

function tests.scaleSizeForms()
  local x = torch.rand(3, 10, 20)
  local function hw(y) return { y:size(2), y:size(3) } end
  tester:assertTableEq(hw(image.scale(x, 8)), { 4, 8 })          -- the longer side
  tester:assertTableEq(hw(image.scale(x, '8')), { 4, 8 })
  tester:assertTableEq(hw(image.scale(x, '^5')), { 5, 10 })      -- the shorter side
  tester:assertTableEq(hw(image.scale(x, '30x7')), { 7, 30 })
  tester:assertTableEq(hw(image.scale(x, '*2')), { 20, 40 })
  tester:assertTableEq(hw(image.scale(x, '*0.5', 'simple')), { 5, 10 })
  tester:assertTableEq(hw(image.scale(x, '*1/4')), { 2, 5 })
  -- fractional sizes are truncated (fb.resnet.torch passes h / w * size)
  tester:assertTableEq(hw(image.scale(x, 7.9, 20 / 10 * 3.3)), { 6, 7 })
  tester:assertTableEq(hw(image.scale(x, 13, 3)), { 3, 13 })
  -- into a dst, with and without a mode; src untouched
  local before = x:clone()
  local dst = torch.Tensor(3, 4, 6)
  tester:assert(image.scale(dst, x) == dst)
  tester:assertTensorEq(dst, image.scale(x, 6, 4), 1e-6)
  image.scale(dst, x, 'simple')
  tester:assertTensorEq(dst, image.scale(x, 6, 4, 'simple'), 0)
  tester:assertTensorEq(x, before, 0)
  tester:assertTableEq(image.scale(x:select(1, 1), 5, 6):size():totable(), { 6, 5 })
end

function tests.scaleErrors()
  local x = torch.rand(3, 4, 4)
  errors(function() image.scale(x, 4, 4, 'lanczos') end, '%[image%.scale%] mode must be one of')
  errors(function() image.scale(x, 'big') end, '%[image%.scale%] could not find a valid size')
  errors(function() image.scale(x, 0.4, 3) end, '%[image%.scale%] the destination size must be at least 1x1')
  errors(function() image.scale(torch.rand(4), 2, 2) end, '%[image%.scale%] src must be a H x W or C x H x W')
  errors(function() image.scale(torch.rand(1, 4, 4), x) end, '%[image%.scale%] src and dst depths do not match')
  errors(function() image.scale(x) end, '%[image%.scale%] expected')
end

function tests.crop()
  local x = torch.range(1, 2 * 5 * 6):view(2, 5, 6)
  local before = x:clone()
  local y = image.crop(x, 1, 2, 4, 5)  -- columns 1..3, rows 2..4 (0-based, ends excluded)
  tester:assertTensorEq(y, x:narrow(3, 2, 3):narrow(2, 3, 3), 0)
  y:fill(0)
  tester:assertTensorEq(x, before, 0)  -- a copy, not a view
  tester:assertTensorEq(image.crop(x[1], 1, 2, 4, 5), x[1]:narrow(2, 2, 3):narrow(1, 3, 3), 0)
  -- centre: offsets floor((6 - 3) / 2) and floor((5 - 2) / 2)
  tester:assertTensorEq(image.crop(x, 'c', 3, 2), x:narrow(3, 2, 3):narrow(2, 2, 2), 0)
  tester:assertTensorEq(image.crop(x, 'tl', 3, 2), x:narrow(3, 1, 3):narrow(2, 1, 2), 0)
  tester:assertTensorEq(image.crop(x, 'tr', 3, 2), x:narrow(3, 4, 3):narrow(2, 1, 2), 0)
  tester:assertTensorEq(image.crop(x, 'bl', 3, 2), x:narrow(3, 1, 3):narrow(2, 4, 2), 0)
  tester:assertTensorEq(image.crop(x, 'br', 3, 2), x:narrow(3, 4, 3):narrow(2, 4, 2), 0)
  -- fractional corners: start and size truncated as Torch7's C casts
  tester:assertTensorEq(image.crop(x, 1.5, 0.5, 4.5, 3.5), x:narrow(3, 2, 3):narrow(2, 1, 3), 0)
  -- dst forms: dst's size cropped at (x1, y1); a window scaled into dst
  local d = torch.Tensor(2, 2, 3)
  tester:assert(image.crop(d, x, 2, 1) == d)
  tester:assertTensorEq(d, x:narrow(3, 3, 3):narrow(2, 2, 2), 0)
  local d2 = torch.Tensor(2, 3, 3)
  image.crop(d2, x, 0, 0, 6, 5)
  tester:assertTensorEq(d2, image.scale(x, 3, 3), 1e-6)
  image.crop(d2, x, 'tl', 3, 3)
  tester:assertTensorEq(d2, x:narrow(3, 1, 3):narrow(2, 1, 3), 0)
  errors(function() image.crop(x, 4, 0, 7, 2) end, '%[image%.crop%] crop goes outside bounds of src')
  errors(function() image.crop(x, -1, 0, 2, 2) end, '%[image%.crop%] crop goes outside bounds')
  errors(function() image.crop(x, 'middle', 2, 2) end, '%[image%.crop%] crop format must be')
  errors(function() image.crop(x, 1, 1) end, '%[image%.crop%] expected')
end

function tests.flips()
  local x = torch.range(1, 2 * 3 * 4):view(2, 3, 4)
  local before = x:clone()
  local h = image.hflip(x)
  for j = 1, 4 do tester:assertTensorEq(h:select(3, j), x:select(3, 5 - j), 0) end
  local v = image.vflip(x)
  for i = 1, 3 do tester:assertTensorEq(v:select(2, i), x:select(2, 4 - i), 0) end
  tester:assertTensorEq(image.flip(x, 1)[1], x[2], 0)
  tester:assertTensorEq(image.flip(x, 3), h, 0)
  tester:assertTensorEq(image.hflip(x[1]), h[1], 0)
  tester:assertTensorEq(image.vflip(x[1]), v[1], 0)
  tester:assertTensorEq(x, before, 0)
  local d = torch.Tensor()
  tester:assert(image.hflip(d, x) == d)
  tester:assertTensorEq(d, h, 0)
  local y = x:clone()
  image.vflip(y, y)  -- in place, as Torch7 allowed
  tester:assertTensorEq(y, v, 0)
  errors(function() image.flip(x, 4) end, '%[image%.flip%] dim must be an integer in 1%.%.3')
  errors(function() image.hflip('x') end, '%[image%.hflip%] src must be')
end

function tests.translate()
  local x = torch.range(1, 12):view(1, 3, 4)
  local y = image.translate(x, 1, -1)  -- right 1, up 1
  tester:assertTensorEq(y, T({ { { 0, 5, 6, 7 }, { 0, 9, 10, 11 }, { 0, 0, 0, 0 } } }):float(), 0)
  tester:assertTensorEq(image.translate(x[1], 1.7, -1.2), y[1], 0)  -- truncated
  tester:assertTensorEq(image.translate(x, 5, 0), torch.zeros(1, 3, 4), 0)
  tester:assertTensorEq(image.translate(x, 0, 0), x, 0)
  local d = torch.Tensor()
  image.translate(d, x, 1, -1)
  tester:assertTensorEq(d, y, 0)
end

function tests.rotate()
  local x = torch.range(1, 16):view(1, 4, 4)
  -- a quarter turn: output (row j, col i) reads src (row i, col 3 - j)
  local q = torch.Tensor(1, 4, 4)
  for j = 1, 4 do for i = 1, 4 do q[1][j][i] = x[1][i][5 - j] end end
  tester:assertTensorEq(image.rotate(x, math.pi / 2), q, 0)
  tester:assertTensorEq(image.rotate(x, math.pi / 2, 'bilinear'), q, 1e-5)
  tester:assertTensorEq(image.rotate(x, math.pi), image.hflip(image.vflip(x)), 0)
  tester:assertTensorEq(image.rotate(x, 0, 'bilinear'), x, 1e-6)
  tester:assertTensorEq(image.rotate(x[1], math.pi / 2), q[1], 0)
  -- an odd size turned by 45 degrees: the centre stays, corners go blank
  local c = torch.ones(5, 5)
  local r = image.rotate(c, math.pi / 4)
  tester:asserteq(r[3][3], 1)
  tester:asserteq(r[1][1], 0)
  local rb = image.rotate(torch.ByteTensor(3, 5, 5):fill(200), math.pi / 4, 'bilinear')
  tester:asserteq(torch.type(rb), 'torch.ByteTensor')
  tester:asserteq(rb[2][3][3], 200)
  local d = torch.Tensor()
  image.rotate(d, x, math.pi / 2, 'simple')
  tester:assertTensorEq(d, q, 0)
  errors(function() image.rotate(x, 1, 'bicubic') end, '%[image%.rotate%] mode must be one of: simple | bilinear')
  errors(function() image.rotate(x, 'a') end, '%[image%.rotate%] theta must be a finite number')
end

function tests.warp()
  -- a constant flow (0.25 down, 0.6 right), clamped at the border: PyTorch's grid_sample
  local field = torch.Tensor(2, 3, 4)
  field[1]:fill(0.25)
  field[2]:fill(0.6)
  tester:assertTensorEq(image.warp(IMG, field:double()), T(REF.WARP_BORDER), 1e-6)
  tester:assertTensorEq(image.warp(IMG[1], field:double(), 'bilinear'), T(REF.WARP_BORDER)[1], 1e-6)
  -- zero flow: the identity; 'simple' rounds positions
  tester:assertTensorEq(image.warp(IMG, torch.zeros(2, 3, 4):double(), 'simple'), IMG, 0)
  tester:assertTensorEq(image.warp(IMG, field:double(), 'simple'),
    image.translate(IMG, -1, 0):narrow(3, 1, 3):cat(IMG:narrow(3, 4, 1), 3), 0)
  -- pad mode: positions outside the image give pad_value
  local p = image.warp(IMG, field:double(), 'bilinear', true, 'pad', -1)
  tester:assertTensorEq(p:narrow(3, 1, 3):narrow(2, 1, 2), T(REF.WARP_BORDER):narrow(3, 1, 3):narrow(2, 1, 2), 1e-6)
  tester:asserteq(p[1][3][1], -1)
  tester:asserteq(p[2][1][4], -1)
  -- absolute positions (offset_mode false)
  local abs = torch.Tensor(2, 1, 1):zero()
  abs[1][1][1], abs[2][1][1] = 1, 2
  tester:assertTensorEq(image.warp(IMG, abs:double(), 'simple', false), IMG:narrow(2, 2, 1):narrow(3, 3, 1), 0)
  errors(function() image.warp(IMG, field, 'lanczos') end, "%[image%.warp%] mode 'lanczos' is not available")
  errors(function() image.warp(IMG, torch.zeros(3, 3, 4)) end, '%[image%.warp%] field must be a 2 x H x W')
  errors(function() image.warp(IMG, field, 'bilinear', true, 'clamp', 3) end, 'pad_value can only be given')
end

function tests.inputsUntouched()
  torch.manualSeed(5)
  local x = torch.rand(3, 6, 7)
  local b = torch.ByteTensor(3, 6, 7):random(0, 255)
  local calls = {
    function(t) return image.scale(t, 4, 3) end, function(t) return image.scale(t, 9, 8, 'bicubic') end,
    function(t) return image.scale(t, 3, 3, 'simple') end, function(t) return image.crop(t, 'c', 3, 3) end,
    function(t) return image.hflip(t) end, function(t) return image.vflip(t) end,
    function(t) return image.flip(t, 1) end, function(t) return image.translate(t, 1, 1) end,
    function(t) return image.rotate(t, 0.4) end, function(t) return image.rotate(t, 0.4, 'bilinear') end,
    function(t) return image.warp(t, torch.zeros(2, 6, 7):fill(0.3)) end,
    function(t) return image.rgb2hsv(t) end, function(t) return image.hsv2rgb(t) end,
    function(t) return image.rgb2hsl(t) end, function(t) return image.hsl2rgb(t) end,
    function(t) return image.rgb2yuv(t) end, function(t) return image.yuv2rgb(t) end,
    function(t) return image.rgb2y(t) end, function(t) return image.rgb2nrgb(t) end,
    function(t) return image.drawRect(t, 1, 1, 3, 3) end,
    function(t) return image.toDisplayTensor{ input = t } end, function(t) return image.minmax{ tensor = t } end,
  }
  for _, t in ipairs({ x, b, x:select(1, 2), b:select(1, 2), x:transpose(2, 3) }) do
    local before = t:clone()
    for k, f in ipairs(calls) do
      if t:dim() == 3 or k <= 11 then
        local ok, y = pcall(f, t)
        tester:assert(ok, 'call ' .. k .. ' on ' .. torch.type(t) .. ': ' .. tostring(y))
        tester:assertTensorEq(t, before, 0, 'call ' .. k .. ' changed its input')
      end
    end
  end
  if torch.cuda.isAvailable() then  -- Note [CPU images]
    tester:assertErrorPattern(function() image.scale(torch.rand(3, 4, 4):cuda(), 2, 2) end,
      '%[image%.scale%] src is a torch%.CudaTensor: the image package works on CPU tensors')
  end
end

tester:add(tests)
tester:run()
