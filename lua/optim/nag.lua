-- optim.nag: Torch7's Nesterov accelerated gradient (Sutskever et al. 2013): the gradient is
-- taken at x + momentum*v, then v = momentum*v - lr*g and x += v.
local cfg = require 'optim.config'
local fused = require 'optim.fused'
local lib = require 'torch.lib'

cfg.register('nag', {
  learningRate = 'nonneg', learningRateDecay = 'nonneg', weightDecay = 'nonneg', momentum = 'nonneg',
  dampening = 'number', learningRates = 'tensor',
}, { 'evalCounter', 'dfdx', 'x_copy', 'deltaParameters', 'decayedGrad' })

local function update(x, dfdx, state, clr, mom, wd, lrs)
  local g = dfdx
  if wd ~= 0 then  -- Torch7 added the decay into dfdx itself; a state buffer leaves it intact
    state.decayedGrad = state.decayedGrad or fused.buffer(dfdx)
    g = state.decayedGrad:copy(dfdx):add(wd, x)
  end
  if not state.dfdx then state.dfdx = fused.buffer(dfdx) else state.dfdx:mul(mom) end
  if lrs then
    state.deltaParameters = state.deltaParameters or fused.buffer(dfdx)
    state.dfdx:add(-clr, state.deltaParameters:copy(lrs):cmul(g))
  else
    state.dfdx:add(-clr, g)
  end
  state.x_copy:add(state.dfdx)
  x:copy(state.x_copy)
end

--- optim.nag(opfunc, x[, config][, state]): one step of Nesterov's accelerated gradient on x (in
--- place; opfunc is evaluated at the look-ahead point x + momentum*v). Config: learningRate
--- (1e-3), learningRateDecay, weightDecay, momentum (0.9, must be > 0), learningRates (per-element
--- tensor). Returns x, {f(look-ahead point)}.
--- Example: local x = torch.Tensor{1, 2}; optim.nag(function(x) return x:dot(x), x * 2 end, x, {learningRate = 0.1})
function optim.nag(opfunc, x, config, state)
  config, state = cfg.check('nag', config, state)
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local mom = config.momentum or 0.9
  local lrs = config.learningRates
  if mom <= 0 then lib.fail('optim.nag', 'momentum must be positive for Nesterov accelerated gradient, got %s', mom) end
  cfg.checkX('nag', x)
  cfg.checkPerElement('nag', 'learningRates', lrs, x)
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter

  if not state.x_copy then state.x_copy = x:clone() else state.x_copy:resizeAs(x):copy(x) end
  if state.dfdx then torch.noGrad(x.add, x, mom, state.dfdx) end
  local fx, dfdx = cfg.evaluate('nag', opfunc, x)

  local clr = lr / (1 + nevals * lrd)
  torch.noGrad(update, x, dfdx, state, clr, mom, wd, lrs)
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
