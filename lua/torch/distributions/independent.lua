-- torch.distributions.Independent: reinterprets the rightmost batch dims of a distribution as
-- event dims, so logProb and entropy sum over them.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions

local Independent = torch.class('torch.distributions.Independent', 'torch.distributions.Distribution', D)

--- torch.distributions.Independent(base, reinterpretedBatchNdims [, {validateArgs=}]): base with
--- its last reinterpretedBatchNdims batch dims moved to the event shape; e.g.
--- Independent(Normal(torch.zeros(3), 1), 1) is a 3-vector of independent normals, whose
--- logProb sums the three.
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(3), 1), 1):logProb(torch.zeros(3))
function Independent:__init(base, k, opts)
  local op = self:_op()
  if not torch.isTypeOf(base, 'torch.distributions.Distribution') then
    util.fail(op, 'base must be a distribution, got %s', util.describe(base))
  end
  local nb = #base.batchShape
  if type(k) ~= 'number' or k ~= math.floor(k) or k < 0 or k > nb then
    util.fail(op, 'reinterpretedBatchNdims must be an integer in [0, %d] (base batch shape %s), got %s', nb,
      util.shape_str(base.batchShape), tostring(k))
  end
  if opts ~= nil then
    if type(opts) ~= 'table' then util.fail(op, 'options must be a table {validateArgs=}, got %s', util.describe(opts)) end
    for key in pairs(opts) do
      if key ~= 'validateArgs' then util.fail(op, 'unknown option %s (expected validateArgs)', tostring(key)) end
    end
  end
  self.baseDist, self.reinterpretedBatchNdims = base, k
  self.hasRsample = base.hasRsample
  -- no enumeration of the cartesian product over reinterpreted dims (as PyTorch)
  self.hasEnumerateSupport = k == 0 and base.hasEnumerateSupport or false
  local v = opts and opts.validateArgs
  if v == nil then v = base.validateArgs end
  self:_setup(util.slice(base.batchShape, 1, nb - k), util.cat(util.slice(base.batchShape, nb - k + 1, nb), base.eventShape), v)
end
function Independent:_expandParts(new, shape)
  local nb, k = #self.baseDist.batchShape, self.reinterpretedBatchNdims
  new.baseDist = self.baseDist:expand(util.cat(shape, util.slice(self.baseDist.batchShape, nb - k + 1, nb)))
end
--- Independent:support(): the base's support.
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1), 1):support().desc
function Independent:support() return self.baseDist:support() end

--- Independent:sample([sampleShape]): the base's draws; rsample too when the base has it.
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1), 1):sample({3})
function Independent:sample(shape)
  -- checked here, so that errors name Independent rather than its base
  return self.baseDist:sample(util.sample_shape(self:_op(), shape))
end
--- Independent:rsample([sampleShape]): the base's rsample (an error when the base has none).
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1), 1):rsample({3})
function Independent:rsample(shape)
  if not self.hasRsample then return D.Distribution.rsample(self) end
  return self.baseDist:rsample(util.sample_shape(self:_op(), shape))
end
--- Independent:enumerateSupport([expand = true]): the base's, when no batch dims are
--- reinterpreted (hasEnumerateSupport); an error otherwise.
--- Example: torch.distributions.Independent(torch.distributions.Bernoulli(torch.Tensor({0.5, 0.2})), 0):enumerateSupport()
function Independent:enumerateSupport(expand)
  if self.reinterpretedBatchNdims > 0 then
    util.fail(self:_op(), 'enumerateSupport over the cartesian product of %d reinterpreted dims is not implemented',
      self.reinterpretedBatchNdims)
  end
  if not self.hasEnumerateSupport then return D.Distribution.enumerateSupport(self) end
  return self.baseDist:enumerateSupport(expand)
end
--- Independent:logProb(value): the base's logProb summed over the reinterpreted dims.
--- Example: torch.distributions.Independent(torch.distributions.Bernoulli(torch.Tensor({0.5, 0.2})), 1):logProb(torch.Tensor({1, 0}))
function Independent:logProb(value)
  return util.sum_rightmost(self.baseDist:logProb(value), self.reinterpretedBatchNdims)
end
--- Independent:entropy(): the base's entropy summed over the reinterpreted dims.
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1), 1):entropy()
function Independent:entropy() return util.sum_rightmost(self.baseDist:entropy(), self.reinterpretedBatchNdims) end
--- Independent:mean(): the base's mean (variance(), mode() too).
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1), 1):mean()
function Independent:mean() return self.baseDist:mean() end
--- Independent:variance(): the base's variance.
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 2), 1):variance()
function Independent:variance() return self.baseDist:variance() end
--- Independent:mode(): the base's mode.
--- Example: torch.distributions.Independent(torch.distributions.Normal(torch.zeros(2), 1), 1):mode()
function Independent:mode() return self.baseDist:mode() end
function Independent:__tostring__()
  return string.format('Independent(%s, %d)', tostring(self.baseDist), self.reinterpretedBatchNdims)
end

return Independent
