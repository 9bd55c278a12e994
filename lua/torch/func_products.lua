-- torch.func's vjp, jvp, jacrev, jacfwd and hessian (PyTorch's functorch API), on torch.autograd:
-- vjp keeps the graph of one call of func and returns the function of the cotangents; the
-- Jacobians and jvp go through torch.autograd.functional. Loaded by lua/torch/func.lua.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local F = torch.autograd.functional
local Fn = torch.func
local H = require 'torch.autograd_functional_util'
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail
local tree_map, tree_leaves, options, check_func = Fn._tree_map, Fn._tree_leaves, Fn._options, Fn._check_func

local function is_tree(x) return type(x) == 'table' and not is_tensor(x) end

-- A trailing {hasAux = ...} table among varargs is the options (PyTorch's keyword argument).
local function split_options(n, args)
  local last = args[n]
  if n >= 1 and is_tree(last) and next(last) ~= nil then
    for k in pairs(last) do if k ~= 'hasAux' then return n, nil end end
    return n - 1, last
  end
  return n, nil
end

-- The layout of the tensors in x, in tree_leaves' order: 'T' for a tensor, {key=...} for a table.
local function structure(x)
  if is_tensor(x) then return 'T' end
  if not is_tree(x) then return nil end
  local parts, n = {}, #x
  for i = 1, n do
    local sub = structure(x[i])
    if sub then parts[#parts + 1] = i .. '=' .. sub end
  end
  local keys = {}
  for k in pairs(x) do
    if not (type(k) == 'number' and k >= 1 and k <= n and k == math.floor(k)) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(p, q)
    if type(p) == type(q) then return p < q end
    return type(p) == 'number'
  end)
  for _, k in ipairs(keys) do
    local sub = structure(x[k])
    if sub then parts[#parts + 1] = tostring(k) .. '=' .. sub end
  end
  return '{' .. table.concat(parts, ', ') .. '}'
end

local function detach_tree(x, keep) return keep and x or tree_map(x, function(t) return t:detach() end) end

--- torch.func.vjp(func, primal1, ...[, {hasAux = false}]): calls func(primals...) and returns its
--- output and a function vjpFn(cotangents) giving, for each primal, the vector-Jacobian product
--- (cotangents shaped like the output, which may be a table of tensors). With hasAux, func
--- returns (output, aux) and vjp returns (output, vjpFn, aux). vjpFn may be called repeatedly.
--- Example: local y, vjpFn = torch.func.vjp(torch.sin, torch.Tensor({0, 1})); local g = vjpFn(torch.ones(2))
function Fn.vjp(func, ...)
  local op = 'func.vjp'
  check_func(op, func)
  local nargs, opts = split_options(select('#', ...), { ... })
  local has_aux = opts and opts.hasAux and true or false
  local args = { ... }
  if nargs == 0 then fail(op, 'expected at least one primal after the function') end
  local leaves, nested, per_primal = {}, Fn._keeps_graph(unpack(args, 1, nargs)), {}
  for a = 1, nargs do
    if not is_tensor(args[a]) and #tree_leaves(args[a]) == 0 then
      fail(op, 'primal %d must be a tensor or a table of tensors, got %s', a, describe(args[a]))
    end
    per_primal[a] = {}
    args[a] = tree_map(args[a], function(x)
      if not H.is_float(x) then fail(op, 'primal %d must hold floating-point tensors, got a %s', a, describe(x)) end
      local p
      if x:needsGrad() then p, nested = x:clone(), true else p = x:detach():requiresGrad() end
      leaves[#leaves + 1] = p
      return p
    end)
  end
  local versions = Fn._versions(leaves)
  local res = { torch.enableGrad(Fn._call_deeper, func, unpack(args, 1, nargs)) }
  Fn._check_versions(op, leaves, versions)  -- Note [Arguments changed in place] (func.lua)
  if not has_aux and table.maxn(res) > 1 then
    fail(op, 'the function returned %d values; return only the output, or pass {hasAux = true} to return (output, aux)', table.maxn(res))
  end
  local out, aux = res[1], res[2]
  local outs = tree_leaves(out)
  if #outs == 0 then fail(op, 'the function must return a tensor or a table of tensors, got %s', describe(out)) end
  -- Note [Keeping the graph of a closure] (autograd_functional_util.lua)
  nested = nested or H.reaches_outer(outs, leaves)
  local keep_aux = nested or (has_aux and H.reaches_outer(tree_leaves(aux), leaves))
  local shape = structure(out)
  local function vjp_fn(cotangents)
    local cots = tree_leaves(cotangents)
    if #cots ~= #outs then
      fail(op, 'vjpFn: the cotangents must be shaped like the output (%d tensors), got %d', #outs, #cots)
    end
    -- leaves are matched in order, so the tables must match too (an array for {p = .., q = ..} was
    -- paired by sorted keys, silently)
    if structure(cotangents) ~= shape then
      fail(op, 'vjpFn: the cotangents must have the structure of the output, %s, got %s', shape, structure(cotangents))
    end
    local o, g = {}, {}
    local create = nested
    for i, t in ipairs(outs) do
      if not t:isSameSizeAs(cots[i]) then
        fail(op, 'vjpFn: cotangent %d must have the size of output %d, got %s for %s', i, i, describe(cots[i]), describe(t))
      end
      if t:needsGrad() then o[#o + 1], g[#g + 1] = t, cots[i] end
      create = create or cots[i]:needsGrad()
    end
    local grads = {}
    if #o > 0 then grads = torch.autograd.grad(o, leaves, g, { createGraph = create, retainGraph = true, allowUnused = true }) end
    local by_leaf = {}
    for i, p in ipairs(leaves) do
      local gi = grads[i] or torch.zerosLike(p:detach())
      by_leaf[p] = create and gi or gi:detach()
    end
    local results = {}
    for a = 1, nargs do results[a] = tree_map(args[a], function(p) return by_leaf[p] end) end
    return unpack(results, 1, nargs)
  end
  if has_aux then return detach_tree(out, nested), vjp_fn, detach_tree(aux, keep_aux) end
  return detach_tree(out, nested), vjp_fn
end

-- func with its aux value kept aside (for the transforms built on torch.autograd.functional).
local function without_aux(op, func, has_aux, box)
  return function(...)
    box.ins = { ... }  -- the input copies, for the aux value's Note [Keeping the graph of a closure]
    local res = { Fn._call_deeper(func, ...) }
    if not has_aux and table.maxn(res) > 1 then
      fail(op, 'the function returned %d values; return only the output, or pass hasAux = true', table.maxn(res))
    end
    box.aux = res[2]
    return res[1]
  end
end

-- The aux value detached unless something outside the transform needs its graph.
local function finish_aux(box, nested)
  return detach_tree(box.aux, nested or H.reaches_outer(tree_leaves(box.aux), box.ins or {}))
end

local function as_list(op, x, what)
  if is_tensor(x) then return { x }, false end
  if is_tree(x) and #x > 0 then
    for i = 1, #x do
      if not is_tensor(x[i]) then fail(op, '%s must be a tensor or a list of tensors, got %s at %d', what, describe(x[i]), i) end
    end
    return x, true
  end
  fail(op, '%s must be a tensor or a list of tensors, got %s', what, describe(x))
end

--- torch.func.jvp(func, primals, tangents[, {hasAux = false}]): func(primals...) and the
--- Jacobian-vector product with tangents (each a tensor or a list of tensors, one per argument
--- of func), as two values (three with hasAux: output, jvp, aux).
--- Example: local y, t = torch.func.jvp(torch.exp, torch.Tensor({0, 1}), torch.Tensor({1, 1}))
function Fn.jvp(func, primals, tangents, opts)
  local op = 'func.jvp'
  check_func(op, func)
  opts = options(op, opts, { 'hasAux' })
  local ps, plist = as_list(op, primals, 'primals')
  local ts = as_list(op, tangents, 'tangents')
  if #ts ~= #ps then fail(op, 'expected one tangent per primal (%d), got %d', #ps, #ts) end
  for i, p in ipairs(ps) do
    if not H.is_float(p) then fail(op, 'primal %d must be a floating-point tensor, got a %s', i, describe(p)) end
  end
  local nested = Fn._keeps_graph(ps)  -- Note [Levels] (func.lua)
  local box = {}
  local f = without_aux(op, func, opts.hasAux, box)
  local out, jv = F.jvp(f, plist and ps or ps[1], plist and ts or ts[1], { createGraph = nested or H.OUTER })
  if opts.hasAux then return out, jv, finish_aux(box, nested) end
  return out, jv
end

-- The Jacobian transforms: func's arguments argnums are the inputs of torch.autograd.functional.
local function jacobian_transform(op, func, opts, strategy)
  check_func(op, func)
  opts = options(op, opts, { 'argnums', 'hasAux', 'chunkSize' })
  local argnums = opts.argnums or 1
  local list = type(argnums) == 'table'
  local nums = list and argnums or { argnums }
  for _, a in ipairs(nums) do
    if type(a) ~= 'number' or a < 1 or a ~= math.floor(a) then
      fail(op, 'argnums must be a positive integer or a list of them (1-based), got %s', H.show(a))
    end
  end
  Fn._check_chunk_size(op, opts.chunkSize)
  return function(...)
    local nargs = select('#', ...)
    local args = { ... }
    local inputs, nested = {}, Fn._keeps_graph(unpack(args, 1, nargs))  -- Note [Levels] (func.lua)
    for i, a in ipairs(nums) do
      if a > nargs then fail(op, 'argnums names argument %d but the function got %d arguments', a, nargs) end
      if not is_tensor(args[a]) then fail(op, 'argument %d must be a tensor, got %s', a, describe(args[a])) end
      if not H.is_float(args[a]) then
        fail(op, 'argument %d must be a floating-point tensor to be differentiated, got a %s', a, describe(args[a]))
      end
      inputs[i] = args[a]
    end
    local box = {}
    local f = without_aux(op, func, opts.hasAux, box)
    local sub = function(...)
      local call = { unpack(args, 1, nargs) }
      for i, a in ipairs(nums) do call[a] = (select(i, ...)) end
      return f(unpack(call, 1, nargs))
    end
    local jac = F.jacobian(sub, list and inputs or inputs[1], { createGraph = nested or H.OUTER, strategy = strategy })
    if opts.hasAux then return jac, finish_aux(box, nested) end
    return jac
  end
end

--- torch.func.jacrev(func[, {argnums = 1, hasAux = false}]): the function computing the Jacobian
--- of func with respect to argument argnums (a position or a list) by reverse mode: sizes
--- output x input; a list of outputs or of argnums gives lists. chunkSize is accepted and unused.
--- Example: torch.func.jacrev(torch.sin)(torch.Tensor({0, 1}))
function Fn.jacrev(func, opts) return jacobian_transform('func.jacrev', func, opts, 'reverseMode') end

--- torch.func.jacfwd(func[, {argnums = 1, hasAux = false}]): as torch.func.jacrev, by forward
--- mode (here the double-backward trick of torch.autograd.functional).
--- Example: torch.func.jacfwd(torch.sin)(torch.Tensor({0, 1}))
function Fn.jacfwd(func, opts) return jacobian_transform('func.jacfwd', func, opts, 'forwardMode') end

--- torch.func.hessian(func[, {argnums = 1}]): the function computing the Hessian of func with
--- respect to argument argnums, PyTorch's jacfwd(jacrev(func)): sizes output x input x input.
--- Example: torch.func.hessian(function(x) return torch.sum(torch.pow(x, 3)) end)(torch.Tensor({1, 2}))
function Fn.hessian(func, opts)
  local op = 'func.hessian'
  check_func(op, func)
  opts = options(op, opts, { 'argnums' })
  return Fn.jacfwd(Fn.jacrev(func, { argnums = opts.argnums }), { argnums = opts.argnums })
end

return Fn
