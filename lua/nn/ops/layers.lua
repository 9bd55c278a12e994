-- nn.ops' layers (torchvision.ops.misc, stochastic_depth, drop_block): stochasticDepth and
-- StochasticDepth, dropBlock2d/3d and DropBlock2d/3d, SqueezeExcitation, Conv2dNormActivation and
-- MLP, with torchvision's state-dict names (Note [State dict names], nn/state_dict.lua).
-- Forward passes are recorded tensor ops; backward is autograd's (Note [Modules and autograd]).
-- Where torchvision takes a layer class (norm_layer, activation_layer) these take a constructor
-- (nn.BatchNorm2d, nn.ReLU, or any function returning a module), and false for torchvision's None.
-- Their `inplace` flags are accepted and ignored: the results are the same, and in-place writes
-- would clobber tensors autograd saved.
local U = require 'nn.ops.util'
local P = require 'nn.pytorch_names_args'
local F = nn.functional
local ops = nn.ops

local function prob(op, p)
  p = U.number(op, p, 'p')
  if p == nil or p < 0 or p > 1 then U.fail(op, 'drop probability p must be in [0, 1], got %s', tostring(p)) end
  return p
end

--- nn.ops.stochasticDepth(input, p, mode[, training]): randomly zeroes the whole input (mode
--- 'batch') or each row (mode 'row': each sample along dim 1) with probability p, scaling the
--- survivors by 1 / (1 - p); the input itself when training is false (default true) or p is 0.
--- Example: print(nn.ops.stochasticDepth(torch.ones(4, 2), 0.5, 'row'))
function ops.stochasticDepth(input, p, mode, training)
  local op = 'nn.ops.stochasticDepth'
  U.tensor(op, input, 'input')
  p = prob(op, p)
  if mode ~= 'batch' and mode ~= 'row' then U.fail(op, "mode must be 'batch' or 'row', got %s", tostring(mode)) end
  training = U.bool(op, training, 'training', true)
  if not training or p == 0 then return input end
  local keep = 1 - p
  local size = {}
  for d = 1, input:dim() do size[d] = (mode == 'row' and d == 1) and input:size(1) or 1 end
  local noise = input.new(unpack(size)):bernoulli(keep)
  if keep > 0 then noise:div(keep) end
  return torch.cmul(input, noise)
end

local SD, SDparent = torch.class('nn.ops.StochasticDepth', 'nn.Module')

--- nn.ops.StochasticDepth(p, mode): the module of nn.ops.stochasticDepth (active in training
--- mode).
--- Example: print(nn.ops.StochasticDepth(0.2, 'row'):forward(torch.ones(3, 2)))
function SD:__init(p, mode)
  SDparent.__init(self)
  self.p = prob('nn.ops.StochasticDepth', p)
  if mode ~= 'batch' and mode ~= 'row' then
    U.fail('nn.ops.StochasticDepth', "mode must be 'batch' or 'row', got %s", tostring(mode))
  end
  self.mode = mode
end
function SD:updateOutput(x)
  self.output = ops.stochasticDepth(x, self.p, self.mode, self.train ~= false)
  return self.output
end
function SD:__tostring__() return string.format('nn.ops.StochasticDepth(p=%g, mode=%s)', self.p, self.mode) end

-- ---- DropBlock ------------------------------------------------------------------------------

local function drop_block(op, input, nd, p, blockSize, inplace, eps, training)
  U.tensor(op, input, 'input')
  p = prob(op, p)
  if input:dim() ~= nd + 2 then U.fail(op, 'input must be %d-dimensional, got size %s', nd + 2, U.shape(input)) end
  blockSize = U.int(op, blockSize, 'blockSize')
  if blockSize == nil or blockSize < 1 then U.fail(op, 'blockSize must be a positive integer, got %s', tostring(blockSize)) end
  inplace = U.bool(op, inplace, 'inplace', false)
  eps = U.number(op, eps, 'eps', 1e-6)
  training = U.bool(op, training, 'training', true)
  if not training or p == 0 then return input end
  local bs, cells, valid = blockSize, 1, 1
  for d = 3, nd + 2 do bs = math.min(bs, input:size(d)) end
  local size = { input:size(1), input:size(2) }
  for d = 3, nd + 2 do
    cells = cells * input:size(d)
    valid = valid * (input:size(d) - bs + 1)
    size[d] = input:size(d) - bs + 1
  end
  local gamma = p * cells / (bs ^ nd * valid)
  local noise = input.new(unpack(size)):bernoulli(math.min(gamma, 1)):detach()
  local half = math.floor(bs / 2)
  local pads = {}
  for i = 1, 2 * nd do pads[i] = half end
  noise = F.pad(noise, pads, 'constant', 0)
  if nd == 2 then noise = F.maxPool2d(noise, bs, 1, half) else noise = F.maxPool3d(noise, bs, 1, half) end
  if not noise:isSameSizeAs(input) then
    U.fail(op, 'blockSize %d gives a mask of size %s for input %s (torchvision fails too: use an odd blockSize)',
      blockSize, U.shape(noise), U.shape(input))
  end
  noise = 1 - noise
  local scale = noise:nElement() / (eps + noise:sum())
  return torch.cmul(input, noise) * scale
end

--- nn.ops.dropBlock2d(input, p, blockSize[, inplace[, eps[, training]]]): DropBlock on an
--- N x C x H x W input: zeroes blockSize x blockSize squares around random centres (rate chosen so
--- that a fraction p of the input drops) and rescales the rest; the input when not training.
--- Example: print(nn.ops.dropBlock2d(torch.ones(1, 1, 5, 5), 0.3, 3))
function ops.dropBlock2d(input, p, blockSize, inplace, eps, training)
  return drop_block('nn.ops.dropBlock2d', input, 2, p, blockSize, inplace, eps, training)
end

--- nn.ops.dropBlock3d(input, p, blockSize[, inplace[, eps[, training]]]): DropBlock on an
--- N x C x D x H x W input (cubes of blockSize).
--- Example: print(nn.ops.dropBlock3d(torch.ones(1, 1, 3, 3, 3), 0.3, 3):size())
function ops.dropBlock3d(input, p, blockSize, inplace, eps, training)
  return drop_block('nn.ops.dropBlock3d', input, 3, p, blockSize, inplace, eps, training)
end

local function dropblock_class(name, fn)
  local cls, parent = torch.class('nn.ops.' .. name, 'nn.Module')
  cls.__init = function(self, p, blockSize, inplace, eps)
    parent.__init(self)
    local op = 'nn.ops.' .. name
    self.p = prob(op, p)
    self.blockSize = U.int(op, blockSize, 'blockSize')
    if self.blockSize == nil or self.blockSize < 1 then U.fail(op, 'blockSize must be a positive integer, got %s', tostring(blockSize)) end
    self.inplace = U.bool(op, inplace, 'inplace', false)
    self.eps = U.number(op, eps, 'eps', 1e-6)
  end
  cls.updateOutput = function(self, x)
    self.output = fn(x, self.p, self.blockSize, self.inplace, self.eps, self.train ~= false)
    return self.output
  end
  cls.__tostring__ = function(self)
    return string.format('nn.ops.%s(p=%g, blockSize=%d, inplace=%s)', name, self.p, self.blockSize, tostring(self.inplace))
  end
  return cls
end
--- nn.ops.DropBlock2d(p, blockSize[, inplace[, eps]]): the module of nn.ops.dropBlock2d.
--- Example: print(nn.ops.DropBlock2d(0.1, 3):forward(torch.ones(1, 2, 6, 6)):size())
dropblock_class('DropBlock2d', ops.dropBlock2d)
--- nn.ops.DropBlock3d(p, blockSize[, inplace[, eps]]): the module of nn.ops.dropBlock3d.
--- Example: print(nn.ops.DropBlock3d(0.1, 3):forward(torch.ones(1, 2, 4, 4, 4)):size())
dropblock_class('DropBlock3d', ops.dropBlock3d)

-- ---- squeeze and excitation ----------------------------------------------------------------

local SE, SEparent = torch.class('nn.ops.SqueezeExcitation', 'nn.Module')
SE._fieldChildren = true  -- fc1, fc2... are children (Note [Submodules in fields])

--- nn.ops.SqueezeExcitation(inputChannels, squeezeChannels[, activation[, scaleActivation]]): the
--- squeeze-and-excitation block: global average pool, 1x1 conv fc1, activation (default
--- nn.ReLU), 1x1 conv fc2, scale activation (default nn.Sigmoid), the input scaled channel-wise by
--- the result. State-dict keys fc1.weight, fc1.bias, fc2.weight, fc2.bias as torchvision's.
--- Example: print(nn.ops.SqueezeExcitation(4, 2):forward(torch.rand(1, 4, 3, 3)):size())
function SE:__init(...)
  SEparent.__init(self)
  local op = 'nn.ops.SqueezeExcitation'
  local o = P.parse(op, { 'inputChannels', 'squeezeChannels', 'activation', 'scaleActivation' }, ...)
  local inC, sqC = U.int(op, o.inputChannels, 'inputChannels'), U.int(op, o.squeezeChannels, 'squeezeChannels')
  if inC == nil or sqC == nil or inC < 1 or sqC < 1 then
    U.fail(op, 'inputChannels and squeezeChannels must be positive integers, got %s and %s', tostring(inC), tostring(sqC))
  end
  self.avgpool = nn.AdaptiveAvgPool2d(1)
  self.fc1 = nn.Conv2d(inC, sqC, 1)
  self.fc2 = nn.Conv2d(sqC, inC, 1)
  self.activation = (o.activation or nn.ReLU)()
  self.scale_activation = (o.scaleActivation or nn.Sigmoid)()
end
function SE:updateOutput(x)
  -- the pooling through nn.functional: nn.AdaptiveAvgPool2d is a Torch7 module whose backward
  -- reads its last output, which a second forward before backward replaces
  local s = F.adaptiveAvgPool2d(x, 1)
  s = self.scale_activation:forward(self.fc2:forward(self.activation:forward(self.fc1:forward(s))))
  self.output = torch.cmul(x, s)
  return self.output
end

-- ---- Conv2dNormActivation and MLP ----------------------------------------------------------

local CNA, CNAparent = torch.class('nn.ops.Conv2dNormActivation', 'nn.Sequential')

--- nn.ops.Conv2dNormActivation(inChannels, outChannels[, kernelSize[, stride[, padding[, groups[,
--- normLayer[, activationLayer[, dilation[, inplace[, bias]]]]]]]]]): an nn.Sequential of
--- nn.Conv2d (padding (kernelSize - 1) / 2 * dilation by default, bias only without a norm),
--- normLayer(outChannels) (default nn.BatchNorm2d; false: none) and activationLayer() (default
--- nn.ReLU; false: none); keys '0.weight', '1.running_mean'... as torchvision's. Options also as a
--- trailing table.
--- Example: print(nn.ops.Conv2dNormActivation(3, 8, 3, {stride = 2}):forward(torch.rand(1, 3, 8, 8)):size())
function CNA:__init(...)
  CNAparent.__init(self)
  local op = 'nn.ops.Conv2dNormActivation'
  local o = P.parse(op, { 'inChannels', 'outChannels', 'kernelSize', 'stride', 'padding', 'groups', 'normLayer',
                          'activationLayer', 'dilation', 'inplace', 'bias' }, ...)
  local inC, outC = U.int(op, o.inChannels, 'inChannels'), U.int(op, o.outChannels, 'outChannels')
  if inC == nil or outC == nil or inC < 1 or outC < 1 then
    U.fail(op, 'inChannels and outChannels must be positive integers, got %s and %s', tostring(inC), tostring(outC))
  end
  local k = P.tuple(op, 'kernelSize', o.kernelSize, 2, 3)
  local dil = P.tuple(op, 'dilation', o.dilation, 2, 1)
  local pad = o.padding
  if pad == nil then pad = { math.floor((k[1] - 1) / 2) * dil[1], math.floor((k[2] - 1) / 2) * dil[2] } end
  local norm = o.normLayer == nil and nn.BatchNorm2d or o.normLayer
  local act = o.activationLayer == nil and nn.ReLU or o.activationLayer
  local bias = o.bias
  if bias == nil then bias = not norm end
  self:add(nn.Conv2d(inC, outC, k, { stride = o.stride or 1, padding = pad, groups = o.groups or 1, dilation = dil,
                                     bias = bias }))
  if norm then self:add(norm(outC)) end
  if act then self:add(act()) end
  self.outChannels = outC
end

local MLP, MLPparent = torch.class('nn.ops.MLP', 'nn.Sequential')

--- nn.ops.MLP(inChannels, hiddenChannels[, normLayer[, activationLayer[, inplace[, bias[, dropout]]]]]):
--- torchvision's multi-layer perceptron, an nn.Sequential of Linear (bias default true),
--- normLayer(hidden) (default none), activationLayer() (default nn.ReLU) and Dropout(dropout,
--- default 0) per hidden layer, then Linear and Dropout; keys '0.weight', '3.weight'... as
--- torchvision's.
--- Example: print(nn.ops.MLP(4, {8, 2}):forward(torch.rand(3, 4)):size())
function MLP:__init(...)
  MLPparent.__init(self)
  local op = 'nn.ops.MLP'
  local o = P.parse(op, { 'inChannels', 'hiddenChannels', 'normLayer', 'activationLayer', 'inplace', 'bias',
                          'dropout' }, ...)
  local inC = U.int(op, o.inChannels, 'inChannels')
  local hidden = o.hiddenChannels
  if inC == nil or inC < 1 then U.fail(op, 'inChannels must be a positive integer, got %s', tostring(o.inChannels)) end
  if type(hidden) ~= 'table' or #hidden == 0 then
    U.fail(op, 'hiddenChannels must be a non-empty list of sizes, got %s', U.describe(hidden))
  end
  local act = o.activationLayer == nil and nn.ReLU or o.activationLayer
  local bias = U.bool(op, o.bias, 'bias', true)
  local p = U.number(op, o.dropout, 'dropout', 0)
  local dim = inC
  for i, h in ipairs(hidden) do
    h = U.int(op, h, 'hiddenChannels[' .. i .. ']')
    if h < 1 then U.fail(op, 'hiddenChannels[%d] must be positive, got %d', i, h) end
    self:add(nn.Linear(dim, h, { bias = bias }))
    if i < #hidden then
      if o.normLayer then self:add(o.normLayer(h)) end
      if act then self:add(act()) end
    end
    self:add(nn.Dropout(p))
    dim = h
  end
end

return ops
