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

--- Jacobian.testIOTable(module, input): testIO for table-valued inputs or outputs.
function Jacobian.testIOTable(module, input)
  return torch.noGrad(function()
    local out = flat_output(module:forward(input)):clone()
    local go = zeros_like(module.output)
    for _, t in ipairs(leaves(go)) do t:copy(torch.rand(t:nElement()):typeAs(t):viewAs(t)) end
    local gi = torch.cat(grads_for(module:backward(input, go), input, {}), 1):clone()
    local m2 = torch.deserialize(torch.serialize(module))
    local out2 = flat_output(m2:forward(input))
    local gi2 = torch.cat(grads_for(m2:backward(input, go), input, {}), 1)
    return math.max(torch.csub(out, out2):abs():max(), torch.csub(gi, gi2):abs():max())
  end)
end

return Jacobian
