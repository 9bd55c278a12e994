-- nn.functional's remaining torch.nn.functional 1.13 names: the in-place activations (relu_...),
-- the *WithIndices pools, maxUnpool1d/3d, bilinear, convTbc, multilabelMarginLoss, the upsample
-- aliases and nativeChannelShuffle, all built of recorded torch ops (differentiable, any device).
-- The rest are in functional_more2_*.lua: embedding's options (_embed), interpolate's modes and
-- circular padding (_interp), fractional max pooling (_pool), gridSample's bicubic mode (_grid),
-- conv 'same' padding (_conv), and the nn.init / nn.utils names (_utils).
require 'nn.functional_act'
require 'nn.functional_extra'
require 'nn.functional_fold'
require 'nn.functional_conv'
require 'nn.functional_pool'
require 'nn.functional_norm'
require 'nn.functional_more'
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail
local function op(name) return 'nn.functional.' .. name end

-- ---- in-place activations ------------------------------------------------------------------------

-- Note [In-place functional activations]: F.f_(x, ...) computes F.f(x, ...) (of a recorded clone
-- of x when x has history) and copies it into x, which autograd records as an in-place op (the
-- gradient flows through the copy, and saved uses of the old x are caught by the version
-- counter). As in PyTorch, a leaf that requires grad refuses, and so does a view of one (Tocha's
-- engine lets Torch7 code update slices of parameters in place, Note [In-place updates of leaves]
-- in core/autograd/record.cpp, so the copy alone would change the leaf's data unrecorded); a view
-- of a tensor with history refuses too (the engine cannot follow the write into the viewed
-- tensor). Grad mode off, both may change, as in PyTorch.
--
-- Note [In-place activations of integers]: PyTorch 1.13 runs relu_, relu6, hardtanh_ and
-- threshold_ (and their inplace flags) on integer tensors, and refuses the others (elu_,
-- leaky_relu_, silu, the dropouts when they change anything...). Those four defer the dtype check
-- to F.f (which may refuse integers itself); the others refuse non-floating tensors here. A
-- result of another dtype than x's is refused rather than truncated into x.
local int_ok = { relu = true, relu_ = true, relu6 = true, hardtanh = true, hardtanh_ = true,
  threshold = true, threshold_ = true }
local check_dirty = require('torch.lib').C.tocha_autograd_check_dirty
local describe = require('torch.types').describe
local function inplace(name, f, x, ...)
  if int_ok[name] then A.tensor(op(name), x) else A.float(op(name), x) end
  local tracked = torch.isGradEnabled() and x:needsGrad()
  if tracked then
    if x:isLeaf() then
      fail(op(name), 'a leaf tensor that requires grad cannot be changed in place')
    end
    -- a non-leaf that requires grad fails this check exactly when it is a view (the C check of
    -- ctx:markDirty, which refuses leaves and views)
    if check_dirty(x.p, op(name)) ~= 0 then
      fail(op(name), 'x (%s) is a view of a tensor that requires grad (a leaf, or a tensor with history) '
        .. 'and cannot be changed in place; apply it out of place or to a clone', describe(x))
    end
  end
  -- with history, f runs on a recorded clone: ops of f that save their input (clamp in elu_,
  -- selu_, hardtanh_) then keep the clone, which the copy below leaves intact (on x itself the
  -- copy was caught by the version counter at backward)
  local y = f(tracked and x:clone() or x, ...)
  if y.p.dtype ~= x.p.dtype then
    fail(op(name), 'the result (%s) cannot be written into x (%s)', torch.typename(y), torch.typename(x))
  end
  return x:copy(y)
end
A.inplace_helper = inplace  -- the inplace flags of F.relu, F.dropout... (Note [Inplace flags], functional_args.lua)

--- nn.functional.relu_(x): relu in place; returns x.
--- Example: nn.functional.relu_(torch.randn(4))
function F.relu_(x) return inplace('relu_', F.relu, x) end
--- nn.functional.elu_(x [, alpha = 1]): elu in place; returns x.
--- Example: nn.functional.elu_(torch.randn(4), 0.5)
function F.elu_(x, alpha) return inplace('elu_', F.elu, x, alpha) end
--- nn.functional.celu_(x [, alpha = 1]): celu in place; returns x.
--- Example: nn.functional.celu_(torch.randn(4), 0.5)
function F.celu_(x, alpha) return inplace('celu_', F.celu, x, alpha) end
--- nn.functional.selu_(x): selu in place; returns x.
--- Example: nn.functional.selu_(torch.randn(4))
function F.selu_(x) return inplace('selu_', F.selu, x) end
--- nn.functional.leakyRelu_(x [, slope = 0.01]): leakyRelu in place; returns x.
--- Example: nn.functional.leakyRelu_(torch.randn(4), 0.2)
function F.leakyRelu_(x, slope) return inplace('leakyRelu_', F.leakyRelu, x, slope) end
--- nn.functional.hardtanh_(x [, minVal = -1] [, maxVal = 1]): hardtanh in place; returns x.
--- Example: nn.functional.hardtanh_(torch.randn(4), -0.5, 0.5)
function F.hardtanh_(x, lo, hi) return inplace('hardtanh_', F.hardtanh, x, lo, hi) end
--- nn.functional.rrelu_(x [, lower = 1/8] [, upper = 1/3] [, training = false]): rrelu in place.
--- Example: nn.functional.rrelu_(torch.randn(4))
function F.rrelu_(x, lower, upper, training) return inplace('rrelu_', F.rrelu, x, lower, upper, training) end
--- nn.functional.threshold_(x, threshold, value): threshold in place; returns x.
--- Example: nn.functional.threshold_(torch.randn(4), 0.1, 20)
function F.threshold_(x, th, value) return inplace('threshold_', F.threshold, x, th, value) end

-- ---- pools with indices, unpooling ---------------------------------------------------------------

--- nn.functional.maxPool1dWithIndices(x, kernelSize [, stride] [, padding] [, dilation] [, ceilMode]):
--- maxPool1d's output and its 1-based indices (two results).
--- Example: local y, i = nn.functional.maxPool1dWithIndices(torch.randn(1, 2, 8), 2)
function F.maxPool1dWithIndices(x, k, s, p, d, c) return F.maxPool1d(x, k, s, p, d, c, true) end
--- nn.functional.maxPool2dWithIndices(x, kernelSize [, stride] [, padding] [, dilation] [, ceilMode]):
--- maxPool2d's output and its 1-based flat indices (two results).
--- Example: local y, i = nn.functional.maxPool2dWithIndices(torch.randn(1, 2, 4, 4), 2)
function F.maxPool2dWithIndices(x, k, s, p, d, c) return F.maxPool2d(x, k, s, p, d, c, true) end

-- {t, h, w} from a number or a triple, each an integer >= min.
local function triple(name, v, what, default, min)
  if v == nil then v = default end
  local t = type(v) == 'table' and v or { v, v, v }
  if #t ~= 3 then fail(name, '%s must be an integer or 3 of them, got %d values', what, #t) end
  for i = 1, 3 do
    if type(t[i]) ~= 'number' or t[i] % 1 ~= 0 or t[i] < min then
      fail(name, '%s must be integers >= %d, got %s', what, min, tostring(t[i]))
    end
  end
  return t
end

--- nn.functional.maxPool3dWithIndices(x, kernelSize [, stride = kernelSize] [, padding = 0]
--- [, dilation = 1] [, ceilMode = false]): nn.functional.maxPool3d's output and the 1-based flat
--- indices in each D*H*W volume.
--- Example: local y, i = nn.functional.maxPool3dWithIndices(torch.randn(1, 1, 4, 4, 4), 2)
function F.maxPool3dWithIndices(x, kernelSize, stride, padding, dilation, ceilMode)
  local name = op('maxPool3dWithIndices')
  A.float(name, x)
  local k = triple(name, kernelSize, 'kernelSize', nil, 1)
  local st = triple(name, stride, 'stride', k, 1)
  local p = triple(name, padding, 'padding', 0, 0)
  local d = triple(name, dilation, 'dilation', 1, 1)
  if ceilMode ~= nil and type(ceilMode) ~= 'boolean' then
    fail(name, 'ceilMode must be a boolean, got %s', tostring(ceilMode))
  end
  if x:dim() ~= 4 and x:dim() ~= 5 then
    fail(name, 'expected a C x D x H x W or N x C x D x H x W tensor, got size %s', A.shape(x))
  end
  if d[1] == 1 and d[2] == 1 and d[3] == 1 then return F.maxPool3d(x, k, st, p, 1, ceilMode == true) end
  local m = nn.VolumetricDilatedMaxPooling(k[1], k[3], k[2], st[1], st[3], st[2], p[1], p[3], p[2], d[1], d[3], d[2])
  m = m:type(x:type())
  if ceilMode then m:ceil() end
  return m:forward(x), m.indices
end

--- nn.functional.adaptiveMaxPool1dWithIndices(x, outputSize): adaptiveMaxPool1d's output and indices.
--- Example: local y, i = nn.functional.adaptiveMaxPool1dWithIndices(torch.randn(1, 2, 10), 3)
function F.adaptiveMaxPool1dWithIndices(x, o) return F.adaptiveMaxPool1d(x, o, true) end
--- nn.functional.adaptiveMaxPool2dWithIndices(x, outputSize): adaptiveMaxPool2d's output and indices.
--- Example: local y, i = nn.functional.adaptiveMaxPool2dWithIndices(torch.randn(1, 2, 6, 6), 3)
function F.adaptiveMaxPool2dWithIndices(x, o)
  local y, i = F.adaptiveMaxPool2d(x, o)
  return y, i
end
--- nn.functional.adaptiveMaxPool3dWithIndices(x, outputSize): adaptiveMaxPool3d's output and indices.
--- Example: local y, i = nn.functional.adaptiveMaxPool3dWithIndices(torch.randn(1, 2, 4, 4, 4), 2)
function F.adaptiveMaxPool3dWithIndices(x, o) return F.adaptiveMaxPool3d(x, o, true) end

-- The unpooled size of each of the last n dims: PyTorch's (in - 1) * stride - 2 * pad + kernel, or
-- outputSize (the last n of it when it also lists the leading dims).
local function unpool_size(name, x, n, k, s, p, outputSize)
  local sp = {}
  for i = 1, n do sp[i] = x:size(x:dim() - n + i) end
  local r = {}
  for i = 1, n do r[i] = (sp[i] - 1) * s[i] - 2 * p[i] + k[i] end
  if outputSize ~= nil then
    local o = type(outputSize) == 'number' and { outputSize } or outputSize
    if torch.typename(o) == 'torch.LongStorage' then o = o:totable() end
    if type(o) ~= 'table' or (#o ~= n and #o ~= n + 1 and #o ~= n + 2) then
      fail(name, 'outputSize must list %d sizes', n)
    end
    for i = 1, n do
      local v = o[#o - n + i]
      -- PyTorch's range: strictly within one stride of the default size
      if type(v) ~= 'number' or v % 1 ~= 0 or v <= r[i] - s[i] or v >= r[i] + s[i] then
        fail(name, 'invalid outputSize %s in dim %d (must be between %d and %d, exclusive)', tostring(v), i,
          r[i] - s[i], r[i] + s[i])
      end
      r[i] = v
    end
  end
  return r
end

local function unpool(name, n, x, indices, kernelSize, stride, padding, outputSize)
  A.float(name, x, 'an input')
  A.long(name, indices, 'indices')
  if x:dim() ~= n + 1 and x:dim() ~= n + 2 then
    fail(name, 'expected a %d-D or %d-D input, got size %s', n + 1, n + 2, A.shape(x))
  end
  if not indices:isSameSizeAs(x) then
    fail(name, 'indices of size %s differ from the input\'s size %s', A.shape(indices), A.shape(x))
  end
  local one = function(v, what, default, min)
    if v == nil then v = default end
    local t = type(v) == 'table' and v or {}
    if type(v) == 'number' then for i = 1, n do t[i] = v end end
    if #t ~= n then fail(name, '%s must be a number or %d numbers', what, n) end
    for i = 1, n do
      if type(t[i]) ~= 'number' or t[i] % 1 ~= 0 or t[i] < min then fail(name, '%s must be integers >= %d', what, min) end
    end
    return t
  end
  local k = one(kernelSize, 'kernelSize', nil, 1)
  local s = one(stride, 'stride', k, 1)
  local p = one(padding, 'padding', 0, 0)
  local o = unpool_size(name, x, n, k, s, p, outputSize)
  local vol, inVol = 1, 1
  for i = 1, n do
    if o[i] < 1 then fail(name, 'the output size must be positive, got %s', table.concat(o, 'x')) end
    vol, inVol = vol * o[i], inVol * x:size(x:dim() - n + i)
  end
  local planes = x:nElement() / math.max(inVol, 1)
  local idx = indices:reshape(planes, inVol)
  if inVol > 0 and planes > 0 and (idx:min() < 1 or idx:max() > vol) then
    fail(name, 'indices span [%d, %d], outside the %d positions of an output plane', idx:min(), idx:max(), vol)
  end
  local size = x:size():totable()
  for i = 1, n do size[#size - n + i] = o[i] end
  local flat = x.new(planes, vol):zero()
  if inVol > 0 and planes > 0 then flat:scatter(2, idx, x:reshape(planes, inVol)) end
  return flat:view(torch.LongStorage(size))
end

--- nn.functional.maxUnpool1d(x, indices, kernelSize [, stride = kernelSize] [, padding = 0]
--- [, outputSize]): the inverse of maxPool1d: zeros of length (L - 1) * stride - 2 * padding +
--- kernelSize (or outputSize) with x's values at the 1-based indices.
--- Example: local y, i = nn.functional.maxPool1dWithIndices(torch.randn(1, 1, 6), 2); nn.functional.maxUnpool1d(y, i, 2)
function F.maxUnpool1d(x, indices, kernelSize, stride, padding, outputSize)
  return unpool(op('maxUnpool1d'), 1, x, indices, kernelSize, stride, padding, outputSize)
end
--- nn.functional.maxUnpool3d(x, indices, kernelSize [, stride = kernelSize] [, padding = 0]
--- [, outputSize]): the inverse of a 3-D max pooling (1-based flat indices in each D*H*W volume).
--- Example: local y, i = nn.functional.maxPool3dWithIndices(torch.randn(1, 1, 4, 4, 4), 2); nn.functional.maxUnpool3d(y, i, 2)
function F.maxUnpool3d(x, indices, kernelSize, stride, padding, outputSize)
  return unpool(op('maxUnpool3d'), 3, x, indices, kernelSize, stride, padding, outputSize)
end

-- ---- layers ----------------------------------------------------------------------------------------

--- nn.functional.bilinear(x1, x2, weight [, bias]): y[..., o] = sum_ij x1[..., i] weight[o][i][j]
--- x2[..., j] + bias[o]; x1 is ... x in1, x2 ... x in2, weight out x in1 x in2.
--- Example: nn.functional.bilinear(torch.randn(5, 3), torch.randn(5, 4), torch.randn(2, 3, 4))
function F.bilinear(x1, x2, w, b)
  local name = op('bilinear')
  A.float(name, x1, 'input1')
  A.float(name, x2, 'input2')
  A.float(name, w, 'a weight')
  if w:dim() ~= 3 or x1:dim() < 1 or x2:dim() ~= x1:dim() or x1:size(x1:dim()) ~= w:size(2)
     or x2:size(x2:dim()) ~= w:size(3) then
    fail(name, 'inputs of sizes %s and %s do not match a weight of size %s (out x in1 x in2)', A.shape(x1), A.shape(x2),
      A.shape(w))
  end
  for d = 1, x1:dim() - 1 do
    if x1:size(d) ~= x2:size(d) then
      fail(name, 'inputs of sizes %s and %s differ in their leading dims', A.shape(x1), A.shape(x2))
    end
  end
  local O, I1, I2 = w:size(1), w:size(2), w:size(3)
  local m = x1:nElement() / I1
  local t = torch.matmul(x1:reshape(m, I1), w:permute(2, 1, 3):reshape(I1, O * I2)):view(m, O, I2)
  local y = torch.sum(torch.cmul(t, x2:reshape(m, 1, I2):expand(m, O, I2)), 3):view(m, O)
  if b ~= nil then
    A.float(name, b, 'a bias')
    if b:nElement() ~= O then fail(name, 'bias has %d elements, expected %d', b:nElement(), O) end
    y = torch.add(y, b:view(1, O):expand(m, O))
  end
  local size = x1:size():totable()
  size[#size] = O
  return y:view(torch.LongStorage(size))
end

--- nn.functional.convTbc(input, weight, bias [, pad = 0]): 1-D convolution in time x batch x channel
--- layout: input T x B x Cin, weight K x Cin x Cout, bias Cout; output (T + 2 pad - K + 1) x B x Cout.
--- Example: nn.functional.convTbc(torch.randn(6, 2, 3), torch.randn(3, 3, 4), torch.zeros(4), 1)
function F.convTbc(x, w, b, pad)
  local name = op('convTbc')
  A.float(name, x, 'an input')
  A.float(name, w, 'a weight')
  A.float(name, b, 'a bias')
  pad = A.int(name, pad, 'pad', 0)
  if x:dim() ~= 3 or w:dim() ~= 3 or b:dim() ~= 1 or w:size(2) ~= x:size(3) or b:size(1) ~= w:size(3) then
    fail(name, 'expected input T x B x Cin, weight K x Cin x Cout and bias Cout, got %s, %s and %s', A.shape(x),
      A.shape(w), A.shape(b))
  end
  if pad < 0 then fail(name, 'pad must be non-negative, got %d', pad) end
  local y = torch.conv1d(x:permute(2, 3, 1), w:permute(3, 2, 1), b, 1, pad)
  return y:permute(3, 1, 2)
end

-- PyTorch's native_channel_shuffle: channel_shuffle without autograd's composite; the same values.
F.nativeChannelShuffle = F.channelShuffle

-- ---- upsample aliases ------------------------------------------------------------------------------

--- nn.functional.upsample(x [, size] [, scaleFactor] [, mode = 'nearest'] [, alignCorners]):
--- PyTorch's deprecated alias of interpolate with positional arguments (a table as the 2nd argument
--- is interpolate's options).
--- Example: nn.functional.upsample(torch.randn(1, 1, 2, 2), 4)
function F.upsample(x, size, scaleFactor, mode, alignCorners)
  if type(size) == 'table' and (size.size or size.scaleFactor or size.mode) then return F.interpolate(x, size) end
  return F.interpolate(x, { size = size, scaleFactor = scaleFactor, mode = mode, alignCorners = alignCorners })
end
--- nn.functional.upsampleNearest(x [, size] [, scaleFactor]): interpolate in 'nearest' mode.
--- Example: nn.functional.upsampleNearest(torch.randn(1, 1, 2, 2), nil, 2)
function F.upsampleNearest(x, size, scaleFactor)
  return F.interpolate(x, { size = size, scaleFactor = scaleFactor, mode = 'nearest' })
end
--- nn.functional.upsampleBilinear(x [, size] [, scaleFactor]): interpolate in 'bilinear' mode with
--- alignCorners = true (as PyTorch's upsample_bilinear).
--- Example: nn.functional.upsampleBilinear(torch.randn(1, 1, 2, 2), {3, 5})
function F.upsampleBilinear(x, size, scaleFactor)
  return F.interpolate(x, { size = size, scaleFactor = scaleFactor, mode = 'bilinear', alignCorners = true })
end

-- ---- multilabel margin loss ----------------------------------------------------------------------

--- nn.functional.multilabelMarginLoss(x, target [, {reduction = 'mean'}]): for each sample (a row of
--- an N x C input, or a C vector), sum over its target classes j and non-target classes i of
--- max(0, 1 - (x[j] - x[i])), divided by C. target is a LongTensor of x's size listing 1-based
--- classes, ended by the first 0 (PyTorch's -1), as nn.MultiLabelMarginCriterion.
--- Example: nn.functional.multilabelMarginLoss(torch.randn(2, 4), torch.LongTensor({{4, 1, 0, 0}, {2, 0, 0, 0}}))
function F.multilabelMarginLoss(x, t, o)
  local name = op('multilabelMarginLoss')
  local _, r = A.loss_options(name, o)
  A.float(name, x, 'an input')
  A.long(name, t, 'target')
  if (x:dim() ~= 1 and x:dim() ~= 2) or not t:isSameSizeAs(x) then
    fail(name, 'expected a C or N x C input and a target of its size, got %s and %s', A.shape(x), A.shape(t))
  end
  local vec = x:dim() == 1
  local X, T = vec and x:view(1, -1) or x, vec and t:view(1, -1) or t
  local N, C = X:size(1), X:size(2)
  if T:nElement() > 0 and (T:min() < 0 or T:max() > C) then
    fail(name, 'target classes must be in [0, %d] (0 ends the list), got [%d, %d]', C, T:min(), T:max())
  end
  -- the listed classes up to the first 0, counted (a class listed twice counts twice, as PyTorch)
  local live = torch.eq(torch.cumsum(torch.eq(T, 0):to('torch.LongTensor'), 2), 0):to('torch.LongTensor')
  local cls = torch.cmul(T, live):add(torch.eq(live, 0):to('torch.LongTensor'):mul(C + 1))
  local count = T.new(N, C + 1):zero():scatterAdd(2, cls, T.new(N, C):fill(1)):narrow(2, 1, C)
  count = count:typeAs(X)
  local isTarget = torch.gt(count, 0):typeAs(X)
  -- pairs (j listed, i not a target): relu(1 - x_j + x_i), weight count_j * (1 - isTarget_i)
  local diff = torch.add(torch.csub(X:view(N, 1, C):expand(N, C, C), X:view(N, C, 1):expand(N, C, C)), 1)
  local wgt = torch.cmul(count:view(N, C, 1):expand(N, C, C), torch.mul(isTarget, -1):add(1):view(N, 1, C):expand(N, C, C))
  local l = torch.div(torch.sum(torch.cmul(torch.relu(diff), wgt):view(N, C * C), 2):view(N), C)
  if vec and r == 'none' then return l:view(torch.LongStorage({})) end  -- one sample: 0-dim, as PyTorch
  return A.reduce(l, r)
end

require 'nn.functional_more2_embed'
require 'nn.functional_more2_interp'
require 'nn.functional_more2_pool'
return F
