-- torch.autograd.gradcheck / gradgradcheck: compare the gradients autograd computes with central
-- finite differences (use f64 inputs). Users check their own Functions and modules with them.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail
local autograd = torch.autograd

-- The tensor results of fn, in order, tables of them flattened (torch.split's, a table module's:
-- as PyTorch takes a list of outputs; they were skipped, and the check passed having compared
-- nothing); a number (a full reduction without autograd) counts as a one-element tensor so the
-- graph run and the numerical runs see the same outputs.
local function tensors_of(list, out)
  out = out or {}
  for i = 1, table.maxn(list) do
    local v = list[i]
    if is_tensor(v) then out[#out + 1] = v
    elseif type(v) == 'number' then out[#out + 1] = torch.DoubleTensor({ v })
    elseif type(v) == 'table' then tensors_of(v, out) end
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

-- The analytical Jacobians: analytic[oi][w] is (elements of output oi) x (elements of input w),
-- one backward per output element, all from one graph.
local function analytic_jacobians(outs, wrt)
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
  return analytic
end

--- gradcheck(fn, inputs[, {eps=1e-6, atol=1e-5, rtol=1e-3, nondetTol=0, raise=true}]): true when the
--- analytical and numerical Jacobians of fn agree for every input that requires grad. Raises (or
--- returns false, message with raise=false) naming the input, the output and the worst element.
--- The backward runs twice and must give the same Jacobian up to nondetTol (PyTorch's reentrancy
--- check). Inputs whose elements share memory (expanded tensors) are refused.
--- Example: torch.autograd.gradcheck(torch.exp, { torch.DoubleTensor({ 0.5, 1 }):requiresGrad() })
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

  -- Analytical Jacobians first (twice: Note [Reentrant backward]), then numerical ones:
  -- perturbing the inputs in place would invalidate the graph's saved tensors.
  local outs = run(fn, inputs)
  if #outs == 0 then fail('gradcheck', 'fn returned no tensor: there is nothing to check') end
  local analytic = analytic_jacobians(outs, wrt)
  -- Note [Reentrant backward]: as PyTorch's gradcheck, a backward that gives another result for the
  -- same graph and gradOutput (random, or a race) is reported as such rather than as a mismatch
  -- with the numerical Jacobian; nondetTol allows a known nondeterminism. Unlike PyTorch's exact
  -- default, rounding-level differences (1e-12 relative: the summation order of atomic adds on a
  -- GPU) are not counted, so suites that run on both devices need no per-op nondetTol.
  local again = analytic_jacobians(outs, wrt)
  local nondet = opts.nondetTol or 0
  for oi = 1, #outs do
    for w = 1, #wrt do
      local diff = (analytic[oi][w] - again[oi][w]):abs()
      diff:add(-1e-12, torch.abs(analytic[oi][w]))
      diff:maskedFill(diff:ne(diff), 0)  -- NaN or Inf both times: for the comparison below to report
      if diff:nElement() > 0 and not (diff:max() <= nondet) then
        return report(string.format('backward is not reentrant: running it twice with the same input and '
          .. 'gradOutput gave Jacobians of output %d with respect to input %d that differ by %.10g, more than '
          .. 'nondetTol = %g', oi, wrt[w].index, diff:max(), nondet))
      end
    end
  end
  for w = 1, #wrt do
    local x = wrt[w].tensor
    local offsets, seen = {}, {}  -- row-major element order, valid for any strides
    torch._each_offset(x.p, function(off)
      -- perturbing a shared element moves all its copies: the numerical Jacobian would be wrong
      if seen[off] then
        fail('gradcheck', 'input %d has elements that share memory (an expanded tensor, size %s, strides %s); '
          .. 'pass x:contiguous() or x:clone()', wrt[w].index, table.concat(x:size():totable(), 'x'),
          table.concat(x:stride():totable(), ','))
      end
      seen[off] = true
      offsets[#offsets + 1] = off
    end)
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
          -- (a NaN on either side is a mismatch, as in PyTorch's allclose)
          if math.abs(a - numeric) > atol + rtol * math.abs(numeric) or a ~= a or numeric ~= numeric then
            return report(string.format('gradient of output %d element %d with respect to input %d element %d: '
              .. 'analytical %.10g, numerical %.10g%s', oi, j, wrt[w].index, k, a, numeric,
              x:type():find('Double') and '' or string.format(' (input %d is a %s: finite differences '
              .. 'need double inputs)', wrt[w].index, x:type())))
          end
        end
      end
    end
  end
  return true
end

--- gradgradcheck(fn, inputs[, gradOutputs][, opts]): gradcheck of the gradient of fn (needs the
--- formulas of fn's ops to be differentiable). gradOutputs default to random f64 tensors; given
--- ones are copied, not changed.
--- Example: torch.autograd.gradgradcheck(torch.sigmoid, { torch.DoubleTensor({ 0.5, 1 }):requiresGrad() })
function autograd.gradgradcheck(fn, inputs, grad_outputs, opts)
  local mt = type(fn) == 'table' and getmetatable(fn)
  if type(fn) ~= 'function' and not (mt and mt.__call) then
    fail('gradgradcheck', 'expected a function, got %s', describe(fn))
  end
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
  -- Copies: the caller's gradOutputs are left as they were (requiresGrad would change them, and
  -- fails on one that has history); the check differentiates with respect to them too.
  local given = grad_outputs
  grad_outputs = {}
  for k, g in ipairs(given) do
    if not is_tensor(g) then fail('gradgradcheck', 'gradOutput %d is %s, expected a tensor', k, describe(g)) end
    grad_outputs[k] = g:detach():clone():requiresGrad()
  end
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
