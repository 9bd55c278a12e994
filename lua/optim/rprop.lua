-- optim.rprop: Torch7's resilient propagation (per-element step sizes adapted from the sign of
-- successive gradients), one fused update per iteration.
local cfg = require 'optim.config'
local fused = require 'optim.fused'
local lib = require 'torch.lib'

cfg.register('rprop', {
  stepsize = 'any', etaplus = 'nonneg', etaminus = 'nonneg', stepsizemax = 'nonneg', stepsizemin = 'nonneg',
  niter = 'count',
}, { 'delta', 'sign', 'psign', 'nsign', 'zsign', 'dminmax' })

--- optim.rprop(opfunc, x[, config][, state]): niter Rprop iterations on x (in place). Config:
--- stepsize (0.1, initial step of every element), etaplus (1.2), etaminus (0.5), stepsizemax (50),
--- stepsizemin (1e-6), niter (1). State: delta (last gradient), stepsize (a tensor once started,
--- as in Torch7). Returns x, {f(x) at each iteration}.
--- Example: local x = torch.Tensor{1, 2}; optim.rprop(function(x) return x:dot(x), x * 2 end, x)
function optim.rprop(opfunc, x, config, state)
  config, state = cfg.check('rprop', config, state)
  local stepsize = config.stepsize or 0.1
  local etaplus = config.etaplus or 1.2
  local etaminus = config.etaminus or 0.5
  local stepsizemax = config.stepsizemax or 50.0
  local stepsizemin = config.stepsizemin or 1e-6
  local niter = config.niter or 1
  local hfx = {}
  for _ = 1, niter do
    local fx, dfdx = cfg.evaluate('rprop', opfunc, x)
    if not state.delta then
      if type(stepsize) ~= 'number' or not (stepsize > 0) then
        lib.fail('optim.rprop', 'stepsize must be a positive number, got %s', tostring(stepsize))
      end
      state.delta = fused.buffer(dfdx)
      state.stepsize = fused.buffer(dfdx):fill(stepsize)
    end
    fused.rprop(x, dfdx, state.delta, state.stepsize, etaplus, etaminus, stepsizemin, stepsizemax)
    hfx[#hfx + 1] = fx
  end
  return x, hfx
end
