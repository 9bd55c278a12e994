-- Helpers of the criterion tests: central differences of forward against backward, and the
-- autograd form (crit(input, target):backward()) against backward, for tensor and table inputs.
local check = {}

local function each_tensor(x, fn)
  if torch.isTensor(x) then fn(x) elseif type(x) == 'table' then for _, v in ipairs(x) do each_tensor(v, fn) end end
end

local function flatten(x)
  local list = {}
  each_tensor(x, function(t) list[#list + 1] = t end)
  return list
end

local function clone_leaves(x)
  if torch.isTensor(x) then return x:clone():requiresGrad() end
  local r = {}
  for i, v in ipairs(x) do r[i] = clone_leaves(v) end
  return r
end

--- The gradient of crit:forward(input, target) by central differences, one tensor per input tensor.
function check.numericGrad(crit, input, target, eps)
  eps = eps or 1e-6
  local grads = {}
  each_tensor(input, function(x)
    local g = x:clone():zero()
    local xf, gf = x:view(-1), g:view(-1)
    for i = 1, xf:nElement() do
      local orig = xf[i]
      xf[i] = orig + eps
      local lp = crit:forward(input, target)
      xf[i] = orig - eps
      local lm = crit:forward(input, target)
      xf[i] = orig
      gf[i] = (lp - lm) / (2 * eps)
    end
    grads[#grads + 1] = g
  end)
  return grads
end

--- Checks backward against central differences and the autograd form against backward.
function check.gradients(tester, crit, input, target, name, tol)
  tol = tol or 1e-6
  local loss = crit:forward(input, target)
  tester:assert(type(loss) == 'number', name .. ': forward returns a number')
  local gi = flatten(crit:backward(input, target))
  local saved = {}
  for i, g in ipairs(gi) do saved[i] = g:clone() end
  local num = check.numericGrad(crit, input, target)
  tester:asserteq(#saved, #num, name .. ': one gradient per input tensor')
  for i = 1, #num do
    tester:assertTensorEq(saved[i], num[i], tol, name .. ': gradient ' .. i .. ' vs central differences')
  end
  local leaves = clone_leaves(input)
  local l = crit(leaves, target)
  tester:assert(torch.isTensor(l) and l:dim() == 0, name .. ': crit(input, target) is a 0-dim tensor')
  tester:assertalmosteq(l:item(), loss, 1e-12, name .. ': autograd loss')
  l:backward()
  for i, leaf in ipairs(flatten(leaves)) do
    tester:assertTensorEq(leaf.grad, saved[i], 1e-12, name .. ': autograd gradient ' .. i)
  end
  return loss
end

--- float() and double() criteria give the same loss.
function check.types(tester, make, input, target, name)
  local function conv(x, t)
    if torch.isTensor(x) then return x:type(t) end
    local r = {}
    for i, v in ipairs(x) do r[i] = conv(v, t) end
    return r
  end
  local ld = make():double():forward(conv(input, 'torch.DoubleTensor'), target)
  local lf = make():float():forward(conv(input, 'torch.FloatTensor'), target)
  tester:assertalmosteq(lf, ld, 1e-4 * math.max(1, math.abs(ld)), name .. ': float vs double')
  local c = make()
  c:forward(conv(input, 'torch.DoubleTensor'), target)
  c:backward(conv(input, 'torch.DoubleTensor'), target)
  c:clearState()
end

return check
