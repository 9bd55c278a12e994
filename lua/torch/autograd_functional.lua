-- torch.autograd.functional: jacobian and hessian of a Lua function with PyTorch's semantics, built
-- on torch.autograd.grad (reverse mode). vjp/jvp/hvp/vhp are in autograd_functional_products.lua,
-- the shared helpers in autograd_functional_util.lua.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local fail = lib.fail
local H = require 'torch.autograd_functional_util'
local autograd = torch.autograd

local F = {}
autograd.functional = F

local function cat_sizes(a, b)
  local s = a:size():totable()
  for _, v in ipairs(b:size():totable()) do s[#s + 1] = v end
  return s
end
local function one_hot(ref, k)
  local e = torch.zerosLike(ref)
  e:view(-1):narrow(1, k, 1):fill(1)
  return e
end

-- Stacks the pieces (false for a zero piece) along dim into a tensor of sizes (like ref's type).
local function assemble(pieces, n, dim, zero_ref, type_ref, sizes)
  local any = false
  for k = 1, n do if pieces[k] then any = true end end
  if not any then return torch.emptyLike(type_ref):resize(torch.LongStorage(sizes)):zero() end
  for k = 1, n do pieces[k] = pieces[k] or torch.zerosLike(zero_ref) end
  return torch.stack(pieces, dim):view(sizes)
end

-- Reverse mode: one backward per output element gives one row of every input's block.
local function reverse_jacobian(op, func, ins, create, strict)
  local out_list, outs = H.call(op, func, ins)
  H.check_requires_grad(op, outs, 'outputs', strict)
  create = H.decide(create, outs, ins)  -- Note [Keeping the graph of a closure] (autograd_functional_util.lua)
  local res = {}
  for i, out in ipairs(outs) do
    local m, rows = out:nElement(), {}
    for j = 1, #ins do rows[j] = {} end
    if out:needsGrad() then
      for k = 1, m do
        -- The very last backward may free the graph when the results are not differentiated.
        local last = not create and i == #outs and k == m
        local g = H.grad({ out }, ins, { one_hot(out, k) }, create, not last)
        for j = 1, #ins do
          local gj = g[j]
          if strict and not gj then fail(op, 'strict: output %d of the function is independent of input %d', i, j) end
          if strict and create and not gj:needsGrad() then
            fail(op, 'strict: the jacobian of output %d with respect to input %d is independent of the input, '
              .. 'which strict mode with createGraph=true does not allow', i, j)
          end
          rows[j][k] = gj or false
        end
      end
    end
    res[i] = {}
    for j, x in ipairs(ins) do res[i][j] = assemble(rows[j], m, 1, x, x, cat_sizes(out, x)) end
  end
  return out_list, res, create
end

-- Note [Forward mode by double backward]: the engine has reverse mode only. The gradient
-- g(u) = J^T u of the outputs with respect to the inputs, taken with createGraph at u = 0 (any
-- finite u: it is linear in u), is differentiated again with respect to u along a one-hot e:
-- d(e . J^T u)/du = J e, one column of the Jacobian per input element. Costs one backward through
-- a graph about twice func's per column, so it pays only when inputs are few and outputs many.
local function forward_jacobian(op, func, ins, create, strict)
  local out_list, outs, gis, dense, at = H.transposed_jacobian(op, func, ins, strict)
  create = H.decide(create, outs, ins)
  local res = {}
  for i = 1, #outs do res[i] = {} end
  for j, x in ipairs(ins) do
    local n, cols = x:nElement(), {}
    for i = 1, #outs do cols[i] = {} end
    if gis[j] and gis[j]:needsGrad() then
      for k = 1, n do
        local g = autograd.grad({ gis[j] }, dense, { one_hot(x, k) },
          { createGraph = create, retainGraph = true, allowUnused = true })
        for i = 1, #outs do
          local c = at[i] and g[at[i]]
          if strict and not c then fail(op, 'strict: ' .. H.ZERO.backTrick, i, i) end
          cols[i][k] = c or false
        end
      end
    end
    for i, out in ipairs(outs) do
      res[i][j] = assemble(cols[i], n, out:dim() + 1, out, out, cat_sizes(out, x))
    end
  end
  return out_list, res, create
end

-- The Jacobian blocks res[i][j] (output i, input j) of func at prepared inputs, unshaped, and
-- whether they keep their graph (create, decided for H.OUTER).
local function jacobian_body(op, func, ins, create, strict, strategy)
  if strategy == 'forwardMode' then return forward_jacobian(op, func, ins, create, strict) end
  return reverse_jacobian(op, func, ins, create, strict)
end

-- Note [vectorize]: PyTorch's vectorize=true batches the one-hot grad outputs through vmap
-- (is_grads_batched). Tocha's engine has no batched backward, so the option is accepted for
-- compatibility and ignored: the results are the same, computed one row (or column) at a time.

--- torch.autograd.functional.jacobian(func, inputs[, {createGraph=false, strict=false,
--- vectorize=false, strategy='reverseMode'|'forwardMode'}]): the Jacobian of func at inputs (a
--- tensor or an array of tensors). One input and one output: a tensor of size
--- output:size() .. input:size(); several: result[i][j] for output i and input j.
--- Example: torch.autograd.functional.jacobian(torch.exp, torch.Tensor({1, 2}))
function F.jacobian(func, inputs, opts)
  local op = 'autograd.functional.jacobian'
  local o, in_list, ins, create, strict = H.arguments(op, func, inputs, opts,
    { 'createGraph', 'strict', 'vectorize', 'strategy' })
  local strategy = H.strategy(op, o.strategy, 'strategy')
  return torch.enableGrad(function()
    local out_list, res, kept = jacobian_body(op, func, H.prepare(ins, create), create, strict, strategy)
    return H.shape2(H.finish(res, kept), out_list, in_list)
  end)
end

--- torch.autograd.functional.hessian(func, inputs[, {createGraph=false, strict=false,
--- vectorize=false, outerJacobianStrategy='reverseMode'|'forwardMode'}]): the Hessian of func
--- (which returns a one-element tensor) at inputs: a tensor of size input:size() .. input:size(),
--- or result[i][j] (inputs i and j) when inputs is an array of tensors.
--- Example: torch.autograd.functional.hessian(function(x) return torch.pow(x, 3):sum() end, torch.Tensor({1, 2}))
function F.hessian(func, inputs, opts)
  local op = 'autograd.functional.hessian'
  local o, in_list, ins, create, strict = H.arguments(op, func, inputs, opts,
    { 'createGraph', 'strict', 'vectorize', 'outerJacobianStrategy' })
  local strategy = H.strategy(op, o.outerJacobianStrategy, 'outerJacobianStrategy')
  -- PyTorch's construction: the Jacobian (outer, with the options) of the gradient, itself a
  -- Jacobian with createGraph=true of the function made 0-dim.
  local function gradient(...)
    local xs = H.prepare({ ... }, true)
    local function scalar(...) return H.single_output(op, func, { ... }, strict):view({}) end
    local _, jac = jacobian_body(op, scalar, xs, true, false, 'reverseMode')
    H.check_requires_grad(op, jac[1], 'jacobian', strict)
    return jac[1]
  end
  return torch.enableGrad(function()
    local _, res, kept = jacobian_body(op, gradient, H.prepare(ins, create), create, strict, strategy)
    return H.shape2(H.finish(res, kept), in_list, in_list)
  end)
end

require 'torch.autograd_functional_products'

return F
