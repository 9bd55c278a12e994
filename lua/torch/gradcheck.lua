-- torch.autograd.gradcheck / gradgradcheck: compare the gradients autograd computes with central
-- finite differences (use f64 inputs). Users check their own Functions and modules with them.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail
local autograd = torch.autograd

-- The tensor results of fn; a number (a full reduction without autograd) counts as a
-- one-element tensor so the graph run and the numerical runs see the same outputs.
local function tensors_of(list)
  local out = {}
  for i = 1, table.maxn(list) do
    local v = list[i]
    if is_tensor(v) then out[#out + 1] = v
    elseif type(v) == 'number' then out[#out + 1] = torch.DoubleTensor({ v }) end
  end
  return out
end

local function run(fn, inputs)
  local res = { fn(unpack(inputs, 1, table.maxn(inputs))) }
  return tensors_of(res)
end

-- Flat double copies of the outputs, evaluated without recording.
local function evaluate(fn, inputs)
  local outs = torch.noGrad(run, fn, inputs)
  local flat = {}
  for k, o in ipairs(outs) do flat[k] = o:double():contiguous():view(-1):clone() end
  return flat
end

--- gradcheck(fn, inputs[, {eps=1e-6, atol=1e-5, rtol=1e-3, raise=true}]): true when the analytical
--- and numerical Jacobians of fn agree for every input that requires grad. Raises (or returns
--- false, message with raise=false) naming the input, the output and the worst element.
function autograd.gradcheck(fn, inputs, opts)
  if type(fn) ~= 'function' then fail('gradcheck', 'expected a function, got %s', describe(fn)) end
  if is_tensor(inputs) then inputs = { inputs } end
  opts = opts or {}
  local eps, atol, rtol = opts.eps or 1e-6, opts.atol or 1e-5, opts.rtol or 1e-3
  local wrt = {}
  for i = 1, table.maxn(inputs) do
    local x = inputs[i]
    if is_tensor(x) and x:needsGrad() then wrt[#wrt + 1] = { index = i, tensor = x } end
  end
  if #wrt == 0 then fail('gradcheck', 'no input requires grad') end
  local function report(msg)
    if opts.raise == false then return false, msg end
    error('[gradcheck] ' .. msg, 2)
  end

  -- Analytical Jacobians first (one backward per output element, all from one graph), then
  -- numerical ones: perturbing the inputs in place would invalidate the graph's saved tensors.
  local outs = run(fn, inputs)
  local targets = {}
  for w = 1, #wrt do targets[w] = wrt[w].tensor end
  local analytic = {}
  for oi, o in ipairs(outs) do
    local m = o:nElement()
    analytic[oi] = {}
    for w = 1, #wrt do analytic[oi][w] = torch.DoubleTensor(m, wrt[w].tensor:nElement()):zero() end
    if o:needsGrad() then
      for j = 1, m do
        local go = o.new(o:size()):zero()
        go:view(-1)[j] = 1
        local gs = autograd.grad({ o }, targets, { go }, { retainGraph = true, allowUnused = true })
        for w = 1, #wrt do
          if gs[w] then analytic[oi][w][j]:copy(gs[w]:double():contiguous():view(-1)) end
        end
      end
    end
  end
  for w = 1, #wrt do
    local x = wrt[w].tensor
    local offsets = {}  -- row-major element order, valid for any strides
    torch._each_offset(x.p, function(off) offsets[#offsets + 1] = off end)
    for k = 1, #offsets do
      local orig = types.read(x.p, offsets[k])
      types.write(x.p, offsets[k], orig + eps)
      local plus = evaluate(fn, inputs)
      types.write(x.p, offsets[k], orig - eps)
      local minus = evaluate(fn, inputs)
      types.write(x.p, offsets[k], orig)
      for oi = 1, #outs do
        for j = 1, outs[oi]:nElement() do
          local numeric = (plus[oi][j] - minus[oi][j]) / (2 * eps)
          local a = analytic[oi][w][j][k]
          if math.abs(a - numeric) > atol + rtol * math.abs(numeric) or a ~= a then
            return report(string.format('gradient of output %d element %d with respect to input %d element %d: '
              .. 'analytical %.10g, numerical %.10g', oi, j, wrt[w].index, k, a, numeric))
          end
        end
      end
    end
  end
  return true
end

--- gradgradcheck(fn, inputs[, gradOutputs][, opts]): gradcheck of the gradient of fn (needs the
--- formulas of fn's ops to be differentiable). gradOutputs default to random f64 tensors.
function autograd.gradgradcheck(fn, inputs, grad_outputs, opts)
  if is_tensor(inputs) then inputs = { inputs } end
  if type(grad_outputs) == 'table' and not is_tensor(grad_outputs) and grad_outputs[1] == nil then
    grad_outputs, opts = nil, grad_outputs
  end
  if is_tensor(grad_outputs) then grad_outputs = { grad_outputs } end
  local outs = run(fn, inputs)
  if not grad_outputs then
    grad_outputs = {}
    for k, o in ipairs(outs) do
      grad_outputs[k] = torch.DoubleTensor(o:size()):copy(torch.randn(o:nElement()):view(o:size()))
    end
  end
  for _, g in ipairs(grad_outputs) do g:requiresGrad() end
  local n = table.maxn(inputs)
  local first_grads_recorded
  local all = {}
  for i = 1, n do all[i] = inputs[i] end
  for k, g in ipairs(grad_outputs) do all[n + k] = g end
  local function first_grads(...)
    return torch.enableGrad(first_grads_recorded, ...)
  end
  function first_grads_recorded(...)
    local args = { ... }
    local ins, targets = {}, {}
    for i = 1, n do ins[i] = args[i] end
    for i = 1, n do if is_tensor(ins[i]) and ins[i]:needsGrad() then targets[#targets + 1] = ins[i] end end
    local gos = {}
    for k = 1, #grad_outputs do gos[k] = args[n + k] end
    local o = run(fn, ins)
    local gs = autograd.grad(o, targets, gos, { createGraph = true, allowUnused = true })
    local res = {}
    for k = 1, #targets do res[k] = gs[k] or targets[k].new(targets[k]:size()):zero() end
    return unpack(res)
  end
  return autograd.gradcheck(first_grads, all, opts)
end

return torch
