-- nn.ops.FrozenBatchNorm2d (torchvision.ops.FrozenBatchNorm2d): a batch norm whose statistics and
-- affine transform are fixed buffers, as detection backbones load them from a classifier.
--
-- Note [Frozen batch norm has buffers only]: torchvision registers weight, bias, running_mean and
-- running_var as buffers: the optimizer never sees them and nothing updates them, in training
-- mode too. Here they keep the names of Tocha's batch norms (Torch7's running_mean/running_var,
-- which are PyTorch's state-dict keys too), are listed as _stateBuffers with no _stateParams, and
-- parameters() answers nil; so m:stateDict() has torchvision's four keys in its order, a
-- checkpoint saved from torchvision (or one of an nn.BatchNorm2d: num_batches_tracked is skipped,
-- Note [State dict names]) loads strictly, and getParameters() or an optimizer finds nothing.
-- The forward is recorded tensor ops, so the input's gradient is autograd's (a Torch7-style
-- backward replays it, Note [Modules and autograd]).
local U = require 'nn.ops.util'
local P = require 'nn.pytorch_names_args'

local FBN, parent = torch.class('nn.ops.FrozenBatchNorm2d', 'nn.Module')
local NAME = 'nn.ops.FrozenBatchNorm2d'
FBN._stateParams = {}
FBN._stateBuffers = { 'weight', 'bias', 'running_mean', 'running_var' }

--- nn.ops.FrozenBatchNorm2d(numFeatures[, eps]): y = (x - running_mean) / sqrt(running_var + eps)
--- * weight + bias per channel of an N x C x H x W input, with weight 1, bias 0, running_mean 0,
--- running_var 1 until loaded (m:loadStateDict) or set; they are buffers, never updated, and the
--- module has no parameters (Note [Frozen batch norm has buffers only]). eps defaults to 1e-5;
--- options also as a trailing table ({eps = 1e-3}).
--- Example: print(nn.ops.FrozenBatchNorm2d(3):forward(torch.ones(1, 3, 2, 2)):size())
function FBN:__init(...)
  parent.__init(self)
  local o = P.parse(NAME, { 'numFeatures', 'eps' }, ...)
  self.numFeatures = P.int(NAME, 'numFeatures', o.numFeatures)
  self.eps = U.number(NAME, o.eps, 'eps', 1e-5)
  if self.eps < 0 then U.fail(NAME, 'eps must be >= 0, got %g', self.eps) end
  local n = self.numFeatures
  self.weight, self.bias = torch.ones(n), torch.zeros(n)
  self.running_mean, self.running_var = torch.zeros(n), torch.ones(n)
end

--- m:parameters(): nil, as the module has none (Note [Frozen batch norm has buffers only]).
--- Example: print(nn.ops.FrozenBatchNorm2d(3):parameters())
function FBN:parameters() return nil end

function FBN:updateOutput(input)
  U.tensor(NAME, input, 'input')
  if input:dim() ~= 4 or input:size(2) ~= self.numFeatures then
    U.fail(NAME, 'expected an N x %d x H x W input, got size %s', self.numFeatures, U.shape(input))
  end
  if not U.isFloat(input) then U.fail(NAME, 'input must be floating point, got %s', input:type()) end
  if input:type() ~= self.weight:type() or input:getDevice() ~= self.weight:getDevice() then
    U.fail(NAME, 'input is %s (device %d) but the buffers are %s (device %d): convert the module with m:type()',
      input:type(), input:getDevice(), self.weight:type(), self.weight:getDevice())
  end
  -- torchvision's order of operations: one scale and one shift per channel
  local scale = torch.cmul(self.weight, torch.rsqrt(self.running_var + self.eps))
  local shift = self.bias - torch.cmul(self.running_mean, scale)
  local n = self.numFeatures
  self.output = torch.cmul(input, scale:view(1, n, 1, 1)) + shift:view(1, n, 1, 1)
  return self.output
end

function FBN:__tostring__()
  return string.format('nn.ops.FrozenBatchNorm2d(%d, eps=%g)', self.numFeatures, self.eps)
end

return nn.ops
