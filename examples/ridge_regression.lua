-- Ridge regression two ways: the closed form (normal equations solved with torch.gesv) and
-- gradient descent on the same loss with autograd. They agree to 1e-4.
--   tocha examples/ridge_regression.lua [--n 500] [--d 10] [--lambda 0.1] [--quick]
-- Loss: L(w, b) = ||X w + b - y||^2 / (2n) + lambda / 2 * ||w||^2   (the bias is not penalized)
local cmd = torch.CmdLine()
cmd:option('--n', 500, 'number of samples')
cmd:option('--d', 10, 'number of features')
cmd:option('--lambda', 0.1, 'L2 penalty')
cmd:option('--quick', false, 'fewer samples (a smoke test)')
local opt = cmd:parse(arg)
if opt.quick then opt.n = 100 end

torch.setdefaulttensortype('torch.DoubleTensor')  -- f64: the comparison is at 1e-4
torch.manualSeed(3)
local n, d, lambda = opt.n, opt.d, opt.lambda

-- Synthetic data: y = X w* + b* + noise, with correlated, unequally scaled features.
local X = torch.randn(n, d) * torch.randn(d, d):mul(0.3):add(torch.eye(d))
local wTrue, bTrue = torch.randn(d), 0.5
local y = X * wTrue + bTrue + torch.randn(n):mul(0.1)

-- 1. Closed form. With centred data the bias decouples: w = (Xc'Xc / n + lambda I)^-1 Xc'yc / n,
-- b = mean(y) - mean(X) w.
local xMean, yMean = X:mean(1), y:mean()
local Xc, yc = X - xMean:expandAs(X), y - yMean
local A = Xc:t() * Xc / n + torch.eye(d) * lambda
local rhs = (Xc:t() * yc / n):view(d, 1)
local wClosed = torch.gesv(rhs, A):view(d)
local bClosed = yMean - torch.dot(xMean:view(d), wClosed)

-- 2. Gradient descent with autograd on the uncentred loss.
local w = torch.zeros(d):requiresGrad()
local b = torch.zeros(1):requiresGrad()
local function loss()
  local r = X * w + b:expand(n) - y
  -- torch.pow(w, 2), not w:pow(2): Torch7's methods work in place (w:pow(2) would square w).
  return torch.pow(r, 2):sum() / (2 * n) + (lambda / 2) * torch.pow(w, 2):sum()
end
-- The step size from the largest curvature: 1 / L with L the top eigenvalue of the Hessian.
local H = torch.cat({ torch.cat({ X:t() * X / n + torch.eye(d) * lambda, (X:sum(1) / n):t() }, 2),
                      torch.cat({ X:sum(1) / n, torch.ones(1, 1) }, 2) }, 1)
local lr = 1 / torch.symeig(H):max()
local steps, value = 0, nil
for step = 1, 20000 do
  local l = loss()
  if w.grad then w.grad:zero(); b.grad:zero() end
  l:backward()
  torch.noGrad(function()
    w:add(-lr, w.grad)
    b:add(-lr, b.grad)
  end)
  steps, value = step, l:item()
  if math.max(w.grad:abs():max(), b.grad:abs():max()) < 1e-9 then break end
end

local function fmt(t) local s = {} for i = 1, math.min(t:nElement(), 5) do s[i] = string.format('%8.5f', t[i]) end return table.concat(s, ' ') end
print(string.format('ridge regression: n = %d, d = %d, lambda = %g', n, d, lambda))
print('closed form       w[1..5] = ' .. fmt(wClosed) .. string.format('   b = %.5f', bClosed))
print('gradient descent  w[1..5] = ' .. fmt(w:detach()) .. string.format('   b = %.5f', b[1]))
print(string.format('gradient descent: %d steps (lr %.4f), final loss %.6f', steps, lr, value))
local diff = math.max((w:detach() - wClosed):abs():max(), math.abs(b[1] - bClosed))
print(string.format('max |difference| = %.2e (tolerance 1e-4)', diff))
if diff > 1e-4 then
  io.stderr:write('the two solutions differ\n')
  os.exit(1)
end
