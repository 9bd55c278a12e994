-- Central finite differences for the suites' gradient checks: the gradient of a scalar function
-- f() (a number or a one-element tensor) with respect to tensor p, by changing p's elements in
-- place with recording off (f itself may record: a gradient penalty takes an input gradient).
local FD = {}

local function value(t) return type(t) == 'number' and t or t:item() end
FD.value = value

function FD.grad(f, p, h)
  h = h or 1e-6
  local g = p.new(p:size()):zero()
  local flat, gflat = p:view(-1), g:view(-1)
  for i = 1, flat:nElement() do
    local v = flat[i]
    torch.noGrad(function() flat[i] = v + h end)
    local lp = value(f())
    torch.noGrad(function() flat[i] = v - h end)
    local lm = value(f())
    torch.noGrad(function() flat[i] = v end)
    gflat[i] = (lp - lm) / (2 * h)
  end
  return g
end

return FD
