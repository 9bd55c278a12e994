-- nn.SparseJacobian: Torch7's Jacobian checks for modules on sparse input (nn.SparseLinear's nnz x 2
-- tensor of {index, value} rows): the derivatives are taken with respect to the values (column
-- 2), by central differences of forward and from the module's backward, as in Torch7's
-- SparseJacobian.lua; the parameter checks are those of nn.Jacobian.
local S = require 'nn.support'
local SparseJacobian = {}
nn.SparseJacobian = SparseJacobian

local NAME = 'nn.SparseJacobian'

local function check_input(input)
  if not torch.isTensor(input) or input:dim() ~= 2 or input:size(2) ~= 2 then
    S.fail(NAME, 'expected an nnz x 2 tensor of {index, value} rows, got %s', S.describe(input))
  end
end

local function flat(t) return t:contiguous():view(-1) end

-- The gradient for each value of input (nnz) from a module's gradInput: the nnz x 2 form (Torch7's
-- old nn.SparseLinear), or the dense {index, value} rows of every input index (doGradInput), in a
-- table of one sample or not.
local function value_grads(din, input)
  if type(din) == 'table' and not torch.isTensor(din) then din = din[1] end
  if not torch.isTensor(din) or din:dim() ~= 2 or din:size(2) ~= 2 then
    S.fail(NAME, 'the module gave no gradient for the input (%s): build nn.SparseLinear with doGradInput = true',
      S.describe(din))
  end
  local idx = input:select(2, 1)
  if din:size(1) == input:size(1) and torch.eq(din:select(2, 1):double(), idx:double()):all() then
    return din:select(2, 2):double()
  end
  local pos = torch.LongTensor(idx:nElement()):copy(idx)
  return din:select(2, 2):double():index(1, pos)
end

--- nn.SparseJacobian.backward(module, input[, param, dparam]): the Jacobian (nnz x nOutput, or
--- param:nElement() x nOutput) from module's backward, one one-hot gradOutput per output element.
--- Example: local m = nn.SparseLinear(5, 2, true):double(); nn.SparseJacobian.backward(m, torch.DoubleTensor{{1, 0.5}, {4, -1}})
function SparseJacobian.backward(module, input, param, dparam)
  check_input(input)
  local out = module:forward(input)
  local nout = out:nElement()
  local jac = torch.DoubleTensor(param and param:nElement() or input:size(1), nout):zero()
  local dout = out.new(out:size()):zero()
  for j = 1, nout do
    dout:zero()
    dout:view(-1)[j] = 1
    module:zeroGradParameters()
    local din = module:updateGradInput(input, dout)
    module:accGradParameters(input, dout)
    if param then
      jac:select(2, j):copy(flat(dparam):double())
    else
      jac:select(2, j):copy(value_grads(din, input))
    end
  end
  return jac
end

--- nn.SparseJacobian.backwardUpdate(module, input, param): the Jacobian of the updated param
--- through accUpdateGradParameters(input, oneHot, 1), restoring the parameters after each row.
--- Example: local m = nn.SparseLinear(5, 2):double(); nn.SparseJacobian.backwardUpdate(m, torch.DoubleTensor{{1, 0.5}}, m.bias)
function SparseJacobian.backwardUpdate(module, input, param)
  check_input(input)
  local out = module:forward(input)
  local nout = out:nElement()
  local jac = torch.DoubleTensor(param:nElement(), nout):zero()
  local dout = out.new(out:size()):zero()
  local params = module:parameters()
  local orig = {}
  for k = 1, #params do orig[k] = params[k]:clone() end
  for j = 1, nout do
    for k = 1, #params do params[k]:copy(orig[k]) end
    dout:zero()
    dout:view(-1)[j] = 1
    module:zeroGradParameters()
    module:updateGradInput(input, dout)
    module:accUpdateGradParameters(input, dout, 1)
    jac:select(2, j):copy(flat(param):double())
  end
  for k = 1, #params do params[k]:copy(orig[k]) end
  return jac
end

--- nn.SparseJacobian.forward(module, input[, param, perturbation = 1e-6]): the same Jacobian by
--- central differences of forward, perturbing the input's values (or param).
--- Example: local m = nn.SparseLinear(5, 2):double(); nn.SparseJacobian.forward(m, torch.DoubleTensor{{1, 0.5}, {4, -1}})
function SparseJacobian.forward(module, input, param, perturbation)
  check_input(input)
  local small = perturbation or 1e-6
  local x
  if param then x = flat(param) else x = input:select(2, 2) end
  local nout = module:forward(input):nElement()
  local jac = torch.DoubleTensor(x:nElement(), nout)
  for i = 1, x:nElement() do
    local orig = x[i]
    x[i] = orig - small
    local minus = flat(module:forward(input)):double():clone()
    x[i] = orig + small
    local plus = flat(module:forward(input)):double():clone()
    x[i] = orig
    jac[i]:copy(plus:add(-1, minus):div(2 * small))
  end
  return jac
end

--- nn.SparseJacobian.forwardUpdate(module, input, param[, perturbation]): Torch7's finite-difference
--- counterpart of backwardUpdate: param - d(output)/d(param), row by row.
--- Example: local m = nn.SparseLinear(5, 2):double(); nn.SparseJacobian.forwardUpdate(m, torch.DoubleTensor{{1, 0.5}}, m.bias)
function SparseJacobian.forwardUpdate(module, input, param, perturbation)
  local jac = SparseJacobian.forward(module, input, param, perturbation)
  local p = flat(param):double()
  for i = 1, jac:size(1) do jac[i]:mul(-1):add(p[i]) end
  return jac
end

local function randomize(x, minval, maxval)
  minval, maxval = minval or -2, maxval or 2
  x:copy(torch.rand(x:nElement()):mul(maxval - minval):add(minval):typeAs(x))
end

--- nn.SparseJacobian.testJacobian(module, input[, minval = -2, maxval = 2]): fills the input's
--- values uniformly in [minval, maxval] and returns the largest gap between the two Jacobians.
--- Example: local m = nn.SparseLinear(5, 2, true):double(); nn.SparseJacobian.testJacobian(m, torch.DoubleTensor{{1, 0}, {3, 0}})
function SparseJacobian.testJacobian(module, input, minval, maxval)
  check_input(input)
  randomize(input:select(2, 2), minval, maxval)
  local jf = SparseJacobian.forward(module, input)
  local jb = SparseJacobian.backward(module, input)
  return (jf - jb):abs():max()
end

--- nn.SparseJacobian.testJacobianParameters(module, input, param, dparam[, minval, maxval]): the
--- same for a parameter and its gradient (both randomized first, as in Torch7).
--- Example: local m = nn.SparseLinear(5, 2):double(); nn.SparseJacobian.testJacobianParameters(m, torch.DoubleTensor{{1, 0}}, m.bias, m.gradBias)
function SparseJacobian.testJacobianParameters(module, input, param, dparam, minval, maxval)
  check_input(input)
  randomize(input:select(2, 2), minval, maxval)
  randomize(param, minval, maxval)
  local jb = SparseJacobian.backward(module, input, param, dparam)
  local jf = SparseJacobian.forward(module, input, param)
  return (jf - jb):abs():max()
end

--- nn.SparseJacobian.testJacobianUpdateParameters(module, input, param[, minval, maxval]): the
--- largest gap between the updated parameters of backwardUpdate and forwardUpdate.
--- Example: local m = nn.SparseLinear(5, 2):double(); nn.SparseJacobian.testJacobianUpdateParameters(m, torch.DoubleTensor{{1, 0}}, m.bias)
function SparseJacobian.testJacobianUpdateParameters(module, input, param, minval, maxval)
  check_input(input)
  randomize(input:select(2, 2), minval, maxval)
  randomize(param, minval, maxval)
  local pb = SparseJacobian.backwardUpdate(module, input, param)
  local pf = SparseJacobian.forwardUpdate(module, input, param)
  return (pf - pb):abs():max()
end

--- nn.SparseJacobian.testIO(module, input[, minval, maxval]): saves and reloads module; returns the
--- largest output and gradInput differences between the two (Torch7 wrote tmp.bin in the current
--- directory; this writes a temporary file and removes it).
--- Example: local m = nn.SparseLinear(5, 2, true):double(); nn.SparseJacobian.testIO(m, torch.DoubleTensor{{1, 0.5}})
function SparseJacobian.testIO(module, input, minval, maxval)
  check_input(input)
  minval, maxval = minval or -2, maxval or 2
  module:forward(input)
  local go = module.output:clone()
  randomize(go, minval, maxval)
  local function run(m)
    m:forward(input)
    m:zeroGradParameters()
    local gi = m:updateGradInput(input, go)
    m:accGradParameters(input, go)
    if type(gi) == 'table' and not torch.isTensor(gi) then gi = gi[1] end
    return m.output:detach():clone(), gi and gi:detach():clone()
  end
  local fo, bo = run(module)
  local path = os.tmpname()
  torch.save(path, module)
  local copy = torch.load(path)
  os.remove(path)
  local fo2, bo2 = run(copy)
  local errb = (bo and bo2) and (bo - bo2):abs():max() or 0
  return (fo - fo2):abs():max(), errb
end

return SparseJacobian
