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

--- Jacobian.testIO(module, input[, minval, maxval]): the largest difference of output and
--- gradInput after a save/load round trip of the module (gradOutput drawn from [minval, maxval] =
--- [-2, 2]), and second the gradInput's alone: Torch7's `local ferr, berr = jac.testIO(m, x)` gets
--- 0, 0 when all is well.
--- Example: local err, berr = nn.Jacobian.testIO(nn.Linear(3, 2), torch.randn(4, 3))
function Jacobian.testIO(module, input, minval, maxval)
  return torch.noGrad(Jacobian._testIO, module, input, minval, maxval)
end

-- Note [testIO on in-place modules]: the loaded copy runs on clones of the input and gradOutput
-- taken before the module's own run (as Torch7 does): an in-place module overwrites its input in
-- forward and its gradOutput in backward, and the copy would have run on other values.
function Jacobian._testIO(module, input, minval, maxval)
  minval, maxval = minval or -2, maxval or 2
  local input2 = input:clone()
  local out = module:forward(input):clone()
  local go = out.new(out:size()):copy(torch.rand(out:nElement()):typeAs(out):mul(maxval - minval):add(minval):viewAs(out))
  local go2 = go:clone()
  module:zeroGradParameters()
  local gi = module:backward(input, go):clone()
  local m2 = torch.deserialize(torch.serialize(module))
  local out2 = m2:forward(input2):clone()
  m2:zeroGradParameters()
  local gi2 = m2:backward(input2, go2)
  local ferr = out:nElement() > 0 and torch.csub(out, out2):abs():max() or 0
  local berr = gi:nElement() > 0 and torch.csub(gi, gi2):abs():max() or 0
  return math.max(ferr, berr), berr
end

--- Jacobian.backwardUpdate(module, input, param): column j holds param after
--- accUpdateGradParameters(input, e_j, 1) from its current value (e_j: the j-th output element's
--- one-hot gradOutput), i.e. param - d output_j / d param (Torch7); parameters are restored.
--- Example: local m = nn.Linear(3, 2); local jb = nn.Jacobian.backwardUpdate(m, torch.randn(3), m.weight)
function Jacobian.backwardUpdate(module, input, param)
  local out = module:forward(input)
  local params = module:parameters() or {}
  local saved = {}
  for k, p in ipairs(params) do saved[k] = p:clone() end
  local dout = out.new(out:size()):zero()
  local jac = torch.DoubleTensor(param:nElement(), out:nElement()):zero()
  for j = 1, out:nElement() do
    for k, p in ipairs(params) do p:copy(saved[k]) end
    dout:zero()
    dout:view(-1)[j] = 1
    module:updateGradInput(input, dout)
    module:accUpdateGradParameters(input, dout, 1)
    jac:select(2, j):copy(flat(param):double())
  end
  for k, p in ipairs(params) do p:copy(saved[k]) end
  return jac
end

--- Jacobian.forwardUpdate(module, input, param[, perturbation]): the same from finite differences,
--- param - d output / d param (Torch7).
--- Example: local m = nn.Linear(3, 2); local jf = nn.Jacobian.forwardUpdate(m, torch.randn(3), m.weight)
function Jacobian.forwardUpdate(module, input, param, perturbation)
  local jac = Jacobian.forward(module, input, param, perturbation):mul(-1)
  jac:add(flat(param):double():view(-1, 1):expandAs(jac))
  return jac
end

--- Jacobian.testAllUpdate(module, input, weight, gradWeight): Torch7's check of the update paths
--- for the parameter named weight (and its gradient named gradWeight): accGradParameters +
--- updateParameters, accUpdateGradParameters, and both on two clones sharing the parameter
--- (which must then move twice as far). Returns a table of four error norms; the shared checks
--- assume a gradient that does not depend on the parameter (Linear, CMul...).
--- Example: local errs = nn.Jacobian.testAllUpdate(nn.Linear(3, 2), torch.randn(4, 3), 'weight', 'gradWeight')
function Jacobian.testAllUpdate(module, input, weight, gradWeight)
  local lr = torch.uniform(0.1, 1)
  local errors = {}
  local function norm(t) return t:norm() end
  local a = module:clone()
  local w0 = a[weight]:clone()
  local out = a:forward(input)
  local go = out.new(out:size()):copy(torch.rand(out:nElement()):typeAs(out):viewAs(out))
  a:zeroGradParameters()
  a:updateGradInput(input, go)
  a:accGradParameters(input, go)
  a:updateParameters(lr)
  local step = a[gradWeight]:clone()
  errors.accGradParameters = norm(w0 - step * lr - a[weight])
  local u = module:clone()
  u:forward(input)
  u:updateGradInput(input, go)
  u:accUpdateGradParameters(input, go, lr)
  errors.accUpdateGradParameters = norm(u[weight] - a[weight])
  local s1, s2 = module:clone(), module:clone()
  s2:share(s1, weight)
  for _, m in ipairs({ s1, s2 }) do m:forward(input); m:zeroGradParameters(); m:updateGradInput(input, go) end
  s1:accGradParameters(input, go); s2:accGradParameters(input, go)
  s1:updateParameters(lr); s2:updateParameters(lr)
  errors['accGradParameters [shared]'] = norm(w0 - step * (2 * lr) - s1[weight]) + norm(w0 - step * (2 * lr) - s2[weight])
  local t1, t2 = module:clone(), module:clone()
  t2:share(t1, weight)
  for _, m in ipairs({ t1, t2 }) do m:forward(input); m:updateGradInput(input, go) end
  t1:accUpdateGradParameters(input, go, lr); t2:accUpdateGradParameters(input, go, lr)
  errors['accUpdateGradParameters [shared]'] = norm(w0 - step * (2 * lr) - t1[weight]) + norm(w0 - step * (2 * lr) - t2[weight])
  for k, v in pairs(errors) do if torch.isTensor(v) then errors[k] = v:item() end end
  return errors
end

-- ---- table-valued inputs and outputs ---------------------------------------------------------
-- The same checks for modules whose input and/or output are (nested) tables of tensors: every
-- floating-point input tensor is perturbed (index tensors are left alone) and the outputs are
-- concatenated into one vector. They also accept plain tensors.

local function leaves(x, out)
  out = out or {}
  if torch.isTensor(x) then out[#out + 1] = x
  elseif type(x) == 'table' then for _, v in ipairs(x) do leaves(v, out) end end
  return out
end

local function is_float(t) return nn.utils.isFloating(t) end  -- f32/f64/f16/bf16 on any device

-- All the output's values as one DoubleTensor.
local function flat_output(out)
  local parts = {}
  for _, t in ipairs(leaves(out)) do parts[#parts + 1] = t:contiguous():view(-1):double() end
  if #parts == 0 then return torch.DoubleTensor() end
  return torch.cat(parts, 1)
end

-- A structure shaped like out (zeros), and its tensors in order.
local function zeros_like(out)
  if torch.isTensor(out) then
    local z = out.new(out:size()):zero()
    return z, { z }
  end
  local r, list = {}, {}
  for i, v in ipairs(out) do
    local z, l = zeros_like(v)
    r[i] = z
    for _, t in ipairs(l) do list[#list + 1] = t end
  end
  return r, list
end

local function randomize(tensors, minval, maxval)
  for _, t in ipairs(tensors) do
    if is_float(t) then t:copy(torch.rand(t:nElement()):typeAs(t):mul(maxval - minval):add(minval):viewAs(t)) end
  end
end

-- Rows: the elements of `targets` (tensors) in order; columns: the output elements.
local function jacobian_fd(module, input, targets, perturbation)
  local nout = flat_output(module:forward(input)):nElement()
  local n = 0
  for _, t in ipairs(targets) do n = n + t:nElement() end
  local jac = torch.DoubleTensor(n, nout):zero()
  local row = 0
  for _, t in ipairs(targets) do
    local v = t:view(-1)
    for i = 1, t:nElement() do
      row = row + 1
      local orig = v[i]
      v[i] = orig - perturbation
      local minus = flat_output(module:forward(input)):clone()
      v[i] = orig + perturbation
      local plus = flat_output(module:forward(input)):clone()
      v[i] = orig
      jac[row]:copy(plus:add(-1, minus):div(2 * perturbation))
    end
  end
  return jac
end

-- The input tensors' gradients (from gi, shaped like input) in order; missing ones are zeros.
local function grads_for(gi, input, out)
  if torch.isTensor(input) then
    local g = torch.isTensor(gi) and gi or nil
    out[#out + 1] = g and g:contiguous():view(-1):double() or torch.DoubleTensor(input:nElement()):zero()
  elseif type(input) == 'table' then
    for i, v in ipairs(input) do grads_for(type(gi) == 'table' and gi[i] or nil, v, out) end
  end
  return out
end

-- Columns from backward: dparam = nil for the input gradients, else that gradient tensor.
local function jacobian_bw(module, input, inputs_only, dparam)
  local out = module:forward(input)
  local go, gos = zeros_like(out)
  local nout = flat_output(out):nElement()
  local cols = {}
  local j = 0
  for _, g in ipairs(gos) do
    local v = g:view(-1)
    for i = 1, g:nElement() do
      j = j + 1
      v[i] = 1
      if dparam then
        module:zeroGradParameters()
        module:backward(input, go)
        cols[j] = dparam:contiguous():view(-1):double():clone()
      else
        local gi = module:backward(input, go)
        local parts = {}
        for _, t in ipairs(grads_for(gi, input, {})) do parts[#parts + 1] = t end
        local keep = {}
        for k, t in ipairs(inputs_only) do if t then keep[#keep + 1] = parts[k] end end
        cols[j] = #keep > 0 and torch.cat(keep, 1) or torch.DoubleTensor()
      end
      v[i] = 0
    end
  end
  local n = cols[1] and cols[1]:nElement() or 0
  local jac = torch.DoubleTensor(n, nout):zero()
  for c = 1, nout do if n > 0 then jac:select(2, c):copy(cols[c]) end end
  return jac
end

--- Jacobian.testJacobianTable(module, input[, minval, maxval, perturbation]): testJacobian for
--- inputs and outputs that are tensors or tables of them (index tensors are not perturbed).
function Jacobian.testJacobianTable(module, input, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  local all = leaves(input)
  randomize(all, minval, maxval)
  local targets, mask = {}, {}
  for k, t in ipairs(all) do
    mask[k] = is_float(t) and true or false
    if mask[k] then targets[#targets + 1] = t end
  end
  local jb = jacobian_bw(module, input, mask)
  local jf = jacobian_fd(module, input, targets, perturbation or 1e-6)
  return jf:add(-1, jb):abs():max()
end

--- Jacobian.testJacobianParametersTable(module, input, param, dparam[, minval, maxval, perturbation]):
--- testJacobianParameters for table-valued inputs or outputs.
function Jacobian.testJacobianParametersTable(module, input, param, dparam, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  randomize(leaves(input), minval, maxval)
  randomize({ param }, minval, maxval)
  local jb = jacobian_bw(module, input, {}, dparam)
  local jf = jacobian_fd(module, input, { param }, perturbation or 1e-6)
  return jf:add(-1, jb):abs():max()
end

--- Jacobian.testJacobianUpdateParametersTable(module, input, param[, minval, maxval, perturbation]):
--- testJacobianUpdateParameters for table-valued inputs or outputs.
function Jacobian.testJacobianUpdateParametersTable(module, input, param, minval, maxval, perturbation)
  minval, maxval = minval or -2, maxval or 2
  randomize(leaves(input), minval, maxval)
  randomize({ param }, minval, maxval)
  local params0 = param:clone()
  local all = module:parameters() or {}
  local saved = {}
  for k, p in ipairs(all) do saved[k] = p:clone() end
  local function restore() for k, p in ipairs(all) do p:copy(saved[k]) end end
  local out = module:forward(input)
  local go, gos = zeros_like(out)
  local nout = flat_output(out):nElement()
  local jb = torch.DoubleTensor(param:nElement(), nout):zero()
  local j = 0
  for _, g in ipairs(gos) do
    local v = g:view(-1)
    for i = 1, g:nElement() do
      j = j + 1
      restore()
      v[i] = 1
      module:updateGradInput(input, go)
      module:accUpdateGradParameters(input, go, 1)
      jb:select(2, j):copy(torch.csub(params0, param):contiguous():view(-1):double())
      v[i] = 0
    end
  end
  restore()
  local jf = jacobian_fd(module, input, { param }, perturbation or 1e-6)
  return jf:add(-1, jb):abs():max()
end

--- Jacobian.testIOTable(module, input): testIO for table-valued inputs or outputs (two results
--- too: the larger difference, then the gradInput's).
--- Example: local err = nn.Jacobian.testIOTable(nn.CAddTable(), {torch.randn(2), torch.randn(2)})
function Jacobian.testIOTable(module, input)
  return torch.noGrad(function()
    -- the copy runs on clones taken first (Note [testIO on in-place modules])
    local function copy(x)
      if torch.isTensor(x) then return x:clone() end
      local r = {}
      for k, v in pairs(x) do r[k] = copy(v) end
      return r
    end
    local input2 = copy(input)
    local out = flat_output(module:forward(input)):clone()
    local go = zeros_like(module.output)
    for _, t in ipairs(leaves(go)) do t:copy(torch.rand(t:nElement()):typeAs(t):viewAs(t)) end
    local go2 = copy(go)
    local gi = torch.cat(grads_for(module:backward(input, go), input, {}), 1):clone()
    local m2 = torch.deserialize(torch.serialize(module))
    local out2 = flat_output(m2:forward(input2))
    local gi2 = torch.cat(grads_for(m2:backward(input2, go2), input2, {}), 1)
    local ferr = out:nElement() > 0 and torch.csub(out, out2):abs():max() or 0
    local berr = gi:nElement() > 0 and torch.csub(gi, gi2):abs():max() or 0
    return math.max(ferr, berr), berr
  end)
end

return Jacobian
