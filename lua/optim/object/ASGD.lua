-- optim.ASGD: PyTorch's averaged SGD as an optimizer object: decayed SGD steps with a decreasing
-- step eta, and a running average ax of the parameters that starts after t0 steps.
local fused = require 'optim.fused'

local ASGD, Optimizer = torch.class('optim.ASGD', 'optim.Optimizer')

local kinds = { lr = 'nonneg', lambd = 'nonneg', alpha = 'nonneg', t0 = 'nonneg', weightDecay = 'nonneg',
                maximize = 'boolean', foreach = 'boolean' }

-- Note [ASGD object vs optim.asgd]: the rule is torch.optim.ASGD's, which is Torch7's with
-- PyTorch's names (eta0 -> lr, lambda -> lambd) plus weightDecay and maximize:
--   g' = (maximize and -g or g) + weightDecay*p;  p = p*(1 - lambd*eta) - eta*g'
--   ax = p if mu == 1, else ax + mu*(p - ax)
--   then, with t the step count: eta = lr/(1 + lambd*lr*t)^alpha, mu = 1/max(1, t - t0).
-- The state is {step, eta, mu, ax}. PyTorch 1.13 keeps eta and mu in float32 tensors; here they
-- are Lua numbers (doubles), so float64 parameters follow PyTorch run with float64 as default
-- dtype, and float32 ones differ from PyTorch's by eta's rounding (relative 1e-8). There is no
-- fused kernel: the update is tensor ops under torch.noGrad, in place, on any device. Unlike
-- optim.asgd, the defaults are not written back into a config table.

--- optim.ASGD(params, {lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weightDecay=0, maximize=false}):
--- averaged SGD (torch.optim.ASGD); opt:averaged(p) (or the state's ax) is p's running average.
--- Example: local w = torch.ones(2); w.grad = torch.Tensor{1, -2}; optim.ASGD({w}, {lr = 0.1, t0 = 5}):step(); print(w)
function ASGD:__init(params, options)
  Optimizer.__init(self, 'ASGD', params, options, kinds,
                   { lr = 1e-2, lambd = 1e-4, alpha = 0.75, t0 = 1e6, weightDecay = 0, maximize = false })
end

local function update(p, g, s, group)
  if group.maximize then g = torch.neg(g) end
  -- the decay reads p before this step's changes, as torch.optim.ASGD's grad.add(param) does
  if group.weightDecay ~= 0 then g = torch.add(g, group.weightDecay, p) end
  p:mul(1 - group.lambd * s.eta):add(-s.eta, g)
  if s.mu ~= 1 then
    s.ax:add(s.mu, torch.add(p, -1, s.ax))
  else
    s.ax:copy(p)
  end
end

function ASGD:_update(p, g, s, group)
  if not s.ax then
    s.step = 0
    s.eta = group.lr
    s.mu = 1
    s.ax = fused.buffer(p)  -- float for half parameters (Note [Optimizer state dtype])
  end
  s.step = s.step + 1
  torch.noGrad(update, p, g, s, group)
  s.eta = group.lr / math.pow(1 + group.lambd * group.lr * s.step, group.alpha)
  s.mu = 1 / math.max(1, s.step - group.t0)
end

--- opt:averaged(p): the running average ax of parameter p (nil before p's first step).
--- Example: local w = torch.ones(2); w.grad = torch.ones(2); local o = optim.ASGD({w}); o:step(); print(o:averaged(w))
function ASGD:averaged(p)
  local s = self._state[p]
  return s and s.ax
end
