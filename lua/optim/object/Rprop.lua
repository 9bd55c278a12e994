-- optim.Rprop: PyTorch's resilient backpropagation as an optimizer object (per-element step sizes
-- grown or shrunk by the sign of successive gradients), the same fused update as optim.rprop.
local lib = require 'torch.lib'
local fused = require 'optim.fused'

local Rprop, Optimizer = torch.class('optim.Rprop', 'optim.Optimizer')

local kinds = { lr = 'nonneg', etas = 'table', stepSizes = 'table', maximize = 'boolean', foreach = 'boolean' }

-- Note [Rprop object vs optim.rprop]: both run the fused rpropStep kernel, whose rule is
-- torch.optim.Rprop's: with s = sign(g * prev), the step size is multiplied by etaplus (s > 0),
-- etaminus (s < 0) or 1 (s = 0) and clamped to stepSizes; where s < 0 the gradient is taken as
-- 0 (no move, and prev = 0, so the next step neither grows nor shrinks); p -= sign(g) * step
-- size. On the first step prev is 0, so every element moves by lr clamped to stepSizes. The
-- object takes one step per step() with PyTorch's defaults (lr 1e-2, etas {0.5, 1.2}, stepSizes
-- {1e-6, 50}); optim.rprop takes niter steps per call and starts at stepsize 0.1. PyTorch does
-- not check stepSizes; a min above the max (which its clamp would resolve to the max) is refused.

--- optim.Rprop(params, {lr=1e-2, etas={0.5, 1.2}, stepSizes={1e-6, 50}, maximize=false}): Rprop
--- (torch.optim.Rprop): etas = {etaminus, etaplus} with 0 < etaminus < 1 < etaplus, stepSizes =
--- {min, max} bounds of the per-element step size, lr the initial one.
--- Example: local w = torch.ones(2); w.grad = torch.Tensor{1, -2}; optim.Rprop({w}, {lr = 0.01}):step(); print(w)
function Rprop:__init(params, options)
  Optimizer.__init(self, 'Rprop', params, options, kinds,
                   { lr = 1e-2, etas = { 0.5, 1.2 }, stepSizes = { 1e-6, 50 }, maximize = false })
end

local function is_num(v) return type(v) == 'number' and v == v end
local function show(t)
  local r = {}
  for i, v in ipairs(t) do r[i] = tostring(v) end
  return '{' .. table.concat(r, ', ') .. '}'
end

function Rprop:_checkCombination(g)
  local e = g.etas
  if e ~= nil and not (#e == 2 and is_num(e[1]) and is_num(e[2]) and 0 < e[1] and e[1] < 1 and 1 < e[2]
                       and e[2] < math.huge) then
    lib.fail(self._name, 'etas must be {etaminus, etaplus} with 0 < etaminus < 1 < etaplus, got %s', show(e))
  end
  local s = g.stepSizes
  if s ~= nil and not (#s == 2 and is_num(s[1]) and is_num(s[2]) and 0 <= s[1] and s[1] <= s[2]) then
    lib.fail(self._name, 'stepSizes must be {min, max} with 0 <= min <= max, got %s', show(s))
  end
end

function Rprop:_update(p, g, s, group)
  if not s.prev then
    s.step = 0
    s.prev = fused.buffer(p)
    s.stepSize = fused.buffer(p):fill(group.lr)
  end
  s.step = s.step + 1
  if group.maximize then g = torch.noGrad(torch.neg, g) end
  fused.rprop(p, g, s.prev, s.stepSize, group.etas[2], group.etas[1], group.stepSizes[1], group.stepSizes[2])
end
