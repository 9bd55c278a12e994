-- PyTorch's lazy modules: nn.LazyLinear(outFeatures [, bias = true]) and nn.LazyConv1d/2d/3d(
-- outChannels, kernelSize [, stride, padding, dilation, groups, bias, paddingMode]), subclasses of
-- nn.Linear and nn.Conv1d/2d/3d whose in-features (in-channels) come from the first input.
--
-- Note [Lazy parameters]: before the first forward, weight and gradWeight are empty tensors (no
-- elements: PyTorch's UninitializedParameter), already linked (weight.grad = gradWeight) and
-- listed by m:parameters(); the bias is sized from the start, as PyTorch's. The first forward
-- resizes them in place to the inferred shape and draws PyTorch's init (nn.Linear's and the
-- convolutions' reset), so they are the same tensor objects: an optimizer (optim.SGD...) built
-- before the first forward updates them afterwards, where PyTorch only warns that lazy modules are
-- new. From then on the module is exactly its parent (PyTorch swaps the class to Linear/ConvNd;
-- here torch.type stays nn.LazyLinear, and isTypeOf(m, 'nn.Linear') holds). m:loadStateDict on an
-- uninitialized lazy module materializes it from the state dict's weight shape first (PyTorch's
-- load hook); inside a container that loads, run one forward first (the container's load does not
-- reach this module's method). m:isLazy() says whether it still waits for its first input.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.Linear'
require 'nn.pytorch_names_conv'

local Lazy = require 'nn.lazy_support'
local add_lazy_methods = Lazy.addLazyMethods
local function empty_weight(self) Lazy.empty(self, { 'weight', 'gradWeight' }) end
-- The weight size a state dict gives (nil when it holds no weight).
local function state_weight_size(tbl)
  return torch.isTensor(tbl.weight) and tbl.weight:size():totable() or nil
end
local function weight_sizes(s) return { weight = s, gradWeight = s } end

-- nn.LazyLinear(outFeatures [, bias = true]): nn.Linear with inFeatures taken from the first
-- input's last dim.
do
  local name = 'nn.LazyLinear'
  local cls, parent = torch.class(name, 'nn.Linear')
  function cls:__init(...)
    local o = P.parse(name, { 'outFeatures', 'bias' }, ...)
    self._outSize = P.int(name, 'outFeatures', o.outFeatures)
    parent.__init(self, 1, self._outSize, P.bool(name, 'bias', o.bias, true))
    empty_weight(self)
  end
  add_lazy_methods(cls, parent, name, function(self, input, tbl)
    if tbl then
      local size = state_weight_size(tbl)
      if not size then return nil end
      if #size ~= 2 or size[1] ~= self._outSize then
        lib.fail(name, 'expected a weight of size %d x in in the state dict, got %s', self._outSize, table.concat(size, 'x'))
      end
      return weight_sizes(size)
    end
    if input:dim() < 1 then lib.fail(name, 'expected an input with a feature dim, got %s', nn.utils.describe(input)) end
    return weight_sizes({ self._outSize, input:size(input:dim()) })
  end)
  function cls:__tostring__()
    if self._lazy then return string.format('nn.LazyLinear(? -> %d)', self._outSize) end
    return string.format('nn.LazyLinear(%d -> %d%s)', self.weight:size(2), self.weight:size(1),
      self.bias and '' or ', without bias')
  end
end

-- nn.LazyConv1d/2d/3d(outChannels, kernelSize [, stride = 1, padding = 0, dilation = 1, groups = 1,
-- bias = true, paddingMode = 'zeros']): nn.Conv1d/2d/3d with inChannels taken from the first
-- input's channel dim (dim 1 of an unbatched input, 2 of a batch).
for nd = 1, 3 do
  local name = 'nn.LazyConv' .. nd .. 'd'
  local cls, parent = torch.class(name, 'nn.Conv' .. nd .. 'd')
  function cls:__init(outChannels, kernelSize, ...)
    local groups = Lazy.groups(name, ...)
    -- the parent is built with inChannels = groups (valid for any groups), then the weight emptied
    parent.__init(self, groups, outChannels, kernelSize, ...)
    self.nInputPlane = nil
    empty_weight(self)
  end
  add_lazy_methods(cls, parent, name, function(self, input, tbl)
    local inC
    if tbl then
      local size = state_weight_size(tbl)
      if not size then return nil end
      inC = size[2] * self.groups
    else
      if input:dim() ~= nd + 1 and input:dim() ~= nd + 2 then
        lib.fail(name, 'expected a %dD (unbatched) or %dD (batched) input, got %s', nd + 1, nd + 2, nn.utils.describe(input))
      end
      inC = input:size(input:dim() - nd)
    end
    if inC % self.groups ~= 0 then
      lib.fail(name, 'the input has %d channels, which groups (%d) does not divide', inC, self.groups)
    end
    self.nInputPlane = inC
    local s = { self.nOutputPlane, inC / self.groups }
    for d = 1, nd do s[#s + 1] = self._k[d] end
    return weight_sizes(s)
  end)
  function cls:__tostring__()
    if self._lazy then
      return string.format('%s(? -> %d, kernelSize %s)', name, self.nOutputPlane, table.concat(self._k, 'x'))
    end
    return (parent.__tostring__(self):gsub('^nn%.Conv%dd', name, 1))
  end
end

return nn.LazyLinear
