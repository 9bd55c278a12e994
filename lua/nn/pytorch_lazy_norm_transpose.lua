-- PyTorch's lazy norms and transposed convolutions: nn.LazyBatchNorm1d/2d/3d([eps = 1e-5,
-- momentum = 0.1, affine = true, trackRunningStats = true]), nn.LazyInstanceNorm1d/2d/3d([eps,
-- momentum, affine = false, trackRunningStats = false]) and nn.LazyConvTranspose1d/2d/3d(outChannels,
-- kernelSize [, stride, padding, outputPadding, groups, bias, dilation, paddingMode]): subclasses of
-- nn.BatchNorm*d, nn.InstanceNorm*d and nn.ConvTranspose*d whose numFeatures (inChannels) come from
-- the first input, on the pattern of nn.LazyLinear (Note [Lazy parameters],
-- nn/pytorch_names_more_lazy.lua): until then the parameters and buffers are empty tensors, already
-- linked to their gradients and listed by m:parameters(); the first forward resizes them in place
-- (the same tensor objects, so optimizers built before it update them) and draws the parent's
-- init; m:loadStateDict on a lazy module materializes it from the state dict's shapes first.
-- m:isLazy() says whether it still waits for its first input. The conv's bias is sized from the start.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.pytorch_names_norm'
require 'nn.pytorch_names_conv'

-- the tensors a lazy module sizes at its first forward (those the instance holds)
local LAZY_FIELDS = { 'weight', 'gradWeight', 'bias', 'gradBias', 'running_mean', 'running_var' }

local Lazy = require 'nn.lazy_support'
local empty, add_lazy_methods = Lazy.empty, Lazy.addLazyMethods

-- The features of a lazy norm: from the input's channel dim, or a state dict's weight/running_mean.
local function norm_infer(name, nd, batchedOnly)
  return function(self, input, tbl)
    local c
    if tbl then
      local t = torch.isTensor(tbl.weight) and tbl.weight or tbl.running_mean
      if not torch.isTensor(t) then return nil end
      c = t:nElement()
    else
      local n = input:dim()
      if n == nd + 2 then c = input:size(2)
      elseif n == nd + 1 and not batchedOnly then c = input:size(1)
      elseif batchedOnly and n == 2 and nd == 1 then c = input:size(2)
      else
        lib.fail(name, 'expected a %dD or %dD input, got %s', nd + 1, nd + 2, nn.utils.describe(input))
      end
    end
    self.nFeatures = self.nFeatures and c
    local s = {}
    for _, f in ipairs(LAZY_FIELDS) do s[f] = { c } end
    return s
  end
end

local function norm_tostring(name, parent)
  return function(self)
    if self._lazy then return name .. '(?)' end
    return (parent.__tostring__(self):gsub('^nn%.[%w_]+', name, 1))
  end
end

for nd = 1, 3 do
  -- nn.LazyBatchNorm<nd>d: numFeatures from dim 2 (1d: N x C or N x C x L; 2d/3d also unbatched C x ...)
  do
    local name = 'nn.LazyBatchNorm' .. nd .. 'd'
    local cls, parent = torch.class(name, 'nn.BatchNorm' .. nd .. 'd')
    cls.__init = function(self, ...)
      local o = P.parse(name, { 'eps', 'momentum', 'affine', 'trackRunningStats' }, ...)
      P.unsupported(name, 'trackRunningStats', o.trackRunningStats, true)
      parent.__init(self, 1, { eps = P.number(name, 'eps', o.eps, 1e-5), momentum = P.number(name, 'momentum', o.momentum, 0.1),
        affine = P.bool(name, 'affine', o.affine, true) })
      empty(self, LAZY_FIELDS)
    end
    add_lazy_methods(cls, parent, name, norm_infer(name, nd, nd == 1))
    cls.__tostring__ = norm_tostring(name, parent)
  end
  -- nn.LazyInstanceNorm<nd>d: numFeatures from the channel dim (C x ... or N x C x ...)
  do
    local name = 'nn.LazyInstanceNorm' .. nd .. 'd'
    local cls, parent = torch.class(name, 'nn.InstanceNorm' .. nd .. 'd')
    cls.__init = function(self, ...)
      local o = P.parse(name, { 'eps', 'momentum', 'affine', 'trackRunningStats' }, ...)
      parent.__init(self, 1, { eps = P.number(name, 'eps', o.eps, 1e-5), momentum = P.number(name, 'momentum', o.momentum, 0.1),
        affine = P.bool(name, 'affine', o.affine, false), trackRunningStats = P.bool(name, 'trackRunningStats',
        o.trackRunningStats, false) })
      empty(self, LAZY_FIELDS)
    end
    local infer = norm_infer(name, nd, false)
    add_lazy_methods(cls, parent, name, function(self, input, tbl)
      local s = infer(self, input, tbl)
      if s then self.nFeatures = s.weight[1] end
      return s
    end)
    cls.__tostring__ = norm_tostring(name, parent)
  end
  -- nn.LazyConvTranspose<nd>d: inChannels from the input's channel dim; weight in x out/groups x k...
  do
    local name = 'nn.LazyConvTranspose' .. nd .. 'd'
    local cls, parent = torch.class(name, 'nn.ConvTranspose' .. nd .. 'd')
    cls.__init = function(self, outChannels, kernelSize, ...)
      local groups = Lazy.groups(name, ...)
      -- built with inChannels = groups (valid for any groups), then the weight emptied
      parent.__init(self, groups, outChannels, kernelSize, ...)
      self.nInputPlane = nil
      empty(self, { 'weight', 'gradWeight' })
    end
    add_lazy_methods(cls, parent, name, function(self, input, tbl)
      local inC
      if tbl then
        if not torch.isTensor(tbl.weight) then return nil end
        inC = tbl.weight:size(1)
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
      local s = { inC, self.nOutputPlane / self.groups }
      for d = 1, nd do s[#s + 1] = self._k[d] end
      return { weight = s, gradWeight = s }
    end)
    cls.__tostring__ = function(self)
      if self._lazy then
        return string.format('%s(? -> %d, kernelSize %s)', name, self.nOutputPlane, table.concat(self._k, 'x'))
      end
      return (parent.__tostring__(self):gsub('^nn%.[%w_]+', name, 1))
    end
  end
end

return nn.LazyBatchNorm2d
