-- torch.reluBackward(g, y): relu's gradient in one pass (g where y > 0, else 0; a NaN y passes g
-- through), used by nn.ReLU's backward and autograd's relu gradient. Checked against the two-pass
-- sign-and-multiply form it replaced, in every float type, in place and into a result, through
-- nn.ReLU (plain and in place) and through autograd, including createGraph (which keeps the
-- recorded form so second derivatives still flow).
local tester = torch.Tester()
local tests = {}

local function two_pass(g, y) return torch.cmul(g, torch.sign(y)) end

function tests.matchesSignTimesGradient()
  for _, ty in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    local y = torch.relu(torch.randn(7, 5)):type(ty)
    local g = torch.randn(7, 5):type(ty)
    tester:assertTensorEq(torch.reluBackward(g, y):double(), two_pass(g, y):double(), 0, ty)
  end
  tester:eq(torch.reluBackward(torch.Tensor({ 1, 2, 3, 4 }), torch.Tensor({ 0, 3, -1, 0 / 0 })):totable(),
    { 0, 2, 0, 4 }, 'zero and negative outputs block, NaN passes the gradient')
end

function tests.resultAndInPlaceForms()
  local y, g = torch.relu(torch.randn(6)), torch.randn(6)
  local expect = two_pass(g, y)
  local res = torch.Tensor()
  tester:assert(torch.reluBackward(res, g, y) == res, 'res form returns res')
  tester:assertTensorEq(res, expect, 0)
  local g2 = g:clone()
  torch.reluBackward(g2, g2, y)
  tester:assertTensorEq(g2, expect, 0, 'in place into the gradient')
  tester:assertTensorEq(g:reluBackward(y), expect, 0, 'method form')
  tester:assertErrorPattern(function() torch.reluBackward(g, torch.randn(5)) end, 'reluBackward')
end

function tests.nnReLUBackward()
  for _, inplace in ipairs({ false, true }) do
    local x = torch.randn(4, 9)
    local m = nn.ReLU(inplace)
    local y = m:forward(inplace and x:clone() or x):clone()
    local go = torch.randn(4, 9)
    local gi = m:backward(x, go:clone())
    tester:assertTensorEq(gi, torch.cmul(go, torch.gt(x, 0):double()), 0, 'inplace ' .. tostring(inplace))
    tester:assertTensorEq(y, torch.cmax(x, 0), 0)
  end
end

function tests.autogradRelu()
  local x = torch.randn(10):requiresGrad()
  torch.mul(torch.relu(x), 3):sum():backward()
  tester:assertTensorEq(x.grad, torch.gt(x:detach(), 0):double():mul(3), 0)
  -- createGraph records the backward (mul by sign), so the gradient is itself differentiable
  local z = torch.randn(6):requiresGrad()
  local y = torch.pow(torch.relu(z), 2):sum()
  local gz = torch.autograd.grad(y, z, nil, { createGraph = true })
  gz = type(gz) == 'table' and gz[1] or gz
  tester:assert(gz:requiresGrad(), 'createGraph keeps the relu gradient recorded')
  gz:sum():backward()
  tester:assertTensorEq(z.grad, torch.gt(z:detach(), 0):double():mul(2), 1e-12, 'second derivative of relu(z)^2')
end

require 'nn'
tester:add(tests)
tester:run()
