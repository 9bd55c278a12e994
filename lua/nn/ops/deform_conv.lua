-- nn.ops.deformConv2d and nn.ops.DeformConv2d (torchvision.ops.deform_conv2d, DeformConv2d):
-- deformable convolution (DCN) and its modulated form (DCNv2, with a mask), as a composite of
-- recorded tensor ops, so autograd differentiates it in input, offset, mask, weight and bias, on
-- every device those ops run on.
--
-- Note [Deformable convolution as sampled columns]: torchvision's kernel builds the im2col
-- columns of a convolution, each read at its kernel tap's position moved by an offset, with
-- bilinear interpolation (zero outside the image), times the mask, and multiplies them by the
-- weight. Here the four corners of all samples are read with one index (row gather) from the
-- input laid out as (N * offsetGroups * H * W) x channelsPerGroup, so an index costs one long per
-- sample and not one per sample and channel. The corner weights (products of 1 - l and l along y
-- and x, zero for corners outside the image, times the mask) are tensors of offsets, so the
-- gradients of offset and mask come from autograd too, the floor giving torchvision's one-sided
-- derivative at whole coordinates; a bmm of 1 x 4 weights by 4 x channels corners sums them (one
-- index and one bmm where four indexes, cmuls and adds over the columns were 3x slower). The
-- samples are ordered (image, position, group, tap), so with one weight group the columns meet
-- the weight, reordered to match, in one matmul without a copy; with several, they are permuted
-- to channel-major order and multiplied per group.
--
-- Note [Offsets are positions]: offsets are displacements in pixels, torchvision's: channel
-- 2 * (g * kh * kw + k) (0-based) of offset holds the y displacement of kernel tap k (row-major
-- over kh x kw) of offset group g, the next channel its x displacement. Nothing here is an
-- index, so nothing shifts by one for Tocha.
--
-- Note [Samples far outside]: a sample at y <= -1, y >= H (or likewise in x) is 0 in torchvision
-- and has no gradient. Coordinates are clamped to [-2, H + 1] first: the same value and zero
-- gradient there, and an infinite offset gives 0 (torchvision's) rather than inf * 0 = NaN. A NaN
-- offset gives NaN (torchvision reads an undefined index).
local U = require 'nn.ops.util'
local P = require 'nn.pytorch_names_args'
local ops = nn.ops

local OP = 'nn.ops.deformConv2d'

-- 0..n-1 in like's type, viewed with n at dim d of an nd-dim shape.
local function range(like, n, d, nd)
  local shape = {}
  for i = 1, nd do shape[i] = i == d and n or 1 end
  if n == 0 then return like.new(unpack(shape)) end
  return like.new(n):fill(1):cumsum(1):add(-1):view(unpack(shape))
end

local function check_same(op, a, b, an, bn)
  U.tensor(op, b, bn)
  U.same(op, a, b, an, bn)
end

-- Base positions (before offsets) of the taps along one axis: 1 x 1 x K x L (K = kh * kw taps,
-- L = outH * outW) holding o * stride - pad + i * dilation, where o is the output's row (axis 1)
-- or column (axis 2) and i the tap's.
local function base(like, axis, k, s, p, d, outH, outW)
  local kh, kw = k[1], k[2]
  local tap = axis == 1 and range(like, kh, 1, 4) or range(like, kw, 2, 4)   -- kh x 1 or 1 x kw
  local out = axis == 1 and range(like, outH, 3, 4) or range(like, outW, 4, 4)
  local pos = tap * d[axis] + (out * s[axis] - p[axis])
  return pos:expand(kh, kw, outH, outW):reshape(1, 1, kh * kw, outH * outW)
end

-- Bilinear samples (zero outside) of the input's channel groups at positions y, x (N x G x K x L),
-- times mask (N x G x K x L or nil): N x L x G x K x Cg (Note [Deformable convolution as sampled
-- columns]).
local function sample(input, G, y, x, mask)
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local Cg, K, L = C / G, y:size(3), y:size(4)
  local M = N * L * G * K
  local rows = input:reshape(N, G, Cg, H * W):transpose(3, 4):reshape(N * G * H * W, Cg)
  y, x = torch.clamp(y, -2, H + 1), torch.clamp(x, -2, W + 1)  -- Note [Samples far outside]
  local yd, xd = y:detach(), x:detach()
  local y0 = torch.floor(yd):maskedFill(torch.ne(yd, yd), -2)
  local x0 = torch.floor(xd):maskedFill(torch.ne(xd, xd), -2)
  local ly, lx = y - y0, x - x0
  local wy, wx = { 1 - ly, ly }, { 1 - lx, lx }
  -- row numbers in int64: float32 counts exactly only up to 2^24 rows
  local yl, xl = y0:long(), x0:long()
  -- the first row of each (image, group) block of rows
  local first = (range(yl, N, 1, 4) * G + range(yl, G, 2, 4)) * (H * W)
  local at, ws = {}, {}
  for a = 0, 1 do
    local yc = yl + a
    local vy = torch.cmul(yc:ge(0), yc:le(H - 1))
    for b = 0, 1 do
      local xc = xl + b
      local valid = torch.cmul(vy, torch.cmul(xc:ge(0), xc:le(W - 1))):typeAs(yd)
      at[#at + 1] = torch.clamp(yc, 0, H - 1) * W + torch.clamp(xc, 0, W - 1) + first
      ws[#ws + 1] = torch.cmul(torch.cmul(wy[a + 1], wx[b + 1]), valid)
    end
  end
  -- samples ordered (image, output position, group, tap), their 4 corners last
  local idx = torch.stack(at, 5):permute(1, 4, 2, 3, 5):reshape(M * 4):add(1)
  local w = torch.stack(ws, 5)
  if mask ~= nil then w = torch.cmul(w, mask:reshape(N, G, K, L, 1)) end
  w = w:permute(1, 4, 2, 3, 5):reshape(M, 1, 4)
  -- one index for all corners, and their weighted sum as M products of 1 x 4 by 4 x Cg
  return torch.bmm(w, rows:index(1, idx):view(M, 4, Cg)):view(N, L, G, K, Cg)
end

-- Sizes checked, the geometry of one call: {N, C, H, W, outC, groups, G, kh, kw, outH, outW}.
local function geometry(op, input, offset, weight, bias, mask, s, p, d)
  U.tensor(op, input, 'input')
  if input:dim() ~= 4 then U.fail(op, 'input must be N x C x H x W, got size %s', U.shape(input)) end
  if not U.isFloat(input) then U.fail(op, 'input must be floating point, got %s', input:type()) end
  check_same(op, input, offset, 'input', 'offset')
  check_same(op, input, weight, 'input', 'weight')
  if bias ~= nil then check_same(op, input, bias, 'input', 'bias') end
  if mask ~= nil then check_same(op, input, mask, 'input', 'mask') end
  if weight:dim() ~= 4 then U.fail(op, 'weight must be outC x inC/groups x kh x kw, got size %s', U.shape(weight)) end
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local outC, kh, kw = weight:size(1), weight:size(3), weight:size(4)
  local g = {}
  if weight:size(2) == 0 or C % weight:size(2) ~= 0 then
    U.fail(op, 'the input channels (%d) must be a multiple of weight:size(2) (%d)', C, weight:size(2))
  end
  local groups = C / weight:size(2)
  if outC % groups ~= 0 then
    U.fail(op, 'the output channels (weight:size(1) = %d) must be a multiple of the groups (%d)', outC, groups)
  end
  local outH = math.floor((H + 2 * p[1] - (d[1] * (kh - 1) + 1)) / s[1]) + 1
  local outW = math.floor((W + 2 * p[2] - (d[2] * (kw - 1) + 1)) / s[2]) + 1
  if outH < 1 or outW < 1 then
    U.fail(op, 'the output would be %dx%d for input %s, kernel %dx%d, padding {%d, %d}, dilation {%d, %d}', outH,
      outW, U.shape(input), kh, kw, p[1], p[2], d[1], d[2])
  end
  local K = kh * kw
  if offset:dim() ~= 4 or offset:size(1) ~= N or offset:size(2) == 0 or offset:size(2) % (2 * K) ~= 0
      or offset:size(3) ~= outH or offset:size(4) ~= outW then
    U.fail(op, 'offset must be %d x (2 * offsetGroups * %d) x %d x %d, got size %s', N, K, outH, outW, U.shape(offset))
  end
  local G = offset:size(2) / (2 * K)
  if C % G ~= 0 then U.fail(op, 'the input channels (%d) must be a multiple of the offset groups (%d)', C, G) end
  if mask ~= nil and (mask:dim() ~= 4 or mask:size(1) ~= N or mask:size(2) ~= G * K or mask:size(3) ~= outH
      or mask:size(4) ~= outW) then
    U.fail(op, 'mask must be %d x %d x %d x %d (offsetGroups * kh * kw = %d), got size %s', N, G * K, outH, outW,
      G * K, U.shape(mask))
  end
  if bias ~= nil and (bias:dim() ~= 1 or bias:size(1) ~= outC) then
    U.fail(op, 'bias must have %d elements (one per output channel), got size %s', outC, U.shape(bias))
  end
  g.N, g.C, g.H, g.W, g.outC, g.groups, g.G, g.kh, g.kw, g.outH, g.outW = N, C, H, W, outC, groups, G, kh, kw, outH, outW
  return g
end

--- nn.ops.deformConv2d(input, offset, weight[, bias[, stride[, padding[, dilation[, mask]]]]]):
--- torchvision's deformable convolution (DCN; DCNv2 with a mask) of input (N x C x H x W) by
--- weight (outC x C/groups x kh x kw, groups = C / weight:size(2)): each kernel tap reads the input
--- at its position moved by offset (N x 2*offsetGroups*kh*kw x outH x outW, (dy, dx) pairs in
--- pixels, Note [Offsets are positions]) with bilinear interpolation, zero outside, times mask
--- (N x offsetGroups*kh*kw x outH x outW) when given. stride, padding (default 0) and dilation
--- (default 1) are numbers or {h, w}; options also as a trailing table. Differentiable in input,
--- offset, mask, weight and bias.
--- Example: print(nn.ops.deformConv2d(torch.rand(1, 2, 5, 5), torch.zeros(1, 18, 3, 3), torch.rand(4, 2, 3, 3)):size())
function ops.deformConv2d(input, offset, weight, ...)
  local o = P.parse(OP, { 'bias', 'stride', 'padding', 'dilation', 'mask' }, ...)
  local s = P.tuple(OP, 'stride', o.stride, 2, 1)
  local p = P.tuple(OP, 'padding', o.padding, 2, 0, 0)
  local d = P.tuple(OP, 'dilation', o.dilation, 2, 1)
  local bias, mask = o.bias, o.mask
  local g = geometry(OP, input, offset, weight, bias, mask, s, p, d)
  local N, C, G, K, L = g.N, g.C, g.G, g.kh * g.kw, g.outH * g.outW
  local off = offset:reshape(N, G, K, 2, L)
  local y = off:select(4, 1) + base(input, 1, { g.kh, g.kw }, s, p, d, g.outH, g.outW)
  local x = off:select(4, 2) + base(input, 2, { g.kh, g.kw }, s, p, d, g.outH, g.outW)
  local cols = sample(input, G, y, x, mask)                             -- N x L x G x K x Cg
  local out
  if g.groups == 1 then
    -- the weight's columns put in the samples' order (group, tap, channel): no copy of cols
    local wt = weight:reshape(g.outC, G, C / G, K):permute(1, 2, 4, 3):reshape(g.outC, C * K)
    out = torch.matmul(cols:view(N, L, C * K), wt:t()):transpose(2, 3)
  else
    -- channel-major columns (channel c = g * Cg + cg, then tap k), split by weight group
    cols = cols:permute(1, 3, 5, 4, 2):reshape(N, g.groups, C / g.groups * K, L)
    out = torch.matmul(weight:reshape(1, g.groups, g.outC / g.groups, C / g.groups * K), cols)
  end
  out = out:reshape(N, g.outC, g.outH, g.outW)
  if bias ~= nil then out = out + bias:view(1, g.outC, 1, 1) end
  return out
end

-- ---- module ---------------------------------------------------------------------------------

local DC, DCparent = torch.class('nn.ops.DeformConv2d', 'nn.Module')
local MOD = 'nn.ops.DeformConv2d'

--- nn.ops.DeformConv2d(inChannels, outChannels, kernelSize[, stride[, padding[, dilation[, groups[,
--- bias]]]]]): the module of nn.ops.deformConv2d, with a weight (outC x inC/groups x kh x kw) and
--- bias (default true) drawn as nn.Conv2d's (state-dict keys weight, bias as torchvision's);
--- forward takes {input, offset} or {input, offset, mask}. Options also as a trailing table.
--- Example: print(nn.ops.DeformConv2d(2, 4, 3, {padding = 1}):forward({torch.rand(1, 2, 5, 5), torch.zeros(1, 18, 5, 5)}):size())
function DC:__init(inC, outC, k, ...)
  DCparent.__init(self)
  local o = P.parse(MOD, { 'stride', 'padding', 'dilation', 'groups', 'bias' }, ...)
  self.inChannels, self.outChannels = P.int(MOD, 'inChannels', inC), P.int(MOD, 'outChannels', outC)
  self.kernelSize = P.tuple(MOD, 'kernelSize', k, 2)
  self.stride = P.tuple(MOD, 'stride', o.stride, 2, 1)
  self.padding = P.tuple(MOD, 'padding', o.padding, 2, 0, 0)
  self.dilation = P.tuple(MOD, 'dilation', o.dilation, 2, 1)
  self.groups = P.int(MOD, 'groups', o.groups, 1)
  if self.inChannels % self.groups ~= 0 or self.outChannels % self.groups ~= 0 then
    U.fail(MOD, 'inChannels (%d) and outChannels (%d) must be divisible by groups (%d)', self.inChannels,
      self.outChannels, self.groups)
  end
  local size = { self.outChannels, self.inChannels / self.groups, self.kernelSize[1], self.kernelSize[2] }
  self.weight = torch.Tensor(unpack(size))
  self.gradWeight = torch.Tensor(unpack(size)):zero()
  if P.bool(MOD, 'bias', o.bias, true) then
    self.bias = torch.Tensor(self.outChannels)
    self.gradBias = torch.Tensor(self.outChannels):zero()
  end
  self:reset()
end

--- m:reset([stdv]): torchvision's init, U(-1/sqrt(fanIn), 1/sqrt(fanIn)) for weight and bias
--- (fanIn = inC/groups * kh * kw), as nn.Conv2d's; with stdv, Torch7's uniform(-stdv*sqrt(3), ..).
--- Example: nn.ops.DeformConv2d(2, 4, 3):reset()
function DC:reset(stdv)
  return nn.utils.resetUniform(self, self.weight:nElement() / self.weight:size(1), stdv)
end

function DC:updateOutput(x)
  if type(x) ~= 'table' or torch.isTensor(x) or x[1] == nil or x[2] == nil then
    U.fail(MOD, 'expected {input, offset} or {input, offset, mask}, got %s', U.describe(x))
  end
  self.output = ops.deformConv2d(x[1], x[2], self.weight, self.bias, self.stride, self.padding, self.dilation, x[3])
  return self.output
end

function DC:__tostring__()
  local k, s, p, d = self.kernelSize, self.stride, self.padding, self.dilation
  return string.format('nn.ops.DeformConv2d(%d, %d, kernelSize={%d, %d}, stride={%d, %d}, padding={%d, %d}, '
    .. 'dilation={%d, %d}, groups=%d, bias=%s)', self.inChannels, self.outChannels, k[1], k[2], s[1], s[2], p[1],
    p[2], d[1], d[2], self.groups, tostring(self.bias ~= nil))
end

return ops
