-- optim.checkgrad: compares opfunc's gradient with central finite differences.
local lib = require 'torch.lib'
local cfg = require 'optim.config'

--- optim.checkgrad(opfunc, x[, eps]): the relative error |dC - dC_est| / |dC + dC_est| between the
--- gradient opfunc(x) returns and central differences with step eps (1e-7; use double tensors);
--- also returns both gradients. x is restored afterwards.
--- Example: optim.checkgrad(function(x) return x:dot(x), x * 2 end, torch.DoubleTensor{1, 2})
function optim.checkgrad(opfunc, x, eps)
  eps = eps or 1e-7
  if type(eps) ~= 'number' or not (eps > 0) then lib.fail('optim.checkgrad', 'eps must be positive, got %s', tostring(eps)) end
  local _, g = cfg.evaluate('checkgrad', opfunc, x)
  local dC = g:clone():view(x:size())
  local dC_est = dC.new(dC:size())
  local xf, ef = x:view(-1), dC_est:view(-1)
  for i = 1, xf:size(1) do
    local v = xf[i]
    xf[i] = v + eps
    local C1 = cfg.number((opfunc(x)))
    xf[i] = v - eps
    local C2 = cfg.number((opfunc(x)))
    xf[i] = v
    ef[i] = (C1 - C2) / (2 * eps)
  end
  local diff = torch.norm(dC - dC_est) / torch.norm(dC + dC_est)
  return diff, dC, dC_est
end
