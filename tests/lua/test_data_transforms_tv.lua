-- torchvision-style transforms, part 1 (lua/data/transforms_tv.lua and its geometric, warp and
-- tensor files): resize, pad, rotate, affine and perspective against PyTorch 1.13 values, crops,
-- flips, conversions and normalize in closed form, the deterministic classes, error messages.
-- The reference values are PyTorch 1.13's, computed with torch ops that reproduce torchvision
-- 0.14's tensor code (functional_tensor.py: F.interpolate with align_corners=False and the given
-- antialias, _gen_affine_grid + grid_sample, _get_perspective_coeffs, F.pad), torchvision itself
-- not being installed; the inputs are the formula images imgF and imgB below.
local data = require 'data'
local T = data.transforms
local Fn = T.functional
local tester = torch.Tester()
local tests = torch.TestSuite()

local imgF, imgB = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/tv_images.lua')

local F, B = imgF(3, 5, 6), imgB(3, 5, 6)

-- PyTorch 1.13 values (see the header), flattened, with their sizes.
local REF = {
  resize_bilinear = { size = { 3, 3, 4 }, 0.1927083, 0.4739583, 0.6666667, 0.6822917, 0.6562499, 0.140625,
    0.421875, 0.7031249, 0.5885416, 0.3385417, 0.4427084, 0.4583333, 0.5260417, 0.2760417, 0.3802083, 0.6614583,
    0.5468749, 0.8281249, 0.04687504, 0.328125, 0.4791667, 0.4947916, 0.5989583, 0.3489584, 0.5052083,
    0.5208333, 0.5364583, 0.2864583, 0.171875, 0.453125, 0.7343749, 0.21875, 0.7239583, 0.4739584, 0.4010416,
    0.6822916, },
  resize_bilinear_aa = { size = { 3, 3, 4 }, 0.2578125, 0.5208334, 0.6398809, 0.5993304, 0.4878472, 0.3819444,
    0.574074, 0.5321181, 0.5703124, 0.4285715, 0.4970238, 0.4754464, 0.4899554, 0.3482143, 0.4166666, 0.6796875,
    0.4817708, 0.5316358, 0.3433641, 0.5407986, 0.4799107, 0.4583333, 0.5267857, 0.3850447, 0.5703125, 0.529762,
    0.4464285, 0.3046875, 0.4314236, 0.5108025, 0.5192901, 0.3871528, 0.6551339, 0.4880953, 0.4047619,
    0.6171874, },
  resize_bicubic_up = { size = { 1, 7, 9 }, -0.05071495, 0.041733, 0.1929917, 0.3006306, 0.4264703, 0.5799954,
    0.7472647, 0.9183678, 1.002975, 0.1819521, 0.3398381, 0.5565349, 0.6564296, 0.8564196, 0.8173801, 0.4060163,
    0.3845547, 0.5452482, 0.6401902, 0.5408676, 0.500356, 0.6306897, 0.8542616, 0.7739917, 0.2379325, 0.203313,
    0.4072447, 0.950955, 0.4199219, -0.05230016, 0.1291234, 0.2812501, 0.4149306, 0.5225695, 0.6738282,
    0.7662761, 0.3982986, 0.288086, 0.2751361, 0.4882893, 0.6508492, 0.8002601, 1.00341, 0.6385522, 0.1995026,
    0.3421196, 0.541824, 0.652684, 0.4345516, 0.4604591, 0.6485962, 0.8067875, 0.5308797, 0.1961615, 0.7056629,
    0.9055609, 0.7848774, 0.07536317, -0.0628986, 0.1767802, 0.2786109, 0.4789483, 0.6204751, },
  resize_bicubic_aa = { size = { 3, 3, 4 }, 0.2415047, 0.5275444, 0.6450494, 0.5953697, 0.4917941, 0.3688441,
    0.6156967, 0.5116351, 0.5841579, 0.4053069, 0.4992814, 0.4859643, 0.4963872, 0.341564, 0.4038726, 0.6959952,
    0.4668106, 0.54482, 0.3201525, 0.5798352, 0.489661, 0.4529788, 0.5346875, 0.3571883, 0.5767518, 0.5318456,
    0.447239, 0.2911065, 0.4298482, 0.5207299, 0.5181889, 0.3810868, 0.6546661, 0.4880095, 0.3901857, 0.6296598, },
  resize_nearest = { size = { 1, 8, 4 }, 0, 0.1875, 0.5625, 0.75, 0, 0.1875, 0.5625, 0.75, 0.4375, 0.625, 1,
    0.125, 0.4375, 0.625, 1, 0.125, 0.875, 0, 0.375, 0.5625, 0.25, 0.4375, 0.8125, 1, 0.25, 0.4375, 0.8125, 1,
    0.6875, 0.875, 0.1875, 0.375, },
  resize_byte_aa = { size = { 3, 3, 4 }, 23, 50, 78, 104, 84, 122, 161, 163, 145, 178, 114, 79, 114, 141, 169,
    195, 175, 175, 148, 91, 181, 66, 79, 128, 205, 159, 150, 85, 67, 67, 87, 125, 71, 120, 170, 128, },
  resize_byte_bicubic = { size = { 1, 7, 4 }, 0, 25, 52, 77, 21, 51, 81, 111, 54, 89, 127, 172, 79, 120, 163,
    204, 105, 148, 237, 105, 137, 201, 132, 54, 158, 244, 0, 70, },
  resize_up_aa = { size = { 1, 7, 8 }, 0, 0.1171875, 0.2578125, 0.3984375, 0.5390625, 0.6796875, 0.8203125,
    0.9375, 0.25, 0.3671875, 0.5078125, 0.6484375, 0.7890625, 0.5502232, 0.4631697, 0.5803571, 0.5625,
    0.4899553, 0.516741, 0.657366, 0.797991, 0.4642857, 0.3203125, 0.4375001, 0.875, 0.328125, 0.0703125,
    0.2109375, 0.3515625, 0.4921875, 0.6328125, 0.75, 0.4285713, 0.3560268, 0.3828126, 0.5234376, 0.6640626,
    0.8046876, 0.6607143, 0.3035713, 0.4375, 0.5546875, 0.5245536, 0.3805803, 0.5212054, 0.6618303, 0.5747768,
    0.3125, 0.6875, 0.8046875, 0.546875, 0.0234375, 0.1640625, 0.3046875, 0.4453125, 0.5625, },
  pad_reflect = { size = { 1, 7, 10 }, 0.8125, 0.625, 0.4375, 0.625, 0.8125, 1, 0.125, 0.3125, 0.125, 1, 0.375,
    0.1875, 0, 0.1875, 0.375, 0.5625, 0.75, 0.9375, 0.75, 0.5625, 0.8125, 0.625, 0.4375, 0.625, 0.8125, 1,
    0.125, 0.3125, 0.125, 1, 0.1875, 0, 0.875, 0, 0.1875, 0.375, 0.5625, 0.75, 0.5625, 0.375, 0.625, 0.4375,
    0.25, 0.4375, 0.625, 0.8125, 1, 0.125, 1, 0.8125, 0, 0.875, 0.6875, 0.875, 0, 0.1875, 0.375, 0.5625, 0.375,
    0.1875, 0.625, 0.4375, 0.25, 0.4375, 0.625, 0.8125, 1, 0.125, 1, 0.8125, },
  pad_edge_byte = { size = { 1, 8, 7 }, 0, 0, 17, 34, 51, 68, 85, 0, 0, 17, 34, 51, 68, 85, 0, 0, 17, 34, 51,
    68, 85, 37, 37, 59, 81, 103, 125, 147, 74, 74, 101, 128, 155, 182, 209, 111, 111, 143, 175, 207, 239, 15,
    148, 148, 185, 222, 3, 40, 77, 148, 148, 185, 222, 3, 40, 77, },
  pad_symmetric = { size = { 1, 6, 11 }, 0.1875, 0, 0, 0.1875, 0.375, 0.5625, 0.75, 0.9375, 0.9375, 0.75,
    0.5625, 0.1875, 0, 0, 0.1875, 0.375, 0.5625, 0.75, 0.9375, 0.9375, 0.75, 0.5625, 0.625, 0.4375, 0.4375,
    0.625, 0.8125, 1, 0.125, 0.3125, 0.3125, 0.125, 1, 0, 0.875, 0.875, 0, 0.1875, 0.375, 0.5625, 0.75, 0.75,
    0.5625, 0.375, 0.4375, 0.25, 0.25, 0.4375, 0.625, 0.8125, 1, 0.125, 0.125, 1, 0.8125, 0.875, 0.6875, 0.6875,
    0.875, 0, 0.1875, 0.375, 0.5625, 0.5625, 0.375, 0.1875, },
  rotate_bilinear = { size = { 3, 5, 6 }, 0.004492702, 0.2137475, 0.5816355, 0.4505861, 0.2826724, 0.180565,
    0.1383868, 0.4869193, 0.868049, 0.5577874, 0.5678085, 0.4258307, 0.3909256, 0.5064303, 0.3563101, 0.4718148,
    0.8529447, 0.438477, 0.5903095, 0.2755549, 0.3758213, 0.633674, 0.4835537, 0.3588489, 0.1921592, 0.295066,
    0.6266478, 0.06855455, 0.07759893, 0.005603699, 0.0104452, 0.01951653, 0.2079129, 0.5890427, 0.9511014,
    0.2265112, 0.7461193, 0.3076478, 0.493049, 0.4662057, 0.3160855, 0.453361, 0.2815506, 0.3970553, 0.7248045,
    0.1501955, 0.4779447, 0.5934494, 0.2772082, 0.5957791, 0.4087942, 0.381951, 0.5673524, 0.02735839,
    0.2381054, 0.7576382, 0.2859573, 0.6670871, 0.4336889, 0.005260336, 0.01010183, 0.3756066, 0.8064452,
    0.2483522, 0.5799339, 0.1009101, 0.4146288, 0.5134457, 0.241326, 0.4991788, 0.5994452, 0.14026, 0.7034256,
    0.6587889, 0.4031852, 0.5364835, 0.3685697, 0.4840744, 0.3047386, 0.3071914, 0.6883212, 0.5394785,
    0.3880807, 0.6350909, 0.1125043, 0.5923277, 0.4612784, 0.3111581, 0.239458, 0.0112128, },
  rotate_nearest_fill = { size = { 3, 5, 6 }, 0.25, 0.5625, 0.5625, 0.125, 0.3125, 0.25, 0.1875, 0.375, 1,
    0.5625, 0.5625, 0.125, 0.1875, 0.625, 0.1875, 0.375, 1, 0.375, 0.4375, 0, 0, 0.625, 0.1875, 0.375, 0.25,
    0.25, 0.4375, 0, 0, 0.25, 0.5, 0.1875, 0.1875, 0.8125, 1, 0.5, 0.875, 0, 0.625, 0.1875, 0.1875, 0.8125,
    0.875, 0.25, 0.875, 0, 0.625, 0, 0.0625, 0.6875, 0.6875, 0.25, 0.875, 0, 0.5, 0.9375, 0.0625, 0.6875,
    0.6875, 0.5, 0.75, 0.875, 0.875, 0.4375, 0.625, 0.75, 0.5, 0.6875, 0.25, 0.875, 0.875, 0.4375, 0.5, 0.9375,
    0.5, 0.6875, 0.25, 0.6875, 0.75, 0.3125, 0.3125, 0.9375, 0.5, 0.6875, 0.75, 0.5625, 0.75, 0.3125, 0.3125,
    0.75, },
  rotate_expand = { size = { 1, 9, 8 }, 0.5, 0.5, 0.5, 0.5, 0.4426458, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.4580999,
    0.787643, 0.3764296, 0.5, 0.5, 0.5, 0.5, 0.3849786, 0.6308842, 0.2131189, 0.5906092, 0.3944943, 0.5, 0.5,
    0.3118573, 0.5040608, 0.9460024, 0.4904824, 0.6667991, 0.1719049, 0.3876038, 0.238736, 0.2388957, 0.6808374,
    0.4359296, 0.5022208, 0.8797113, 0.5042812, 0.3912514, 0.3512658, 0.4156724, 0.3546801, 0.2370558,
    0.6145462, 0.305187, 0.31813, 0.5, 0.5, 0.4138409, 0.6414824, 0.4138325, 0.4973818, 0.2450087, 0.5, 0.5,
    0.5, 0.5, 0.3689584, 0.5906091, 0.4648801, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.4356735, 0.5, 0.5, 0.5, 0.5, },
  rotate_center_byte = { size = { 3, 5, 6 }, 5, 7, 14, 9, 0, 0, 38, 49, 53, 54, 51, 38, 85, 96, 104, 109, 111,
    110, 132, 147, 159, 168, 173, 129, 177, 201, 151, 229, 131, 62, 52, 91, 66, 31, 0, 0, 116, 140, 144, 145,
    127, 83, 176, 187, 195, 200, 202, 201, 211, 147, 148, 157, 82, 126, 44, 50, 52, 65, 74, 26, 99, 174, 119,
    52, 0, 0, 150, 231, 137, 192, 203, 57, 11, 66, 30, 35, 95, 50, 58, 73, 85, 94, 99, 73, 105, 127, 143, 155,
    165, 64, },
  affine_bilinear = { size = { 3, 5, 6 }, 0.1612494, 0.7465025, 0.3878303, 0.5947345, 0.8947186, 0.7391218,
    0.2350088, 0.3899555, 0.2076996, 0.2567332, 0.4312421, 0.4606026, 0.5827164, 0.6317499, 0.4935639,
    0.7298171, 0.7788508, 0.7241005, 0.32744, 0.3388042, 0.03538491, 0.2668048, 0.5667891, 0.4573463, 0, 0,
    0.0001671021, 0.06647419, 0.2047551, 0.3521909, 0.09019535, 0.373082, 0.4221157, 0.4711493, 0.5199786,
    0.5692165, 0.5651064, 0.5522709, 0.5187738, 0.7309679, 0.1440323, 0.3562262, 0.4799376, 0.2933284,
    0.3057836, 0.3550214, 0.4038508, 0.4528843, 0.1735391, 0.3719302, 0.6422958, 0.8031898, 0.3020851,
    0.4917731, 0, 0, 0.001067967, 0.1054124, 0.0271221, 0.117397, 0.03017522, 0.3072661, 0.6072503, 0.3984114,
    0.1451829, 0.3814361, 0.3191696, 0.4711661, 0.5201997, 0.5574774, 0.6182667, 0.6673005, 0.8032855,
    0.4755042, 0.7427972, 0.4475301, 0.2802655, 0.4871697, 0.1990565, 0.1294587, 0.3112535, 0.4529011,
    0.5019346, 0.5509682, 0, 0, 0.000576586, 0.140693, 0.3527827, 0.5478526, },
  affine_nearest_center = { size = { 1, 5, 6 }, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.75, 0.9375, 1, 1, 0.1875, 0.375, 1,
    0.3125, 1, 0, 0.625, 0.8125, 0.375, 1, 1, 1, 0.875, 0.1875, 0.8125, 0.375, 0.5625, },
  perspective_bilinear = { size = { 3, 5, 6 }, 0.03810235, 0.1354166, 0.171875, 0, 0, 0, 0.4232954, 0.4411745,
    0.5679346, 0.7230618, 0.640523, 0, 0.2032491, 0.3601381, 0.3950687, 0.50625, 0.639423, 0, 0.5820793,
    0.6828703, 0.4079863, 0.5675749, 0.8916755, 0.09371164, 0.451412, 0.6059337, 0.2082238, 0.107398, 0.3312499,
    0.4930516, 0.0305816, 0.6458333, 0.07291681, 0, 0, 0, 0.2599432, 0.4777229, 0.5394023, 0.6144577, 0.5562801,
    0, 0.7137569, 0.3888027, 0.4635895, 0.13125, 0.3052886, 0, 0.4451198, 0.3840235, 0.4166665, 0.5422007,
    0.5509261, 0.3753107, 0.2149989, 0.3394865, 0.5058613, 0.7282002, 0.2686253, 0.2715515, 0.07674485,
    0.4479166, 0.328125, 0, 0, 0, 0.07244322, 0.402537, 0.3200616, 0.3522396, 0.2471582, 0, 0.4456211,
    0.6133474, 0.7075687, 0.5000001, 0.4411058, 0, 0.890239, 0.4469951, 0.5729167, 0.316478, 0.3136573,
    0.1915987, 0.5464912, 0.1624394, 0.2055991, 0.3895808, 0.6224999, 0.7941813, },
  perspective_nearest_fill_byte = { size = { 1, 5, 6 }, 9, 9, 9, 51, 68, 85, 9, 59, 103, 125, 125, 147, 111,
    128, 155, 182, 209, 209, 185, 222, 207, 239, 15, 15, 9, 9, 40, 40, 77, 77, },
  persp_coeffs = { size = { 8 }, 1.179775, 0.3932584, -1.179775, -0.6292135, 1.88764, 0.6292135, -0.1011236,
    0.1910112, },
}

local function ref(name)
  local r = REF[name]
  local t = torch.DoubleTensor(#r)
  for i = 1, #r do t[i] = r[i] end
  return t:view(torch.LongStorage(r.size))
end

-- got matches REF[name] in size and within tol.
local function check(name, got, tol)
  local want = ref(name)
  tester:assertTableEq(got:size():totable(), want:size():totable(), name .. ': size')
  local diff = (got:double() - want):abs():max()
  tester:assert(diff <= (tol or 1e-5), string.format('%s: max difference %g', name, diff))
end

local function fails(pattern, f)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, 'error "' .. tostring(err) .. '" lacks ' .. pattern)
end

local SP = { { 0, 0 }, { 5, 0 }, { 5, 4 }, { 0, 4 } }

function tests.resizeMatchesPyTorch()
  local one = F:narrow(1, 1, 1)
  check('resize_bilinear', Fn.resize(F, { 3, 4 }, { antialias = false }))
  check('resize_bilinear_aa', Fn.resize(F, { 3, 4 }, { antialias = true }))
  check('resize_bicubic_up', Fn.resize(one, { 7, 9 }, { interpolation = 'bicubic', antialias = false }))
  check('resize_bicubic_aa', Fn.resize(F, { 3, 4 }, { interpolation = 'bicubic' }))  -- antialias defaults to true
  check('resize_nearest', Fn.resize(one, { 8, 4 }, { interpolation = 'nearest' }))
  check('resize_up_aa', Fn.resize(one, { 7, 8 }))
  check('resize_byte_bicubic',
    Fn.resize(B:narrow(1, 1, 1), { 7, 4 }, { interpolation = 'bicubic', antialias = false }), 0)
  -- One output pixel of the byte case is exactly 78.5, a tie float32 noise decides either way:
  -- within 1 of PyTorch, and exactly the half-to-even rounding of the same resize in doubles.
  local got = Fn.resize(B, { 3, 4 })
  check('resize_byte_aa', got, 1)
  tester:asserteq(got:type(), 'torch.ByteTensor')
  local exact = Fn.resize(B:double(), { 3, 4 })
  local rounded = torch.floor(exact + 0.5)
  local tie = torch.eq(rounded - exact, 0.5):double():cmul(torch.remainder(rounded, 2))
  tester:assert(torch.equal(got, (rounded - tie):byte()), 'byte resize rounds half to even')
end

function tests.resizeSizesAndBatches()
  tester:assertTableEq(Fn.resize(F, 3):size():totable(), { 3, 3, 3 })  -- 6 * 3 / 5 = 3.6 -> 3
  tester:assertTableEq(Fn.resize(torch.rand(2, 8, 6), 4):size():totable(), { 2, 5, 4 })
  tester:assertTableEq(Fn.resize(torch.rand(8, 6), { 4 }):size():totable(), { 5, 4 })
  tester:assertTableEq(Fn.resize(torch.rand(1, 10, 4), 4, { maxSize = 8 }):size():totable(), { 1, 8, 3 })
  tester:assert(Fn.resize(F, 5) == F, 'already the right size: the image itself, as torchvision')
  local batch = torch.cat({ F:view(1, 3, 5, 6), (1 - F):view(1, 3, 5, 6) }, 1)
  local out = Fn.resize(batch, { 4, 3 }, { interpolation = 'bicubic' })
  tester:assertTensorEq(out[1], Fn.resize(F, { 4, 3 }, { interpolation = 'bicubic' }), 1e-6)
  tester:assertTensorEq(out[2], Fn.resize(1 - F, { 4, 3 }, { interpolation = 'bicubic' }), 1e-6)
  -- a constant image stays constant whatever the filter (the weights of each row sum to 1)
  local c = Fn.resize(torch.FloatTensor(2, 9, 7):fill(0.25), { 4, 11 })
  tester:assertalmosteq(c:min(), 0.25, 1e-6)
  tester:assertalmosteq(c:max(), 0.25, 1e-6)
end

function tests.padMatchesPyTorch()
  check('pad_reflect', Fn.pad(F:narrow(1, 1, 1), { 2, 1 }, 0, 'reflect'))
  check('pad_edge_byte', Fn.pad(B:narrow(1, 1, 1), { 1, 2, 0, 1 }, 0, 'edge'), 0)
  check('pad_symmetric', Fn.pad(F:narrow(1, 1, 1), { 2, 1, 3, 0 }, 0, 'symmetric'))
  local p = Fn.pad(F, { 1, 2, 3, 4 }, { 0.1, 0.2, 0.3 })
  tester:assertTableEq(p:size():totable(), { 3, 11, 10 })
  tester:assertTensorEq(p:narrow(2, 3, 5):narrow(3, 2, 6), F, 0)
  for c = 1, 3 do
    tester:assertalmosteq(p[c][1][1], c / 10, 1e-7)
    tester:assertalmosteq(p[c][11][10], c / 10, 1e-7)
  end
  tester:assertTensorEq(Fn.pad(F, { -1, 0, 0, -2 }), F:narrow(2, 1, 3):narrow(3, 2, 5), 0)  -- negative pads crop
  tester:assertTableEq(Fn.pad(torch.rand(4, 4), 1):size():totable(), { 6, 6 })
end

function tests.warpsMatchPyTorch()
  check('rotate_bilinear', Fn.rotate(F, 30, { interpolation = 'bilinear' }))
  check('rotate_nearest_fill', Fn.rotate(F, 37, { fill = { 0.25, 0.5, 0.75 } }))
  check('rotate_expand', Fn.rotate(F:narrow(1, 1, 1), 45, { interpolation = 'bilinear', expand = true, fill = 0.5 }))
  check('rotate_center_byte', Fn.rotate(B, -20, { interpolation = 'bilinear', center = { 1, 2 } }), 0)
  check('affine_bilinear', Fn.affine(F, 20, { 1, -1 }, 1.1, { 10, 5 }, { interpolation = 'bilinear' }))
  check('affine_nearest_center',
    Fn.affine(F:narrow(1, 1, 1), -15, { 0, 2 }, 0.8, { 0, 12 }, { fill = 1, center = { 2, 1 } }))
  check('perspective_bilinear', Fn.perspective(F, SP, { { 1, 0 }, { 4, 1 }, { 5, 4 }, { 0, 3 } }))
  check('perspective_nearest_fill_byte',
    Fn.perspective(B:narrow(1, 1, 1), SP, { { 1, 1 }, { 5, 0 }, { 4, 4 }, { 0, 3 } },
      { interpolation = 'nearest', fill = 9 }), 0)
  local coeffs = Fn._perspective_coeffs('t', SP, { { 1, 0 }, { 4, 1 }, { 5, 4 }, { 0, 3 } })
  check('persp_coeffs', torch.DoubleTensor(coeffs), 1e-6)
end

function tests.warpClosedForms()
  local x = torch.rand(2, 5, 5)
  -- a quarter turn counter-clockwise of a square image moves pixel (i, j) to (n + 1 - j, i)
  local r = Fn.rotate(x, 90)
  for i = 1, 5 do for j = 1, 5 do tester:asserteq(r[1][6 - j][i], x[1][i][j]) end end
  tester:assertTensorEq(Fn.affine(x, 0, { 0, 0 }, 1, 0), x, 1e-6)  -- identity
  -- a whole-pixel translation shifts, zeros coming in
  local t = Fn.affine(x, 0, { 2, -1 }, 1, 0)
  tester:assertTensorEq(t:narrow(2, 1, 4):narrow(3, 3, 3), x:narrow(2, 2, 4):narrow(3, 1, 3), 1e-6)
  tester:asserteq(t:narrow(3, 1, 2):abs():max(), 0)
  local same = Fn.perspective(x, SP, SP)
  tester:assertTensorEq(same, x, 1e-5)
  local two = torch.cat({ x:view(1, 2, 5, 5), x:view(1, 2, 5, 5) * 0.5 }, 1)
  local batch = Fn.rotate(two, 33, { interpolation = 'bilinear' })
  tester:assertTensorEq(batch[2], Fn.rotate(x * 0.5, 33, { interpolation = 'bilinear' }), 1e-6)
  -- a one-element shear list shears both axes (torchvision's F.affine: [s] -> [s, s])
  tester:assertTensorEq(Fn.affine(x, 0, { 0, 0 }, 1, { 20 }), Fn.affine(x, 0, { 0, 0 }, 1, { 20, 20 }), 0)
  tester:assertgt((Fn.affine(x, 0, { 0, 0 }, 1, { 20 }) - Fn.affine(x, 0, { 0, 0 }, 1, 20)):abs():max(), 0.01)
end

function tests.cropsAndFlips()
  tester:assertTensorEq(Fn.crop(F, 1, 2, 3, 4), F:narrow(2, 2, 3):narrow(3, 3, 4), 0)
  local out = Fn.crop(F, -1, 4, 3, 4)  -- partly outside: zeros there
  tester:assertTensorEq(out:narrow(2, 2, 2):narrow(3, 1, 2), F:narrow(2, 1, 2):narrow(3, 5, 2), 0)
  tester:asserteq(out:select(2, 1):abs():max(), 0)
  tester:asserteq(out:narrow(3, 3, 2):abs():max(), 0)
  -- torchvision's offsets round half to even: (5 - 2) / 2 = 1.5 -> 2, (6 - 3) / 2 = 1.5 -> 2
  tester:assertTensorEq(Fn.centerCrop(F, { 2, 3 }), F:narrow(2, 3, 2):narrow(3, 3, 3), 0)
  tester:assertTensorEq(Fn.centerCrop(F, 3), F:narrow(2, 2, 3):narrow(3, 3, 3), 0)  -- 1 and 1.5 -> 2
  local big = Fn.centerCrop(F, { 7, 8 })  -- padded by 1 on each side
  tester:assertTensorEq(big:narrow(2, 2, 5):narrow(3, 2, 6), F, 0)
  tester:asserteq(big:select(3, 1):abs():max(), 0)
  tester:assertTensorEq(Fn.resizedCrop(F, 1, 1, 3, 4, { 3, 4 }), F:narrow(2, 2, 3):narrow(3, 2, 4), 0)
  local h, v = Fn.hflip(F), Fn.vflip(B)
  for i = 1, 5 do for j = 1, 6 do
    tester:asserteq(h[2][i][j], F[2][i][7 - j])
    tester:asserteq(v[3][i][j], B[3][6 - i][j])
  end end
  local five = Fn.fiveCrop(F, { 2, 3 })
  tester:asserteq(#five, 5)
  tester:assertTensorEq(five[2], F:narrow(2, 1, 2):narrow(3, 4, 3), 0)
  tester:assertTensorEq(five[3], F:narrow(2, 4, 2):narrow(3, 1, 3), 0)
  tester:assertTensorEq(five[5], Fn.centerCrop(F, { 2, 3 }), 0)
  local ten = Fn.tenCrop(F, 2, true)
  tester:asserteq(#ten, 10)
  tester:assertTensorEq(ten[6], Fn.vflip(F):narrow(2, 1, 2):narrow(3, 1, 2), 0)
end

function tests.conversionsAndNormalize()
  local hwc = torch.ByteTensor(6, 5, 3)
  for i = 1, 6 do for j = 1, 5 do for c = 1, 3 do hwc[i][j][c] = i * 40 + j * 7 + c end end end
  local t = Fn.toTensor(hwc)
  tester:asserteq(t:type(), 'torch.FloatTensor')
  tester:assertTableEq(t:size():totable(), { 3, 6, 5 })
  tester:assertalmosteq(t[2][3][4], (3 * 40 + 4 * 7 + 2) / 255, 1e-7)
  tester:assertTableEq(Fn.toTensor(B):size():totable(), { 3, 5, 6 }, 'CHW bytes stay CHW')
  tester:assertTableEq(Fn.toTensor(hwc:permute(3, 1, 2), { layout = 'CHW' }):size():totable(), { 3, 6, 5 })
  tester:assertTensorEq(T.ToTensor()(F), F, 0)
  tester:assertTensorEq(Fn.pilToTensor(hwc), hwc:permute(3, 1, 2), 0)
  tester:assertTensorEq(Fn.convertImageDtype(B), B:float() / 255, 1e-7)
  local back = Fn.convertImageDtype(torch.FloatTensor{ { { 0, 0.5, 1 } } }, 'byte')
  tester:assertTensorEq(back, torch.ByteTensor{ { { 0, 127, 255 } } }, 0)  -- floor(x * 255.999)
  local mean, std = { 0.485, 0.456, 0.406 }, { 0.229, 0.224, 0.225 }
  local n = Fn.normalize(F, mean, std)
  for c = 1, 3 do tester:assertTensorEq(n[c], (F[c] - mean[c]) / std[c], 1e-6) end
  tester:assertTensorEq(T.Normalize(mean, std)(F), n, 0)
  local x = F:clone()
  tester:assert(Fn.normalize(x, 0.5, 0.5, true) == x, 'inplace returns its input')
  tester:assertTensorEq(x, F * 2 - 1, 1e-6)
  local e = Fn.erase(F, 1, 2, 2, 3, 0.5)
  tester:assertTensorEq(e:narrow(2, 2, 2):narrow(3, 3, 3), torch.FloatTensor(3, 2, 3):fill(0.5), 0)
  tester:asserteq((e - F):ne(0):sum(), (F:narrow(2, 2, 2):narrow(3, 3, 3):ne(0.5)):sum())
  -- a tensor value with a leading unit dim erases an H x W image (PyTorch's setitem drops it)
  local g = Fn.erase(F[1], 1, 2, 2, 3, torch.FloatTensor(1, 2, 3):fill(0.25))
  tester:assertTensorEq(g:narrow(1, 2, 2):narrow(2, 3, 3), torch.FloatTensor(2, 3):fill(0.25), 0)
  local m = torch.randn(90, 90)
  tester:assertTensorEq(Fn.linearTransformation(F, m, torch.zeros(90)), (F:view(1, 90) * m):view(3, 5, 6), 1e-5)
end

function tests.deterministicClasses()
  tester:assertTensorEq(T.Resize({ 3, 4 }, { antialias = false })(F), ref('resize_bilinear'):float(), 1e-5)
  tester:assertTensorEq(T.Resize(3, 'nearest')(F), Fn.resize(F, 3, { interpolation = 'nearest' }), 0)
  -- a one-element list is the shorter side, as torchvision's Resize([n]) (not an n x n square)
  tester:assertTableEq(T.Resize({ 3 })(F):size():totable(), { 3, 3, 3 })
  tester:assertTableEq(T.Resize({ 4 })(torch.rand(3, 8, 6)):size():totable(), { 3, 5, 4 })
  tester:assertTensorEq(T.CenterCrop(2)(F), Fn.centerCrop(F, 2), 0)
  tester:assertTensorEq(T.Pad(2, 0, 'reflect')(F), Fn.pad(F, 2, 0, 'reflect'), 0)
  tester:assertTensorEq(T.Pad(1, { paddingMode = 'edge' })(F), Fn.pad(F, 1, 0, 'edge'), 0)
  tester:assertTensorEq(T.Grayscale(3)(F), Fn.rgbToGrayscale(F, 3), 0)
  local pipe = T.Compose{ T.CenterCrop(4), T.Lambda(function(x) return x * 2 end), Fn.vflip }
  tester:assertTensorEq(pipe(F), Fn.vflip(Fn.centerCrop(F, 4) * 2), 0)
  tester:asserteq(#T.TenCrop(2)(F), 10)
  tester:assert(tostring(T.Resize(4)):find('Resize%(') ~= nil, tostring(T.Resize(4)))
  -- a transform class works where a function does
  local ds = data.TensorDataset(torch.rand(4, 3, 6, 6)):map(T.CenterCrop(2), 'input')
  tester:assertTableEq(ds:get(1).input:size():totable(), { 3, 2, 2 })
  -- the old lowercase transforms are unchanged
  tester:assertTensorEq(T.hflip(F), Fn.hflip(F), 0)
  tester:assertTensorEq(T.normalize(0.5, 0.5)(F), F * 2 - 1, 1e-6)
end

function tests.errorsNameTheTransform()
  fails('[resize] interpolation must be', function() Fn.resize(F, 3, { interpolation = 'lanczos' }) end)
  fails('[resize] expected an image tensor', function() Fn.resize({}, 3) end)
  fails('[resize] expected a C x H x W', function() Fn.resize(torch.rand(2, 2, 2, 2, 2), 3) end)
  fails('[resize] expected a floating-point or byte image', function() Fn.resize(torch.LongTensor(3, 4, 4), 3) end)
  fails('[Resize] size must hold positive integers', function() T.Resize({ 0, 3 }) end)
  fails('[crop] crop size', function() Fn.crop(F, 0, 0, 0, 2) end)
  fails("[pad] paddingMode must be", function() Fn.pad(F, 1, 0, 'wrap') end)
  fails('[pad] reflect padding must be smaller', function() Fn.pad(F, 5, 0, 'reflect') end)
  fails('[fiveCrop] crop 6x6 is bigger', function() Fn.fiveCrop(F, 6) end)
  fails('[normalize] expected a floating-point image', function() Fn.normalize(B, 0.5, 0.5) end)
  fails('[normalize] std of channel 2 is 0', function() Fn.normalize(F, 0, { 1, 0, 1 }) end)
  fails('[rotate] interpolation must be', function() Fn.rotate(F, 10, { interpolation = 'bicubic' }) end)
  fails('[perspective] startpoints and endpoints', function() Fn.perspective(F, SP, { { 0, 0 } }) end)
  fails('[erase] window', function() Fn.erase(F, 4, 0, 3, 3, 0) end)
  fails('[RandomCrop] unknown option pad_if_needed', function() T.RandomCrop(4, { pad_if_needed = true }) end)
  fails('[RandomCrop] crop 9x9 is larger', function() T.RandomCrop(9)(F) end)
  fails('[Compose] transform 2 is a number', function() T.Compose{ T.CenterCrop(2), 3 } end)
  fails('[toTensor] expected an H x W x C', function() Fn.toTensor(torch.rand(2, 2, 2, 2)) end)
  fails('[convertImageDtype] dtype must be', function() Fn.convertImageDtype(F, 'int') end)
end

function tests.cudaMatchesCpu()
  if not torch.cuda or not torch.cuda.isAvailable() then return end
  local g = F:cuda()
  tester:assertTensorEq(Fn.resize(g, { 3, 4 }):float(), Fn.resize(F, { 3, 4 }), 1e-5)
  tester:assertTensorEq(Fn.resize(g, { 7, 9 }, { interpolation = 'bicubic' }):float(),
    Fn.resize(F, { 7, 9 }, { interpolation = 'bicubic' }), 1e-5)
  tester:assertTensorEq(Fn.rotate(g, 30, { interpolation = 'bilinear', fill = 0.5 }):float(),
    Fn.rotate(F, 30, { interpolation = 'bilinear', fill = 0.5 }), 1e-5)
  tester:assertTensorEq(Fn.perspective(g, SP, { { 1, 0 }, { 4, 1 }, { 5, 4 }, { 0, 3 } }):float(),
    Fn.perspective(F, SP, { { 1, 0 }, { 4, 1 }, { 5, 4 }, { 0, 3 } }), 1e-5)
  tester:assertTensorEq(Fn.pad(g, 2, 0, 'reflect'):float(), Fn.pad(F, 2, 0, 'reflect'), 0)
  tester:assertTensorEq(Fn.normalize(g, 0.5, 0.25):float(), Fn.normalize(F, 0.5, 0.25), 1e-6)
end

tester:add(tests)
tester:run()
