-- PyTorch's convolution names: nn.Conv1d/2d/3d and nn.ConvTranspose1d/2d/3d as subclasses of
-- Torch7's SpatialConvolution, VolumetricConvolution, SpatialFullConvolution and
-- VolumetricFullConvolution, with PyTorch's signatures, weight layouts, defaults and init.
-- Note [PyTorch-named convolutions]: the weights have PyTorch's layout (out x in/groups x k... for
-- convolutions, in x out/groups x k... for transposed ones), so state dicts load either way. 1-D
-- ones keep a 3-D weight and N x C x L inputs (PyTorch's), not TemporalConvolution's N x L x C
-- layout; 1-D and 3-D ones and all transposed ones run the nd-generic conv ops here (groups and
-- dilation, which the Torch7 parents lack); Conv2d reuses SpatialConvolution's methods, whose
-- geometry already reads dilationW/dilationH. Torch7's fields (kW, dH, padT, adjW...) are kept
-- so printing, :noBias() and .t7 serialization work as for the parents.
-- Note [PyTorch init]: PyTorch draws weights from kaiming_uniform(a = sqrt(5)), i.e.
-- U(-1/sqrt(fanIn), 1/sqrt(fanIn)), and biases from the same bound, fanIn = weight:size(2) * kernel
-- volume. That is Torch7's reset for convolutions (and Tocha's nn.Linear), but not for transposed
-- ones, whose Torch7 fanIn counts input planes: here fanIn = nElement / size(1) for every class.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.SpatialConvolution'
require 'nn.VolumetricConvolution'
require 'nn.SpatialFullConvolution'
require 'nn.VolumetricFullConvolution'
local pad = require 'nn.pytorch_names_convpad'
local cu = nn.conv_utils
local C, check = cu.C, cu.check

local NAMES = { 'stride', 'padding', 'dilation', 'groups', 'bias', 'paddingMode' }
local TNAMES = { 'stride', 'padding', 'outputPadding', 'groups', 'bias', 'dilation', 'paddingMode' }

-- Parses (in, out, kernelSize, ...) into the geometry tables (depth, height, width order).
local function geometry(cls, nd, transposed, inC, outC, k, ...)
  local o = P.parse(cls, transposed and TNAMES or NAMES, ...)
  local g = { nd = nd }
  g.inC, g.outC = P.int(cls, 'inChannels', inC), P.int(cls, 'outChannels', outC)
  g.k = P.tuple(cls, 'kernelSize', k, nd)
  g.s = P.tuple(cls, 'stride', o.stride, nd, 1)
  g.d = P.tuple(cls, 'dilation', o.dilation, nd, 1)
  pad.parse(cls, nd, transposed, o, g)
  g.adj = P.tuple(cls, 'outputPadding', o.outputPadding, nd, 0, 0)
  g.groups = P.int(cls, 'groups', o.groups, 1)
  g.bias = P.bool(cls, 'bias', o.bias, true)
  if g.inC % g.groups ~= 0 or g.outC % g.groups ~= 0 then
    lib.fail(cls, 'inChannels (%d) and outChannels (%d) must be divisible by groups (%d)', g.inC,
      g.outC, g.groups)
  end
  for d = 1, nd do
    if transposed and g.adj[d] >= math.max(g.s[d], g.d[d]) then
      lib.fail(cls, 'outputPadding (%d) must be smaller than stride (%d) or dilation (%d)', g.adj[d],
        g.s[d], g.d[d])
    end
  end
  return g
end

-- Fills the fields shared by every PyTorch-named convolution.
local function setup(self, g, transposed)
  nn.Module.__init(self)
  self.nInputPlane, self.nOutputPlane, self.groups = g.inC, g.outC, g.groups
  self._k, self._s, self._p, self._d, self._adj = g.k, g.s, g.p, g.d, g.adj
  self._transposed = transposed or nil
  pad.setup(self, g)
  local size = transposed and { g.inC, g.outC / g.groups } or { g.outC, g.inC / g.groups }
  for d = 1, g.nd do size[#size + 1] = g.k[d] end
  self.weight = torch.Tensor(torch.LongStorage(size))
  self.gradWeight = torch.Tensor(torch.LongStorage(size))
  self.bias = torch.Tensor(g.outC)
  self.gradBias = torch.Tensor(g.outC)
  -- Torch7's fields, innermost dim last: W is the last dim, H the one before, T the first of three
  local k, s, p, a = g.k, g.s, g.p, g.adj
  local n = g.nd
  self.kW, self.dW, self.padW, self.adjW = k[n], s[n], p[n], a[n]
  self.kH, self.dH, self.padH, self.adjH = 1, 1, 0, 0
  if n >= 2 then self.kH, self.dH, self.padH, self.adjH = k[n - 1], s[n - 1], p[n - 1], a[n - 1] end
  if n == 3 then self.kT, self.dT, self.padT, self.adjT = k[1], s[1], p[1], a[1] end
  if not transposed then self.adjW, self.adjH, self.adjT = nil, nil, nil end
  if n == 2 and (g.d[1] ~= 1 or g.d[2] ~= 1) then self.dilationH, self.dilationW = g.d[1], g.d[2] end
  self:reset()
  if not g.bias then self:noBias() end
end

--- m:reset([stdv]): PyTorch's init, U(-1/sqrt(fanIn), 1/sqrt(fanIn)) for weight and bias with fanIn =
--- weight:size(2) * kernel volume (Note [PyTorch init]); with stdv, Torch7's uniform(-stdv*sqrt(3), ..).
--- Example: nn.Conv2d(3, 4, 3):reset()
local function reset(self, stdv)
  return nn.utils.resetUniform(self, self.weight:nElement() / self.weight:size(1), stdv)
end

local function options(self, adj)
  return cu.options(#self._k, self.groups, self._s, self._p, self._d, adj)
end

-- The output's channel count and spatial sizes of a transposed convolution for input, with the
-- output padding adj (default m._adj).
local function t_output_size(self, input, adj)
  adj = adj or self._adj
  local first, want = input:dim() - #self._k, { self.nOutputPlane }
  for d = 1, #self._k do
    want[d + 1] = (input:size(first + d) - 1) * self._s[d] - 2 * self._p[d] + self._d[d] * (self._k[d] - 1) + 1
        + adj[d]
  end
  return want
end

-- Note [ConvTranspose outputSize]: PyTorch's ConvTranspose*d forward takes an output_size that
-- picks the output padding of this call (between 0 and max(stride, dilation) - 1 per dim), in
-- place of the module's outputPadding. Here m:forward(input, outputSize) and m(input, outputSize)
-- (outputSize a table or LongStorage of the spatial sizes, or of all the output's sizes, as
-- PyTorch takes either) keep it in m._outputSize for the call, which updateOutput reads; the
-- backward reads the output padding from gradOutput's size, so the autograd node and Torch7's
-- backward need no outputSize.
local function valid_adj(self, adj)
  for d = 1, #self._k do
    if adj[d] < 0 or adj[d] >= math.max(self._s[d], self._d[d]) then return false end
  end
  return true
end

-- The output padding that gives outputSize (spatial sizes last) for input; errors name the module.
local function adj_for(self, input, outputSize)
  local nd = #self._k
  local sizes = torch.typename(outputSize) == 'torch.LongStorage' and outputSize:totable() or outputSize
  if type(sizes) ~= 'table' or (#sizes ~= nd and #sizes ~= nd + 1 and #sizes ~= nd + 2) then
    cu.fail(self, 'expected outputSize as a table of %d (or %d, %d) sizes, got %s', nd, nd + 1, nd + 2,
      nn.utils.describe(outputSize))
  end
  local zeros = {}
  for d = 1, nd do zeros[d] = 0 end
  local base, adj = t_output_size(self, input, zeros), {}
  for d = 1, nd do
    local want = sizes[#sizes - nd + d]
    adj[d] = type(want) == 'number' and want - base[d + 1] or -1
  end
  if not valid_adj(self, adj) then
    local lo, hi = {}, {}
    for d = 1, nd do
      lo[d], hi[d] = base[d + 1], base[d + 1] + math.max(self._s[d], self._d[d]) - 1
    end
    cu.fail(self, 'requested an output size of %s, but valid sizes range from %s to %s (for an input of size %s)',
      table.concat(sizes, 'x', #sizes - nd + 1), table.concat(lo, 'x'), table.concat(hi, 'x'),
      table.concat(input:size():totable(), 'x'))
  end
  return adj
end

-- The output padding gradOutput's size shows (Note [ConvTranspose outputSize]), else m._adj.
local function adj_of_grad(self, input, gradOutput)
  local nd = #self._k
  if not torch.isTensor(gradOutput) or gradOutput:dim() ~= input:dim() then return self._adj end
  local zeros = {}
  for d = 1, nd do zeros[d] = 0 end
  local base, adj = t_output_size(self, input, zeros), {}
  for d = 1, nd do adj[d] = gradOutput:size(gradOutput:dim() - nd + d) - base[d + 1] end
  return valid_adj(self, adj) and adj or self._adj
end

local conv = {}
function conv.updateOutput(self, input)
  local nd = #self._k
  cu.checkInput(self, input, nd, self.nInputPlane, self._k, self._p, self._d)
  check(C.tocha_conv_out(self.output.p, input.p, self.weight.p, self.bias and self.bias.p or nil, options(self)))
  return self.output
end
function conv.updateGradInput(self, input, gradOutput)
  if not self.gradInput then return end
  local nd = #self._k
  local want = cu.outputSizes(input, nd, self._k, self._s, self._p, self._d)
  table.insert(want, 1, self.nOutputPlane)
  cu.checkGradOutput(self, gradOutput, input, want)
  local o = cu.backOptions(options(self), input, gradOutput, self._k)
  check(C.tocha_conv_transpose_out(self.gradInput.p, gradOutput.p, self.weight.p, nil, o))
  return self.gradInput
end
function conv.accGradParameters(self, input, gradOutput, scale)
  check(C.tocha_conv_weight_acc(self.gradWeight.p, self.bias and self.gradBias.p or nil, input.p, gradOutput.p,
    options(self), scale or 1, 1))
end

local tconv = {}
function tconv.updateOutput(self, input)
  local nd = #self._k
  local ones, zeros = {}, {}
  for d = 1, nd do ones[d], zeros[d] = 1, 0 end
  cu.checkInput(self, input, nd, self.nInputPlane, ones, zeros)
  local adj = self._outputSize and adj_for(self, input, self._outputSize) or self._adj
  local want = t_output_size(self, input, adj)
  for d = 2, #want do
    if want[d] < 1 then
      cu.fail(self, 'input of size %s gives an empty output (%s)', table.concat(input:size():totable(), 'x'),
        table.concat(want, 'x', 2))
    end
  end
  check(C.tocha_conv_transpose_out(self.output.p, input.p, self.weight.p, self.bias and self.bias.p or nil,
    options(self, adj)))
  return self.output
end
function tconv.updateGradInput(self, input, gradOutput)
  if not self.gradInput then return end
  cu.checkGradOutput(self, gradOutput, input, t_output_size(self, input, adj_of_grad(self, input, gradOutput)))
  check(C.tocha_conv_out(self.gradInput.p, gradOutput.p, self.weight.p, nil, options(self)))
  return self.gradInput
end
-- The weight gradient is that of the convolution it transposes, with gradOutput as its input.
function tconv.accGradParameters(self, input, gradOutput, scale)
  check(C.tocha_conv_weight_acc(self.gradWeight.p, nil, gradOutput.p, input.p, options(self), scale or 1, 1))
  if self.bias then check(C.tocha_conv_bias_acc(self.gradBias.p, gradOutput.p, #self._k, scale or 1)) end
end

-- The parent's printout plus the options it has no field for.
local function tostring_with(parent_tostring)
  return function(self)
    local s = parent_tostring(self)
    local extra = ''
    local dil = false
    for _, v in ipairs(self._d or {}) do dil = dil or v ~= 1 end
    local printed = #self._k == 2 and not self._transposed  -- SpatialConvolution prints both
    if dil and not printed then extra = extra .. ', dilation ' .. table.concat(self._d, ',') end
    if self.groups ~= 1 and not printed then extra = extra .. ', groups ' .. self.groups end
    extra = extra .. pad.describe(self)
    if extra == '' then return s end
    local head, tail = s:match('^(.*)(%) ?[^)]*)$')
    return head .. extra .. tail
  end
end

-- Loaded modules link their gradients again (the tensors are new objects).
local function after_load(self)
  nn.utils.linkGradients(self)
  self._upgraded = true
end

local function define(name, parent_name, nd, transposed)
  local cls, parent = torch.class(name, parent_name)
  cls.__init = function(self, ...)
    setup(self, geometry(name, nd, transposed, ...), transposed)
    self._upgraded = true
  end
  cls.reset = reset
  cls.afterLoad = after_load
  if transposed then
    --- m:forward(input [, outputSize]): the transposed convolution; outputSize (PyTorch's
    --- output_size) picks this call's output padding (Note [ConvTranspose outputSize]).
    --- Example: nn.ConvTranspose2d(2, 3, 3, {stride = 2}):forward(torch.randn(1, 2, 4, 4), {10, 10})
    function cls:forward(input, outputSize)
      if outputSize == nil then return parent.forward(self, input) end
      self._outputSize = outputSize
      local ok, out = pcall(parent.forward, self, input)
      self._outputSize = nil
      if not ok then error(out, 0) end
      return out
    end
    -- m(input, outputSize): forward with PyTorch's output_size; m(input, gradOutput) stays Torch7's.
    function cls:__call__(input, second)
      if second ~= nil and not torch.isTensor(second) then return self:forward(input, second) end
      return parent.__call__(self, input, second)
    end
  end
  if transposed or nd ~= 2 then
    local impl = transposed and tconv or conv
    cls.updateOutput, cls.updateGradInput, cls.accGradParameters = impl.updateOutput, impl.updateGradInput,
        impl.accGradParameters
  end
  if not transposed then pad.wrap(cls) end
  cls.__tostring__ = tostring_with(parent.__tostring__)
  return cls
end

-- nn.Conv1d(inChannels, outChannels, kernelSize [, stride = 1, padding = 0, dilation = 1, groups = 1,
-- bias = true, paddingMode = 'zeros'] or a trailing {stride =, padding =, ...}): PyTorch's Conv1d on
-- C x L or N x C x L inputs, weight outChannels x inChannels/groups x kernelSize. padding may be
-- 'valid' or 'same' (stride 1), paddingMode 'zeros', 'reflect', 'replicate' or 'circular' (Note
-- [Explicit padding on PyTorch-named convolutions], nn/pytorch_names_convpad.lua); not for ConvTranspose*.
define('nn.Conv1d', 'nn.SpatialConvolution', 1, false)
-- nn.Conv2d(inChannels, outChannels, kernelSize [, stride, padding, dilation, groups, bias, paddingMode]):
-- PyTorch's Conv2d; sizes a number or {h, w}; weight out x in/groups x kH x kW.
define('nn.Conv2d', 'nn.SpatialConvolution', 2, false)
-- nn.Conv3d(inChannels, outChannels, kernelSize [, ...]): PyTorch's Conv3d; sizes a number or {d, h, w}.
define('nn.Conv3d', 'nn.VolumetricConvolution', 3, false)
-- nn.ConvTranspose1d/2d/3d(inChannels, outChannels, kernelSize [, stride = 1, padding = 0,
-- outputPadding = 0, groups = 1, bias = true, dilation = 1, paddingMode = 'zeros']): PyTorch's
-- transposed convolutions, weight inChannels x outChannels/groups x k...
define('nn.ConvTranspose1d', 'nn.SpatialFullConvolution', 1, true)
define('nn.ConvTranspose2d', 'nn.SpatialFullConvolution', 2, true)
define('nn.ConvTranspose3d', 'nn.VolumetricFullConvolution', 3, true)

return nn.Conv2d
