-- torch.autograd.functional.vjp, jvp, hvp and vhp: products of a Jacobian or a Hessian with a vector
-- without forming the matrix, with PyTorch's semantics. Forward-mode products (jvp, hvp) use the
-- double-backward trick (Note [Forward mode by double backward], autograd_functional.lua).
local torch = require 'torch.env'
local H = require 'torch.autograd_functional_util'
local F = torch.autograd.functional

--- torch.autograd.functional.vjp(func, inputs[, v][, {createGraph=false, strict=false}]): returns
--- func(inputs) and the vector-Jacobian product v^T J (shaped like the inputs); v is shaped like
--- the outputs and may be omitted when func returns a single one-element tensor.
--- Example: torch.autograd.functional.vjp(torch.exp, torch.Tensor({1, 2}), torch.Tensor({1, 1}))
function F.vjp(func, inputs, v, opts)
  local op = 'autograd.functional.vjp'
  v, opts = H.split_v(v, opts)
  local _, in_list, ins, create, strict = H.arguments(op, func, inputs, opts, { 'createGraph', 'strict' })
  return torch.enableGrad(function()
    local xs = H.prepare(ins, create)
    local out_list, outs = H.call(op, func, xs)
    H.check_requires_grad(op, outs, 'outputs', strict)
    local vs
    if v ~= nil then vs = H.prepare_v(H.check_v(op, v, outs, out_list, 'output'), create)
    else vs = H.default_v(op, outs, 'output') end
    local g = H.fill_zeros(op, H.grad(outs, xs, vs, create, create), xs, strict, 'back')
    return H.shape1(H.finish(outs, create), out_list), H.shape1(H.finish(g, create), in_list)
  end)
end

--- torch.autograd.functional.jvp(func, inputs[, v][, {createGraph=false, strict=false}]): returns
--- func(inputs) and the Jacobian-vector product J v (shaped like the outputs); v is shaped like the
--- inputs and may be omitted for a single one-element input. Computed by double backward.
--- Example: torch.autograd.functional.jvp(torch.exp, torch.Tensor({1, 2}), torch.Tensor({1, 0}))
function F.jvp(func, inputs, v, opts)
  local op = 'autograd.functional.jvp'
  v, opts = H.split_v(v, opts)
  local _, in_list, ins, create, strict = H.arguments(op, func, inputs, opts, { 'createGraph', 'strict' })
  return torch.enableGrad(function()
    local xs = H.prepare(ins, create)
    local vs = v ~= nil and H.prepare_v(H.check_v(op, v, ins, in_list, 'input'), create)
      or H.default_v(op, xs, 'input')
    -- Note [Forward mode by double backward] (autograd_functional.lua), with v in place of the one-hot columns.
    local out_list, outs, gis, dense, at = H.transposed_jacobian(op, func, xs, strict)
    create = H.decide(create, outs, xs)  -- Note [Keeping the graph of a closure] (autograd_functional_util.lua)
    local jv = {}
    if #dense > 0 then
      local g = H.grad(gis, dense, vs, create, create, #xs)
      for i = 1, #outs do jv[i] = at[i] and g[at[i]] or nil end
    end
    jv = H.fill_zeros(op, jv, outs, strict, 'backTrick')
    return H.shape1(H.finish(outs, create), out_list), H.shape1(H.finish(jv, create), out_list)
  end)
end

-- The shared first half of vhp and hvp: the checked arguments, the input copies xs, v as vs,
-- func's single output and its gradient (with a graph) with respect to xs; then finish(...)
-- computes the product, inside enableGrad.
local function hessian_product(op, func, inputs, v, opts, finish)
  v, opts = H.split_v(v, opts)
  local _, in_list, ins, create, strict = H.arguments(op, func, inputs, opts, { 'createGraph', 'strict' })
  return torch.enableGrad(function()
    local xs = H.prepare(ins, create)
    local vs = v ~= nil and H.prepare_v(H.check_v(op, v, ins, in_list, 'input'), create)
      or H.default_v(op, xs, 'input')
    local out = H.single_output(op, func, xs, strict)
    local jac = H.grad({ out }, xs, { torch.onesLike(out) }, true, true)
    H.check_requires_grad(op, jac, 'jacobian', strict, #xs)
    local g = finish(xs, vs, jac, create, strict)
    return H.finish(out, create), H.shape1(H.finish(g, create), in_list)
  end)
end

--- torch.autograd.functional.vhp(func, inputs[, v][, {createGraph=false, strict=false}]):
--- returns func(inputs) and the vector-Hessian product v^T H (shaped like the inputs); func
--- returns a one-element tensor, v is shaped like the inputs (omitted: a one-element input).
--- Example: torch.autograd.functional.vhp(function(x) return torch.pow(x, 3):sum() end, torch.Tensor({1, 2}), torch.Tensor({1, 0}))
function F.vhp(func, inputs, v, opts)
  local op = 'autograd.functional.vhp'
  return hessian_product(op, func, inputs, v, opts, function(xs, vs, jac, create, strict)
    return H.fill_zeros(op, H.grad(jac, xs, vs, create, create, #xs), xs, strict, 'doubleBack')
  end)
end

--- torch.autograd.functional.hvp(func, inputs[, v][, {createGraph=false, strict=false}]):
--- returns func(inputs) and the Hessian-vector product H v (shaped like the inputs); func returns
--- a one-element tensor, v is shaped like the inputs. Computed by the double-backward trick.
--- Example: torch.autograd.functional.hvp(function(x) return torch.pow(x, 3):sum() end, torch.Tensor({1, 2}), torch.Tensor({1, 0}))
function F.hvp(func, inputs, v, opts)
  local op = 'autograd.functional.hvp'
  return hessian_product(op, func, inputs, v, opts, function(xs, vs, jac, create, strict)
    -- Note [Forward mode by double backward] (autograd_functional.lua): H v is the gradient, with
    -- respect to u, of (H^T u) . v where H^T u is the gradient of jac . u (u = 0, any finite u).
    local us = {}
    for i, x in ipairs(xs) do us[i] = torch.zerosLike(x):requiresGrad() end
    local hu = H.grad(jac, xs, us, true, true, #xs)
    H.check_requires_grad(op, hu, 'hessian', strict, #xs)
    return H.fill_zeros(op, H.grad(hu, us, vs, create, create, #xs), xs, strict, 'doubleBackTrick')
  end)
end
