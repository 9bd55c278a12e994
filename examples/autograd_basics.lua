-- Autograd in a few steps: gradients of scalar functions, the chain rule through views and
-- broadcasting, accumulation, torch.noGrad, higher-order gradients, hooks, and a numerical check.
--   tocha examples/autograd_basics.lua [--quick]
-- Every result is checked against a formula; the script fails if one is off.
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1)
local failures = 0
local function check(name, got, want, tol)
  local err = torch.isTensor(got) and (got:detach() - want):abs():max() or math.abs(got - want)
  local ok = err <= (tol or 1e-10)
  if not ok then failures = failures + 1 end
  print(string.format('%-52s %s (error %.1e)', name, ok and 'ok' or 'WRONG', err))
end

-- 1. y = sum(x^2 + 3x): dy/dx = 2x + 3. A full reduction of a tensor that requires grad is a
-- 0-dim tensor (not a number), so that backward() can start from it.
local x = torch.Tensor({ 1, 2, 3 }):requiresGrad()
local y = (torch.pow(x, 2) + x * 3):sum()
y:backward()
check('d/dx sum(x^2 + 3x) = 2x + 3', x.grad, x:detach() * 2 + 3)

-- 2. Gradients accumulate into .grad until zeroed (nn and optim rely on it).
y = (x * 2):sum()
y:backward()
check('a second backward adds 2 to each gradient', x.grad, x:detach() * 2 + 5)
x.grad:zero()

-- 3. Matrices, broadcasting and the chain rule: L = sum(relu(W x + b)) for a batch of inputs.
local W = torch.randn(4, 3):requiresGrad()
local b = torch.randn(4):requiresGrad()
local X = torch.randn(5, 3)                          -- 5 samples as rows
local Z = X * W:t() + b:view(1, 4)                    -- 5 x 4; b broadcasts over the rows
local L = torch.relu(Z):sum()
L:backward()
local mask = Z:detach():gt(0):double()                -- relu' = 1 where z > 0
check('dL/dW = mask^T X', W.grad, mask:t() * X)
check('dL/db = column sums of mask (unbroadcast)', b.grad, mask:sum(1):view(4))

-- 4. torch.autograd.grad returns gradients without touching .grad; createGraph = true records the
-- backward pass itself, so it can be differentiated again: d2/dt2 t^3 = 6t.
local t = torch.Tensor({ 2 }):requiresGrad()
local g = torch.autograd.grad(torch.pow(t, 3):sum(), t, nil, { createGraph = true })
check('d/dt t^3 = 3t^2', g, torch.Tensor({ 12 }))
local g2 = torch.autograd.grad(g:sum(), t)
check('d2/dt2 t^3 = 6t', g2, torch.Tensor({ 12 }))

-- 5. No recording under torch.noGrad: the result has no history and a full reduction is a number.
local s = torch.noGrad(function() return (W * 2):sum() end)
print(string.format('%-52s %s', 'under torch.noGrad a sum is a plain', type(s)))
if type(s) ~= 'number' then failures = failures + 1 end

-- 6. Hooks see (and may replace) a gradient as it flows: here, clip it to [-1, 1].
local v = torch.Tensor({ -3, 0.5, 4 }):requiresGrad()
local h = v * 1
h:registerHook(function(grad) return grad:clamp(-1, 1) end)
torch.pow(h, 2):sum():backward()                     -- raw gradient 2h = {-6, 1, 8}
check('a hook clipped the gradient to [-1, 1]', v.grad, torch.Tensor({ -1, 1, 1 }))

-- 7. A pitfall from Torch7's conventions: x:f() works in place, torch.f(x) allocates. Writing
-- w:pow(2) in a loss would square the parameter itself; write torch.pow(w, 2).
local w = torch.Tensor({ 3 })
local _ = torch.pow(w, 2)
check('torch.pow(w, 2) leaves w alone', w[1], 3)

-- 8. gradcheck compares the analytic gradient with central differences (f64).
local function f(a, c) return torch.sigmoid(a * c):sum() end
local ok = torch.autograd.gradcheck(f, { torch.randn(3, 3):requiresGrad(), torch.randn(3, 2):requiresGrad() })
print(string.format('%-52s %s', 'gradcheck of sum(sigmoid(A C))', ok and 'ok' or 'WRONG'))
if not ok then failures = failures + 1 end

if failures > 0 then
  io.stderr:write(failures .. ' check(s) failed\n')
  os.exit(1)
end
print('all autograd checks passed')
