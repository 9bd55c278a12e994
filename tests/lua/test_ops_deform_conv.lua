-- nn.ops.deformConv2d and nn.ops.DeformConv2d (lua/nn/ops/deform_conv.lua) against torchvision
-- 0.14 (PyTorch 1.13, float64): outputs and the gradients of input, offset, weight, bias and mask
-- (checksums: sum, a weighted sum, first elements) for stride 2, padding, dilation, groups, offset
-- groups 2 and 3, mask on and off, zero offsets; zero offsets against nn.functional.conv2d;
-- gradchecks; the module's forward, state dict and Torch7-style backward; samples far outside;
-- errors naming the function.
--
-- # Reference values (PyTorch 1.13, torchvision 0.14, float64):
-- import torch, torchvision.ops as O
-- torch.set_default_dtype(torch.float64)
-- def L(t):
--     if t.dim() == 0: return repr(t.item())
--     return '{' + ', '.join(L(x) for x in t) + '}'
-- def seq(shape, a, b):
--     n = 1
--     for s in shape: n *= s
--     return torch.sin(a * torch.arange(n, dtype=torch.float64) + b).reshape(shape)
-- def C(t):
--     w = seq(t.shape, 0.13, 0.7)
--     return '{sum = %r, wsum = %r, first = %s}' % (t.sum().item(), (t * w).sum().item(), L(t.flatten()[:4]))
-- # name, N, C, H, W, outC, kh, kw, stride, pad, dil, groups, offset groups, mask, bias, offset scale
-- cfgs = [('plain', 2, 4, 6, 5, 6, 3, 3, (1, 1), (1, 1), (1, 1), 1, 1, False, True, 1.7),
--         ('stride2_og2_mask', 1, 4, 7, 6, 4, 3, 3, (2, 2), (1, 1), (1, 1), 1, 2, True, True, 1.3),
--         ('dil2_groups2_og2', 2, 4, 6, 7, 6, 3, 2, (1, 1), (2, 2), (2, 2), 2, 2, True, True, 2.1),
--         ('mixed_nobias', 1, 6, 5, 6, 4, 2, 3, (2, 1), (0, 1), (1, 2), 2, 3, True, False, 0.9),
--         ('zero_offsets', 1, 2, 4, 5, 3, 3, 3, (1, 1), (1, 1), (1, 1), 1, 1, True, True, 0.0)]
-- for (name, N, Ci, H, W, Co, kh, kw, s, p, d, g, og, use_mask, use_bias, sc) in cfgs:
--     x = seq((N, Ci, H, W), 0.31, 0.2).requires_grad_()
--     wt = (0.5 * seq((Co, Ci // g, kh, kw), 0.37, 1.1)).requires_grad_()
--     b = (0.5 * seq((Co,), 0.41, 0.3)).requires_grad_() if use_bias else None
--     oh = (H + 2 * p[0] - (d[0] * (kh - 1) + 1)) // s[0] + 1
--     ow = (W + 2 * p[1] - (d[1] * (kw - 1) + 1)) // s[1] + 1
--     off = (sc * seq((N, 2 * og * kh * kw, oh, ow), 0.53, 0.9)).requires_grad_()
--     m = seq((N, og * kh * kw, oh, ow), 0.19, 0.5).requires_grad_() if use_mask else None
--     y = O.deform_conv2d(x, off, wt, b, stride=s, padding=p, dilation=d, mask=m)
--     (y * seq(y.shape, 0.23, 0.4)).sum().backward()
--     print('  %s = {out = %s,' % (name, C(y)))
--     print('    gInput = %s,' % C(x.grad))
--     print('    gOffset = %s,' % C(off.grad))
--     print('    gWeight = %s,' % C(wt.grad))
--     if use_bias: print('    gBias = %s,' % L(b.grad))
--     if use_mask: print('    gMask = %s,' % C(m.grad))
--     print('  },')
require 'nn.ops'
local tester = torch.Tester()
local tests = torch.TestSuite()
-- Shared checks (helpers/vision_ops_checks.lua).
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_ops_checks.lua')(tester)
local seq, fails = C.seq, C.fails

-- printed by the script above (torchvision 0.14's values)
local R = {
  plain = {out = {sum = 69.2089632337013, wsum = -32.19815209032423, first = {-1.3572617455248757, 0.8291264033631133, 2.207311972553517, 0.8863349380871118}},
    gInput = {sum = -1.5401355127218288, wsum = 39.79086218892353, first = {0.978763857881544, 0.9981962547825609, 0.5127127692995761, -1.5560074198626443}},
    gOffset = {sum = -286.9060262997872, wsum = -52.53131252329009, first = {0.0, 0.0, 2.62610811036687, 2.9609445606395877}},
    gWeight = {sum = 18.470483491612296, wsum = -11.08314098067462, first = {-0.08020546168944365, -1.4411242022144373, -4.814327117627087, 1.0048381383520373}},
    gBias = {-0.9382298347369047, -0.1180485689967199, 0.7456394732078957, 1.3345222368765688, 1.431567097383472, 1.001008190821984},
  },
  stride2_og2_mask = {out = {sum = 17.81440179495886, wsum = -3.9089081678560786, first = {0.002115133302173361, 0.009860362282019669, 0.16535843800572875, 0.1450688500000057}},
    gInput = {sum = 0.23317416641558197, wsum = 0.5022109933688547, first = {0.0002185101738313509, -0.008422259449983241, 0.10187016103868064, -0.05727839285232244}},
    gOffset = {sum = 1.1383053491267543, wsum = -0.22278173348672767, first = {-0.0002857759683121448, 0.020217635850172777, 0.039460235251317574, 0.014588710679189237}},
    gWeight = {sum = 2.57005364612802, wsum = -1.643304845560354, first = {0.7364228389399694, 0.6531711205339418, -1.3168162252136555, 0.2788206348370046}},
    gBias = {8.518765271925005, -8.205770603082428, 6.712338253992554, -4.2533053073668725},
    gMask = {sum = 0.22054580605757354, wsum = 0.4081349731717311, first = {0.009972432880552301, 0.002208195513620309, 0.009420557631251214, 0.037464909661096994}},
  },
  dil2_groups2_og2 = {out = {sum = 241.5651248504053, wsum = 7.1542806482425245, first = {-0.19023443245444446, 0.010110431425937066, 0.2320664308843875, 0.5022168991106997}},
    gInput = {sum = -0.3575062732515407, wsum = -1.839098328281116, first = {-0.06890925197015345, -0.21145585693589325, -0.10063105071783647, 0.14822027818634595}},
    gOffset = {sum = 0.7652905093925526, wsum = -1.933888915729587, first = {0.0, 0.0, 0.0, 0.10012289323062111}},
    gWeight = {sum = 15.127231827990874, wsum = 3.192465049404334, first = {-0.3925799960914373, -0.8205719732664285, -0.1631956736560216, -0.5268008226105849}},
    gBias = {0.2599469435206041, 0.4210836141024433, 0.5732149341728178, 0.7130874029655955, 0.8377096891485651, 0.944416603835032},
    gMask = {sum = -0.5519414534087903, wsum = 0.8984300066275548, first = {0.0, 0.0, 0.0, 0.031223029984645982}},
  },
  mixed_nobias = {out = {sum = 3.074951684879177, wsum = 6.100360822081221, first = {0.591121660462125, 0.946729994317201, 0.7108629136254079, 0.74072378394325}},
    gInput = {sum = -1.647501510784545, wsum = 5.314207183180374, first = {0.02443236551720262, 0.17457999729992557, 0.5436207951627244, 0.30410113426545854}},
    gOffset = {sum = -0.2259186763242158, wsum = 4.657005096754877, first = {0.0, 0.17713999243362422, 0.1646774106350032, -0.23733966337891738}},
    gWeight = {sum = -3.8408960981605778, wsum = 5.563315766353055, first = {0.432427763958589, 0.807217525077134, -1.645290847115315, 0.8371275425252407}},
    gMask = {sum = 10.472308621170473, wsum = 0.4745349042800542, first = {0.0, 0.31062301589680874, 0.4982630089871392, 0.3477595646924843}},
  },
  zero_offsets = {out = {sum = 18.491186798506575, wsum = 2.3037847942116407, first = {0.21800653628552996, 0.12565410535726337, 0.13631789289677315, 0.14976736021868642}},
    gInput = {sum = -0.008559440709845711, wsum = 0.30737339077991976, first = {-0.02468390525894285, 0.120576088896801, 0.17215802834468835, 0.2135734023971264}},
    gOffset = {sum = -0.15948232929314043, wsum = -0.44177133366254984, first = {0.0, -0.021309713033247153, -0.03278297512764747, -0.04654060143700835}},
    gWeight = {sum = 0.0726562437227023, wsum = 1.9542851586518544, first = {0.17183861855243762, 1.3282816537852782, -2.5752233725880105, 3.333243127518928}},
    gBias = {3.4332428808135376, 5.09793514720792, -4.576735498634328},
    gMask = {sum = -4.193838613722797, wsum = 0.12840555272526574, first = {0.0, 0.0, 0.0, 0.0}},
  },
}

-- name, N, C, H, W, outC, kh, kw, stride, padding, dilation, groups, offset groups, mask, bias,
-- offset scale: the script's configurations
local CFGS = {
  { 'plain', 2, 4, 6, 5, 6, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1, 1, false, true, 1.7 },
  { 'stride2_og2_mask', 1, 4, 7, 6, 4, 3, 3, { 2, 2 }, { 1, 1 }, { 1, 1 }, 1, 2, true, true, 1.3 },
  { 'dil2_groups2_og2', 2, 4, 6, 7, 6, 3, 2, { 1, 1 }, { 2, 2 }, { 2, 2 }, 2, 2, true, true, 2.1 },
  { 'mixed_nobias', 1, 6, 5, 6, 4, 2, 3, { 2, 1 }, { 0, 1 }, { 1, 2 }, 2, 3, true, false, 0.9 },
  { 'zero_offsets', 1, 2, 4, 5, 3, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1, 1, true, true, 0.0 },
}

-- The script's tensors of one configuration, all requiring grad.
local function make(cfg)
  local _, N, Ci, H, W, Co, kh, kw, s, p, d, g, og, useMask, useBias, sc = unpack(cfg)
  local t = {}
  t.x = seq(0.31, 0.2, N, Ci, H, W):requiresGrad()
  t.w = (seq(0.37, 1.1, Co, Ci / g, kh, kw) * 0.5):requiresGrad()
  t.b = useBias and (seq(0.41, 0.3, Co) * 0.5):requiresGrad() or nil
  local oh = math.floor((H + 2 * p[1] - (d[1] * (kh - 1) + 1)) / s[1]) + 1
  local ow = math.floor((W + 2 * p[2] - (d[2] * (kw - 1) + 1)) / s[2]) + 1
  t.off = (seq(0.53, 0.9, N, 2 * og * kh * kw, oh, ow) * sc):requiresGrad()
  t.mask = useMask and seq(0.19, 0.5, N, og * kh * kw, oh, ow):requiresGrad() or nil
  t.opts = { stride = s, padding = p, dilation = d, mask = t.mask }
  return t
end

function tests.valuesAndGradientsAsTorchvision()
  for _, cfg in ipairs(CFGS) do
    local name, want = cfg[1], R[cfg[1]]
    local t = make(cfg)
    local y = nn.ops.deformConv2d(t.x, t.off, t.w, t.b, t.opts)
    torch.cmul(y, seq(0.23, 0.4, unpack(y:size():totable()))):sum():backward()
    C.checksum(name .. ' output', y:detach(), want.out, 1e-12)
    C.checksum(name .. ' input grad', t.x.grad, want.gInput, 1e-12)
    C.checksum(name .. ' offset grad', t.off.grad, want.gOffset, 1e-12)
    C.checksum(name .. ' weight grad', t.w.grad, want.gWeight, 1e-12)
    if want.gBias then tester:assertlt((t.b.grad - torch.DoubleTensor(want.gBias)):abs():max(), 1e-12, name .. ' bias grad') end
    if want.gMask then C.checksum(name .. ' mask grad', t.mask.grad, want.gMask, 1e-12) end
  end
end

function tests.zeroOffsetsArePlainConvolution()
  local F = nn.functional
  local x, w, b = seq(0.31, 0.2, 2, 4, 7, 6), seq(0.37, 1.1, 6, 2, 3, 2), seq(0.41, 0.3, 6)
  local off = torch.zeros(2, 2 * 2 * 6, 4, 3):double()  -- offset groups 2, stride 2, padding 1, dilation {1, 2}
  local y = nn.ops.deformConv2d(x, off, w, b, { stride = 2, padding = 1, dilation = { 1, 2 } })
  local ref = F.conv2d(x, w, b, 2, 1, { 1, 2 }, 2)
  tester:assertTableEq(y:size():totable(), ref:size():totable(), 'size')
  tester:assertlt((y - ref):abs():max(), 1e-12, 'zero offsets: conv2d')
  local ones = torch.ones(2, 12, 4, 3):double()
  local ym = nn.ops.deformConv2d(x, off, w, b, 2, 1, { 1, 2 }, ones)
  tester:assertlt((ym - ref):abs():max(), 1e-12, 'a mask of ones: conv2d (positional options)')
  -- float32 too
  local yf = nn.ops.deformConv2d(x:float(), off:float(), w:float(), b:float(), { stride = 2, padding = 1, dilation = { 1, 2 } })
  tester:assertlt((yf:double() - ref):abs():max(), 1e-5, 'float32')
end

function tests.gradcheck()
  -- fractional offsets (none on a whole coordinate, where the derivative is one-sided), some
  -- samples outside the input
  local x = seq(0.71, 0.1, 1, 2, 4, 4):requiresGrad()
  local off = (seq(0.47, 0.3, 1, 2 * 2 * 4, 5, 3) * 1.3 + 0.05):requiresGrad()
  local mask = seq(0.29, 0.8, 1, 2 * 4, 5, 3):requiresGrad()
  local w = seq(0.61, 0.4, 4, 1, 2, 2):requiresGrad()
  local b = seq(0.5, 0.2, 4):requiresGrad()
  C.gradcheck('modulated, groups 2, offset groups 2', function(x_, o_, m_, w_, b_)
    return nn.ops.deformConv2d(x_, o_, w_, b_, { padding = 1, stride = { 1, 2 }, mask = m_ })
  end, { x, off, mask, w, b })
  local off1 = (seq(0.47, 0.3, 1, 2 * 4, 6, 6) * 0.8 + 0.05):requiresGrad()
  C.gradcheck('plain, dilation 2', function(x_, o_, w_)
    return nn.ops.deformConv2d(x_, o_, w_, nil, { padding = 2, dilation = 2 })
  end, { x, off1, seq(0.61, 0.4, 2, 2, 2, 2):requiresGrad() })
end

function tests.samplesFarOutside()
  local x, w = seq(0.31, 0.2, 1, 1, 3, 3), seq(0.37, 1.1, 2, 1, 1, 1)
  local b = torch.DoubleTensor({ 0.5, -0.25 })
  local off = torch.DoubleTensor(1, 2, 3, 3):fill(math.huge):requiresGrad()
  local y = nn.ops.deformConv2d(x, off, w, b)
  tester:assertlt((y:detach() - b:view(1, 2, 1, 1):expandAs(y)):abs():max(), 1e-15, 'infinite offset: 0 (the bias), as torchvision')
  y:sum():backward()
  tester:asserteq(off.grad:abs():max(), 0, 'and no gradient (not NaN)')
  local nan = nn.ops.deformConv2d(x, torch.DoubleTensor(1, 2, 3, 3):fill(0 / 0), w, b)
  tester:assert(nan[1][1][1][1] ~= nan[1][1][1][1], 'a NaN offset gives NaN')
  -- exactly on the border: the sample at -1 or H is 0
  local yb = nn.ops.deformConv2d(x, torch.DoubleTensor(1, 2, 3, 3):fill(-1), torch.ones(1, 1, 1, 1):double())
  tester:assertlt((yb[1][1][1] - 0):abs():max(), 1e-15, 'first row samples y = -1: 0')
  local empty = nn.ops.deformConv2d(torch.rand(0, 2, 5, 5):double(), torch.zeros(0, 18, 3, 3):double(), torch.rand(4, 2, 3, 3):double())
  tester:assertTableEq(empty:size():totable(), { 0, 4, 3, 3 }, 'an empty batch')
end

function tests.module()
  local m = nn.ops.DeformConv2d(4, 6, { 3, 2 }, { stride = 1, padding = 2, dilation = 2, groups = 2 }):double()
  local keys = {}
  for k, v in pairs(m:stateDict()) do keys[#keys + 1] = k .. ':' .. table.concat(v:size():totable(), 'x') end
  table.sort(keys)
  tester:assertTableEq(keys, { 'bias:6', 'weight:6x2x3x2' }, "torchvision's state-dict keys")
  local bound = 1 / math.sqrt(2 * 3 * 2)
  tester:assert(m.weight:abs():max() <= bound and m.bias:abs():max() <= bound, 'init in U(-1/sqrt(fanIn), 1/sqrt(fanIn))')
  local t = make(CFGS[3])
  torch.noGrad(function() m.weight:copy(t.w) m.bias:copy(t.b) end)
  local x, off, mask = t.x:detach(), t.off:detach(), t.mask:detach()
  local y = m:forward({ x, off, mask })
  C.checksum('module output', y:detach(), R.dil2_groups2_og2.out, 1e-12)
  -- Torch7-style backward: gradInput is {input, offset, mask}, gradWeight/gradBias accumulate
  local go = seq(0.23, 0.4, unpack(y:size():totable()))
  m:zeroGradParameters()
  local gi = m:backward({ x, off, mask }, go)
  C.checksum('module gradInput[1]', gi[1], R.dil2_groups2_og2.gInput, 1e-12)
  C.checksum('module gradInput[2]', gi[2], R.dil2_groups2_og2.gOffset, 1e-12)
  C.checksum('module gradInput[3]', gi[3], R.dil2_groups2_og2.gMask, 1e-12)
  C.checksum('module gradWeight', m.gradWeight, R.dil2_groups2_og2.gWeight, 1e-12)
  tester:assertlt((m.gradBias - torch.DoubleTensor(R.dil2_groups2_og2.gBias)):abs():max(), 1e-12, 'module gradBias')
  -- no mask: {input, offset}
  local m2 = nn.ops.DeformConv2d(4, 6, 3, { padding = 1, bias = false }):double()
  tester:assert(m2.bias == nil, 'bias = false')
  local y2 = m2:forward({ seq(0.31, 0.2, 2, 4, 5, 5), torch.zeros(2, 18, 5, 5):double() })
  tester:assertlt((y2 - nn.functional.conv2d(seq(0.31, 0.2, 2, 4, 5, 5), m2.weight, nil, 1, 1)):abs():max(), 1e-12, 'no mask')
  tester:asserteq(tostring(m2), 'nn.ops.DeformConv2d(4, 6, kernelSize={3, 3}, stride={1, 1}, padding={1, 1}, dilation={1, 1}, groups=1, bias=false)')
  fails('module input', '[nn.ops.DeformConv2d] expected {input, offset} or {input, offset, mask}', function() return m2:forward(x) end)
  fails('module groups', '[nn.ops.DeformConv2d] inChannels (4) and outChannels (6) must be divisible by groups (4)', nn.ops.DeformConv2d, 4, 6, 3, { groups = 4 })
end

function tests.errors()
  local x, w = torch.rand(1, 4, 5, 5):double(), torch.rand(2, 4, 3, 3):double()
  local off = torch.zeros(1, 18, 3, 3):double()
  local f = nn.ops.deformConv2d
  fails('input', '[nn.ops.deformConv2d] expected input (a tensor), got nil', f, nil, off, w)
  fails('input dims', '[nn.ops.deformConv2d] input must be N x C x H x W, got size 4x5x5', f, x[1], off, w)
  fails('offset channels', '[nn.ops.deformConv2d] offset must be 1 x (2 * offsetGroups * 9) x 3 x 3, got size 1x17x3x3', f, x, torch.zeros(1, 17, 3, 3):double(), w)
  fails('offset size', 'got size 1x18x4x4', f, x, torch.zeros(1, 18, 4, 4):double(), w)
  fails('offset groups', '[nn.ops.deformConv2d] the input channels (4) must be a multiple of the offset groups (3)', f, x, torch.zeros(1, 54, 3, 3):double(), w)
  fails('weight groups', '[nn.ops.deformConv2d] the input channels (4) must be a multiple of weight:size(2) (3)', f, x, off, torch.rand(2, 3, 3, 3):double())
  fails('mask', '[nn.ops.deformConv2d] mask must be 1 x 9 x 3 x 3', f, x, off, w, nil, { mask = torch.ones(1, 8, 3, 3):double() })
  fails('bias', '[nn.ops.deformConv2d] bias must have 2 elements', f, x, off, w, torch.zeros(3):double())
  fails('types', '[nn.ops.deformConv2d] input (torch.DoubleTensor on device -1) and offset (torch.FloatTensor', f, x, off:float(), w)
  fails('option', '[nn.ops.deformConv2d] unknown option strides', f, x, off, w, nil, { strides = 2 })
  fails('too small', '[nn.ops.deformConv2d] the output would be 0x0', f, torch.rand(1, 4, 2, 2):double(), off, w)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
    return
  end
  for _, k in ipairs({ 2, 3 }) do  -- one weight group, two
    local name, want = CFGS[k][1], R[CFGS[k][1]]
    local t = make(CFGS[k])
    local function dev(v) return v:detach():float():cuda():requiresGrad() end
    local x, off, w, b, mask = dev(t.x), dev(t.off), dev(t.w), dev(t.b), dev(t.mask)
    local y = nn.ops.deformConv2d(x, off, w, b, { stride = t.opts.stride, padding = t.opts.padding,
      dilation = t.opts.dilation, mask = mask })
    torch.cmul(y, seq(0.23, 0.4, unpack(y:size():totable())):float():cuda()):sum():backward()
    C.checksum(name .. ' on CUDA', y:detach():double(), want.out, 1e-3)
    C.checksum(name .. ' input grad on CUDA', x.grad:double(), want.gInput, 1e-3)
    C.checksum(name .. ' offset grad on CUDA', off.grad:double(), want.gOffset, 1e-3)
    C.checksum(name .. ' weight grad on CUDA', w.grad:double(), want.gWeight, 1e-3)
    C.checksum(name .. ' mask grad on CUDA', mask.grad:double(), want.gMask, 1e-3)
  end
  fails('devices', 'must have the same type and device', nn.ops.deformConv2d, torch.rand(1, 1, 3, 3):cuda(),
    torch.zeros(1, 2, 3, 3), torch.ones(1, 1, 1, 1):cuda())
end

tester:add(tests)
tester:run()
