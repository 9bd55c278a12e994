-- nn.Jacobian: Torch7's module checks — the Jacobian from backward (updateGradInput /
-- accGradParameters) against finite differences of forward, for inputs and parameters.
local Jacobian = {}
nn.Jacobian = Jacobian

local function flat(t) return t:contiguous():view(-1) end

-- d(output) / d(x) by central differences of module:forward, where x is input or a parameter.
function Jacobian.forward(module, input, param, perturbation)
  param = param or input
  perturbation = perturbation or 1e-6
  local out0 = module:forward(input)
  local nout = out0:nElement()
  local jac = torch.DoubleTensor(param:nElement(), nout):zero()
  for i = 1, param:nElement() do
    local orig = param:view(-1)[i]
    param:view(-1)[i] = orig - perturbation
    local minus = flat(module:forward(input)):double():clone()
    param:view(-1)[i] = orig + perturbation
    local plus = flat(module:forward(input)):double():clone()
    param:view(-1)[i] = orig
    jac[i]:copy(plus:add(-1, minus):div(2 * perturbation))
  end
  return jac
end

-- The same Jacobian from the module's backward pass (one one-hot gradOutput per output element).
function Jacobian.backward(module, input, param, dparam)
  local out = module:forward(input)
  local nout = out:nElement()
  local n = param and param:nElement() or input:nElement()
  local jac = torch.DoubleTensor(n, nout):zero()
  local dout = out.new(out:size()):zero()
  for j = 1, nout do
    dout:zero()
    dout:view(-1)[j] = 1
    if dparam then
      module:zeroGradParameters()
      module:backward(input, dout)
      jac:select(2, j):copy(flat(dparam):double())
    else
      local gi = module:backward(input, dout)
      jac:select(2, j):copy(flat(gi):double())
    end
  end
  return jac
end

--- Jacobian.testJacobian(module, input[, minval, maxval, perturbation]): the largest difference
--- between the input Jacobians of backward and of finite differences (input is refilled at random).
function Jacobian.testJacobian(module, input, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  input:copy(torch.rand(input:nElement()):typeAs(input):mul(maxval - minval):add(minval):viewAs(input))
  local jb = Jacobian.backward(module, input)
  local jf = Jacobian.forward(module, input, input, perturbation)
  return jf:add(-1, jb):abs():max()
end

--- Jacobian.testJacobianParameters(module, input, param, dparam[, minval, maxval, perturbation]):
--- the same for a parameter and its gradient tensor.
function Jacobian.testJacobianParameters(module, input, param, dparam, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  input:copy(torch.rand(input:nElement()):typeAs(input):mul(maxval - minval):add(minval):viewAs(input))
  param:copy(torch.rand(param:nElement()):typeAs(param):mul(maxval - minval):add(minval):viewAs(param))
  local jb = Jacobian.backward(module, input, param, dparam)
  local jf = Jacobian.forward(module, input, param, perturbation)
  return jf:add(-1, jb):abs():max()
end

--- Jacobian.testJacobianUpdateParameters(module, input, param[, minval, maxval, perturbation]):
--- checks accUpdateGradParameters against the parameter Jacobian.
function Jacobian.testJacobianUpdateParameters(module, input, param, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  input:copy(torch.rand(input:nElement()):typeAs(input):mul(maxval - minval):add(minval):viewAs(input))
  param:copy(torch.rand(param:nElement()):typeAs(param):mul(maxval - minval):add(minval):viewAs(param))
  local params0 = param:clone()
  -- accUpdateGradParameters moves every parameter; all are restored before each column.
  local all = module:parameters() or {}
  local saved = {}
  for k, p in ipairs(all) do saved[k] = p:clone() end
  local function restore() for k, p in ipairs(all) do p:copy(saved[k]) end end
  local out = module:forward(input)
  local nout = out:nElement()
  local jb = torch.DoubleTensor(param:nElement(), nout):zero()
  local dout = out.new(out:size()):zero()
  for j = 1, nout do
    restore()
    dout:zero()
    dout:view(-1)[j] = 1
    module:updateGradInput(input, dout)
    module:accUpdateGradParameters(input, dout, 1)
    jb:select(2, j):copy(torch.csub(params0, param):contiguous():view(-1):double())
  end
  restore()
  local jf = Jacobian.forward(module, input, param, perturbation)
  return jf:add(-1, jb):abs():max()
end

--- Jacobian.testIO(module, input): the largest difference of output and gradInput after a
--- save/load round trip of the module.
function Jacobian.testIO(module, input)
  return torch.noGrad(Jacobian._testIO, module, input)
end

function Jacobian._testIO(module, input)
  local out = module:forward(input):clone()
  local go = out.new(out:size()):copy(torch.rand(out:nElement()):typeAs(out):viewAs(out))
  local gi = module:backward(input, go):clone()
  local m2 = torch.deserialize(torch.serialize(module))
  local out2 = m2:forward(input)
  local gi2 = m2:backward(input, go)
  return math.max(torch.csub(out, out2):abs():max(), torch.csub(gi, gi2):abs():max())
end

return Jacobian
