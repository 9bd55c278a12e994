-- torchvision-style transforms, part 3 (lua/data/transforms_random.lua, transforms_augment.lua):
-- the random classes by their invariants and distributions (counts checked within 5 binomial
-- standard deviations), seeded reproducibility, the AutoAugment policies, and random transforms
-- inside a DataLoader with worker threads.
local data = require 'data'
local T = data.transforms
local Fn = T.functional
local tester = torch.Tester()
local tests = torch.TestSuite()

local F = torch.FloatTensor(3, 5, 6)
for c = 1, 3 do for i = 1, 5 do for j = 1, 6 do F[c][i][j] = ((c * 11 + i * 7 + j * 3) % 17) / 16 end end end
local B = F:clone():mul(255):byte()

-- count within 5 standard deviations of a Binomial(n, p)
local function binomial(count, n, p, what)
  local sd = math.sqrt(n * p * (1 - p))
  tester:assert(math.abs(count - n * p) <= 5 * sd + 1e-9,
    string.format('%s: %d of %d, expected %.1f +- %.1f', what, count, n, n * p, 5 * sd))
end

local function fails(pattern, f)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, 'error "' .. tostring(err) .. '" lacks ' .. pattern)
end

function tests.flipFrequencies()
  torch.manualSeed(1)
  local h, v, n = T.RandomHorizontalFlip(0.3), T.RandomVerticalFlip{ p = 0.7 }, 2000
  local hf, vf, hflip, vflip = 0, 0, Fn.hflip(F), Fn.vflip(F)
  for _ = 1, n do
    local a, b = h(F), v(F)
    if torch.equal(a, hflip) then hf = hf + 1 else tester:assert(torch.equal(a, F)) end
    if torch.equal(b, vflip) then vf = vf + 1 else tester:assert(torch.equal(b, F)) end
  end
  binomial(hf, n, 0.3, 'RandomHorizontalFlip(0.3)')
  binomial(vf, n, 0.7, 'RandomVerticalFlip(0.7)')
  tester:assert(torch.equal(T.RandomHorizontalFlip(1)(F), hflip) and torch.equal(T.RandomVerticalFlip(0)(F), F))
end

function tests.seededReproducibility()
  local t = T.Compose{ T.RandomResizedCrop(4), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
    T.RandomRotation(20), T.RandomErasing(0.7), T.RandAugment() }
  local x = torch.rand(3, 9, 9)
  torch.manualSeed(42)
  local a1, a2 = t(x), t(x)
  torch.manualSeed(42)
  local b1, b2 = t(x), t(x)
  tester:assert(torch.equal(a1, b1) and torch.equal(a2, b2), 'same seed, same outputs')
  tester:assert(not torch.equal(a1, a2), 'successive draws differ')
end

function tests.randomResizedCropParams()
  torch.manualSeed(2)
  local img, n = torch.rand(1, 200, 200), 2000
  local sum = 0
  for _ = 1, n do
    local i, j, h, w = T.RandomResizedCrop.getParams(img, { 0.2, 0.6 }, { 3 / 4, 4 / 3 })
    tester:assert(i >= 0 and j >= 0 and i + h <= 200 and j + w <= 200, 'window inside the image')
    local slack = (0.5 * (h + w) + 0.75) / 40000  -- h and w are rounded
    local frac = h * w / 40000
    tester:assert(frac >= 0.2 - slack and frac <= 0.6 + slack, 'area fraction in scale: ' .. frac)
    tester:assert((w - 0.5) / (h + 0.5) <= 4 / 3 and (w + 0.5) / (h - 0.5) >= 3 / 4, 'aspect ratio in ratio')
    sum = sum + frac
  end
  -- every try succeeds here, so the fraction is uniform on [0.2, 0.6]: mean 0.4, sd 0.4 / sqrt(12)
  tester:assertalmosteq(sum / n, 0.4, 5 * 0.4 / math.sqrt(12 * n) + 0.002)
  -- no try fits a ratio of 3: the central crop clamped to the ratio
  local i, j, h, w = T.RandomResizedCrop.getParams(torch.rand(1, 10, 10), { 0.9, 1 }, { 3, 3 })
  tester:assertTableEq({ i, j, h, w }, { 3, 0, 3, 10 })
  local out = T.RandomResizedCrop({ 5, 7 }, { scale = { 0.5, 1 }, interpolation = 'bicubic' })(torch.rand(3, 20, 30))
  tester:assertTableEq(out:size():totable(), { 3, 5, 7 })
end

function tests.randomCropPositionsAndPadding()
  torch.manualSeed(3)
  local x = torch.range(1, 64):float():view(1, 8, 8)
  local counts, n = { 0, 0, 0 }, 3000
  for _ = 1, n do
    local c = T.RandomCrop(6)(x)
    local top, left = math.floor((c[1][1][1] - 1) / 8), (c[1][1][1] - 1) % 8
    tester:assert(torch.equal(c, Fn.crop(x, top, left, 6, 6)))
    counts[top + 1] = counts[top + 1] + 1
  end
  for k = 1, 3 do binomial(counts[k], n, 1 / 3, 'top = ' .. (k - 1)) end
  local padded = T.RandomCrop(8, { padding = 1 })(x)
  tester:assertTableEq(padded:size():totable(), { 1, 8, 8 })
  tester:asserteq(padded:ne(0):sum(), 49, 'one padded row and column are in any 8x8 window of the 10x10')
  local grown = T.RandomCrop({ 8, 9 }, { padIfNeeded = true, fill = -1 })(F)
  tester:assertTableEq(grown:size():totable(), { 3, 8, 9 })
  tester:asserteq(grown:eq(-1):sum(), 3 * (72 - 30))
  tester:assertTableEq(T.RandomCrop(4, 1, false, 0, 'reflect')(x):size():totable(), { 1, 4, 4 })
end

function tests.colorJitterRanges()
  torch.manualSeed(4)
  local x = torch.rand(3, 6, 6):mul(0.5)
  for _ = 1, 50 do
    local y = T.ColorJitter(0.5)(x)  -- brightness only: x * b, b in [0.5, 1.5]
    local b = y[1][1][1] / x[1][1][1]
    tester:assert(b >= 0.5 - 1e-5 and b <= 1.5 + 1e-5, 'brightness factor ' .. b)
    tester:assertTensorEq(y, x * b, 1e-5)
  end
  tester:assertTensorEq(T.ColorJitter()(x), x, 0)
  tester:assertTensorEq(T.ColorJitter{ contrast = { 1, 1 }, hue = 0 }(x), x, 0)
  local y = T.ColorJitter(0.4, 0.4, 0.4, 0.1)(B)
  tester:asserteq(y:type(), 'torch.ByteTensor')
  fails('[ColorJitter] hue values must be in [-0.5, 0.5]', function() T.ColorJitter(0, 0, 0, 0.6) end)
  fails('[ColorJitter] brightness must be non-negative', function() T.ColorJitter(-1) end)
end

function tests.randomErasingWindows()
  torch.manualSeed(5)
  local x, n = torch.FloatTensor(3, 40, 40):fill(0.5), 400
  for _ = 1, n do
    local y = T.RandomErasing(1, { 0.05, 0.2 }, { 0.5, 2 }, 0)(x)
    local z = y[1]:eq(0)
    local area = z:sum()
    if area > 0 then
      local rows, cols = z:sum(2):gt(0):sum(), z:sum(1):gt(0):sum()
      tester:asserteq(rows * cols, area, 'a rectangle')
      local slack = (rows + cols) / 3200 + 1e-3  -- the sides are rounded
      tester:assert(area / 1600 >= 0.05 - slack and area / 1600 <= 0.2 + slack, 'area fraction in scale')
      tester:assert((rows - 0.5) / (cols + 0.5) <= 2 and (rows + 0.5) / (cols - 0.5) >= 0.5, 'aspect in ratio')
      tester:assert(torch.equal(y[2]:eq(0), z) and torch.equal(y[3]:eq(0), z), 'every channel')
    end
  end
  local r = T.RandomErasing{ p = 1, value = 'random' }(x)
  tester:assert(r:ne(0.5):sum() > 0)
  local v = T.RandomErasing{ p = 1, value = { 0.1, 0.2, 0.3 } }(x)
  tester:asserteq(v[1]:eq(0.1):sum() > 0 and v[1]:eq(0.1):sum() == v[3]:eq(0.3):sum(), true)
  tester:assert(T.RandomErasing(0)(x) == x, 'p = 0 leaves the image')
  local y = x:clone()
  T.RandomErasing{ p = 1, inplace = true }(y)
  tester:assert(y:eq(0):sum() > 0, 'inplace writes into the input')
end

function tests.fixedDrawsMatchFunctional()
  tester:assertTensorEq(T.RandomRotation({ 30, 30 }, { interpolation = 'bilinear' })(F),
    Fn.rotate(F, 30, { interpolation = 'bilinear', fill = 0 }), 1e-6)
  tester:assertTensorEq(T.RandomRotation({ -20, -20 }, { expand = true, fill = { 1, 2, 3 } })(F),
    Fn.rotate(F, -20, { expand = true, fill = { 1, 2, 3 } }), 0)
  tester:assertTensorEq(T.RandomAffine({ 10, 10 }, { scale = { 1.2, 1.2 }, shear = { 5, 5, -3, -3 } })(F),
    Fn.affine(F, 10, { 0, 0 }, 1.2, { 5, -3 }, { fill = 0 }), 1e-6)
  tester:assertTensorEq(T.GaussianBlur(3, 0.5)(F), Fn.gaussianBlur(F, 3, 0.5), 0)
  tester:assertTensorEq(T.RandomPerspective(0, 1)(F), F, 1e-5)  -- no distortion
  tester:assert(T.RandomPerspective(0.5, 0)(F) == F)
  tester:assertTensorEq(T.RandomGrayscale(1)(F), Fn.rgbToGrayscale(F, 3), 0)
  for _, case in ipairs({
    { T.RandomInvert, nil, Fn.invert }, { T.RandomPosterize, 3, Fn.posterize }, { T.RandomSolarize, 100, Fn.solarize },
    { T.RandomAdjustSharpness, 2, Fn.adjustSharpness }, { T.RandomAutocontrast, nil, Fn.autocontrast },
    { T.RandomEqualize, nil, Fn.equalize } }) do
    local C, arg, f = case[1], case[2], case[3]
    local on = arg and C(arg, 1) or C(1)
    local off = arg and C(arg, { p = 0 }) or C{ p = 0 }
    tester:assertTensorEq(on(B), f(B, arg), 0)
    tester:assert(off(B) == B)
  end
  -- RandomAffine's translation is a whole number of pixels up to the fraction of the size
  torch.manualSeed(6)
  local x = torch.zeros(1, 21, 21)
  x[1][11][11] = 1
  for _ = 1, 100 do
    local y = T.RandomAffine(0, { translate = { 0.2, 0.1 } })(x)
    local idx = y:view(-1):gt(0.5):nonzero()
    tester:asserteq(idx:nElement(), 1)
    local pos = idx[1][1] - 1
    local dy, dx = math.floor(pos / 21) - 10, pos % 21 - 10
    tester:assert(math.abs(dx) <= 4.2 and math.abs(dy) <= 2.1, 'shift ' .. dx .. ', ' .. dy)
  end
end

function tests.containers()
  torch.manualSeed(7)
  local n, applied = 2000, 0
  local ra = T.RandomApply({ T.Lambda(function(x) return x + 1 end) }, 0.25)
  for _ = 1, n do if ra(F)[1][1][1] > 1 then applied = applied + 1 end end
  binomial(applied, n, 0.25, 'RandomApply(p = 0.25)')
  local first = 0
  local rc = T.RandomChoice({ function() return 1 end, function() return 2 end }, { 1, 3 })
  for _ = 1, n do if rc(F) == 1 then first = first + 1 end end
  binomial(first, n, 0.25, 'RandomChoice weights {1, 3}')
  local ab = 0
  local ro = T.RandomOrder({ function(s) return s .. 'a' end, function(s) return s .. 'b' end })
  for _ = 1, n do if ro('') == 'ab' then ab = ab + 1 end end
  binomial(ab, n, 0.5, 'RandomOrder')
end

function tests.autoAugmentPolicies()
  local P = T._augment.policies
  -- sum over sub-policy i, op j of i*j*(10p + bin or -1) + i*#name, computed from torchvision's
  -- listing (autoaugment.py) with Python
  local want = { imagenet = 13457, cifar10 = 13817, svhn = 13226 }
  for name, sum in pairs(want) do
    local s, list = 0, P(name)
    tester:asserteq(#list, 25)
    for i, sub in ipairs(list) do
      tester:asserteq(#sub, 2)
      for j, step in ipairs(sub) do s = s + i * j * (step[2] * 10 + (step[3] or -1)) + #step[1] * i end
    end
    tester:assertalmosteq(s, sum, 1e-9, name)
  end
  tester:assertTableEq(P('imagenet')[1], { { 'Posterize', 0.4, 8 }, { 'Rotate', 0.6, 9 } })
  tester:assertTableEq(P('svhn')[25], { { 'ShearX', 0.7, 2 }, { 'Invert', 0.1 } })
end

function tests.autoAugmentsRun()
  torch.manualSeed(8)
  local x = torch.rand(3, 16, 16)
  local xb = x:clone():mul(255):byte()
  local augs = { T.AutoAugment(), T.AutoAugment('cifar10', 'bilinear', 0.5),
    T.AutoAugment{ policy = 'svhn', fill = { 0.1, 0.2, 0.3 } }, T.RandAugment(), T.RandAugment(3, 20, 31, 'nearest', 0),
    T.TrivialAugmentWide() }
  for _, a in ipairs(augs) do
    for _ = 1, 20 do
      local y, yb = a(x), a(xb)
      tester:assertTableEq(y:size():totable(), { 3, 16, 16 })
      tester:asserteq(yb:type(), 'torch.ByteTensor')
      tester:assert(y:min() >= 0 and y:max() <= 1 + 1e-6, tostring(a) .. ' keeps floats in [0, 1]')
    end
  end
  tester:assertTensorEq(T.RandAugment(0)(x), x, 0)
  fails("[AutoAugment] policy must be 'imagenet', 'cifar10' or 'svhn'", function() T.AutoAugment('mnist') end)
  fails('[RandAugment] magnitude must be a number in [0, 30]', function() T.RandAugment(2, 31) end)
end

function tests.randomTransformsInLoaderWorkers()
  local gen = torch.Generator()
  torch.manualSeed(gen, 9)
  local x = torch.rand(gen, 24, 3, 12, 12)
  local t = T.Compose{ T.RandomResizedCrop(8), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3, 0.05),
    T.RandomErasing(0.5), T.TrivialAugmentWide(), T.Normalize({ 0.5, 0.5, 0.5 }, { 0.2, 0.2, 0.2 }) }
  local ds = data.TensorDataset(x):map(t, 'input')
  local function run(workers, seed)
    local l = data.DataLoader(ds, { batchSize = 4, shuffle = true, seed = seed, workers = workers })
    local out = {}
    for b in l:iter() do out[#out + 1] = b.input end
    l:close()
    return out
  end
  local a, b, c = run(0, 7), run(2, 7), run(2, 8)
  tester:asserteq(#a, 6)
  tester:assertTableEq(a[1]:size():totable(), { 4, 3, 8, 8 })
  for k = 1, #a do tester:assert(torch.equal(a[k], b[k]), 'batch ' .. k .. ': workers 0 and 2 agree') end
  tester:assert(not torch.equal(a[1], c[1]), 'another seed, other augmentations')
end

tester:add(tests)
tester:run()
