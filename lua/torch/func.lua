-- torch.func (PyTorch's functorch API): function transforms that return functions. grad and
-- gradAndValue, vjp, jvp, jacrev, jacfwd and hessian differentiate a Lua function of tensors (or
-- of tables of tensors: "pytrees", such as a dict of parameters); functionalCall runs a module
-- with other parameters. vmap is in func_vmap.lua, functionalCall in func_module.lua.
--
-- Note [Transforms compose through the graph]: each transform makes its inputs fresh tensors that
-- require grad and differentiates with torch.autograd.grad. An input that already requires grad
-- (it comes from an outer transform) is cloned under recording instead, so the result keeps its
-- graph and the outer transform can differentiate it again: grad(grad(f)), jacrev(grad(f)),
-- vmap(grad(f)) work as in PyTorch. At the outermost level results are detached, unless an
-- argument requires grad; inner transforms keep the graph (Note [Levels]).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail

local Fn = {}
torch.func = Fn

-- ---- pytrees -----------------------------------------------------------------------------------------

local function is_tree(x) return type(x) == 'table' and not is_tensor(x) end

-- fn applied to each tensor of x (a tensor or nested tables); other values are kept.
local function tree_map(x, fn)
  if is_tensor(x) then return fn(x) end
  if not is_tree(x) then return x end
  local out = {}
  for k, v in pairs(x) do out[k] = tree_map(v, fn) end
  return out
end
Fn._tree_map = tree_map

-- The tensors of x in a fixed order: array part first, then the other keys sorted.
local function tree_leaves(x, out)
  out = out or {}
  if is_tensor(x) then out[#out + 1] = x return out end
  if not is_tree(x) then return out end
  local n = #x
  for i = 1, n do tree_leaves(x[i], out) end
  local keys = {}
  for k in pairs(x) do
    if not (type(k) == 'number' and k >= 1 and k <= n and k == math.floor(k)) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == 'number'
  end)
  for _, k in ipairs(keys) do tree_leaves(x[k], out) end
  return out
end
Fn._tree_leaves = tree_leaves

-- Whether pred holds for a tensor in x, walking tables once each (arguments that are not
-- differentiated may hold cycles). plain: skip objects with a metatable, such as an nn module
-- passed along (its own parameters require grad but are not the transform's business).
function Fn._any_tensor(x, pred, plain, seen)
  if is_tensor(x) then return pred(x) end
  if not is_tree(x) then return false end
  seen = seen or {}
  if seen[x] or (plain and getmetatable(x) ~= nil) then return false end
  seen[x] = true
  for _, v in pairs(x) do
    if Fn._any_tensor(v, pred, plain, seen) then return true end
  end
  return false
end

-- ---- arguments ---------------------------------------------------------------------------------------


-- The argument checks of torch.autograd.functional: the function, options checked by name.
local H = require 'torch.autograd_functional_util'
local check_func, options = H.check_func, H.options

-- Note [Levels]: an inner transform must keep its graph not only when its own inputs require grad
-- but also when func reaches an outer transform's stand-ins some other way: through a closure
-- (grad(function(y) return torch.sum(grad(function(x) return torch.sum(x * y) end)(x0)) end)) or
-- through an argument that argnums leaves out. Neither shows on the inputs, so the transforms
-- count how deep they are: func runs one level deeper, and below level 0 results keep their graph
-- (functorch's levels). At level 0 an argument that requires grad, differentiated or not, keeps
-- the graph too (the results are functions of it, as in PyTorch).
local level = 0
--- torch.func._call_deeper(func, ...): func(...) one transform level deeper (internal).
--- Example: torch.func._call_deeper(torch.sin, torch.zeros(1))
function Fn._call_deeper(func, ...)
  level = level + 1
  local res = { pcall(func, ...) }
  level = level - 1  -- restored on an error too
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end
--- torch.func._keeps_graph(...): whether a transform called with these arguments keeps its graph (Note [Levels]; internal).
--- Example: torch.func._keeps_graph(torch.zeros(1))
function Fn._keeps_graph(...)
  if level > 0 then return true end
  for a = 1, select('#', ...) do
    if Fn._any_tensor((select(a, ...)), function(t) return t:needsGrad() end, true) then return true end
  end
  return false
end

-- chunkSize: accepted as PyTorch's vmap/jacrev take it; the loops here run one slice at a time.
function Fn._check_chunk_size(op, n)
  if n ~= nil and (type(n) ~= 'number' or n < 1 or n ~= math.floor(n)) then
    fail(op, 'chunkSize must be a positive integer, got %s', H.show(n))
  end
end

Fn._options = options
Fn._check_func = check_func

-- argnums: a position (1-based) or a list of them; returns the list and whether it was one.
local function read_argnums(op, a)
  if a == nil then return { 1 }, true end
  local function check(k)
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then
      fail(op, 'argnums must be a positive integer or a list of them (1-based), got %s', H.show(k))
    end
  end
  if type(a) == 'number' then check(a) return { a }, true end
  if not is_tree(a) or #a == 0 then fail(op, 'argnums must be a positive integer or a non-empty list, got %s', H.show(a)) end
  local seen = {}
  for _, k in ipairs(a) do
    check(k)
    if seen[k] then fail(op, 'argnums lists argument %d twice', k) end
    seen[k] = true
  end
  return a, false
end

-- A differentiable stand-in for x (Note [Transforms compose through the graph]).
local function prepare(op, x, what)
  if not H.is_float(x) then fail(op, '%s must hold floating-point tensors to be differentiated, got a %s', what, describe(x)) end
  if x:needsGrad() then return x:clone(), true end
  return x:detach():requiresGrad(), false
end

-- Replaces args[a] for each a of argnums by its stand-ins; returns the stand-ins in order and
-- whether any input came from an outer transform.
local function prepare_args(op, args, nargs, argnums)
  local leaves, nested = {}, false
  for _, a in ipairs(argnums) do
    if a > nargs then fail(op, 'argnums names argument %d but the function got %d arguments', a, nargs) end
    local what = 'argument ' .. a
    if not is_tensor(args[a]) and #tree_leaves(args[a]) == 0 then
      fail(op, '%s must be a tensor or a table of tensors to be differentiated, got %s', what, describe(args[a]))
    end
    args[a] = tree_map(args[a], function(x)
      local p, outer = prepare(op, x, what)
      nested = nested or outer
      leaves[#leaves + 1] = p
      return p
    end)
  end
  return leaves, nested
end

-- Note [Arguments changed in place]: the stand-in of an argument shares its memory, and an in-place
-- op on it (Torch7's x:mul(2)) is not recorded on a leaf: the gradient would be taken at the changed
-- value, silently wrong. PyTorch refuses the in-place op on a leaf that requires grad; here the
-- version counters taken before the call give the error after it (the caller's tensor has changed,
-- as calling func on it directly would have changed it; copying every argument to prevent that
-- would cost a copy of the parameters per call of vmap(grad(f))).
local C = lib.C
function Fn._versions(leaves)
  local v = {}
  for i, p in ipairs(leaves) do v[i] = C.tocha_tensor_version(p.p) end
  return v
end
function Fn._check_versions(op, leaves, versions)
  for i, p in ipairs(leaves) do
    if C.tocha_tensor_version(p.p) ~= versions[i] then
      fail(op, 'the function modified a differentiated argument in place (tensor %d of them), which gives a wrong '
        .. 'gradient; use out-of-place ops (torch.mul(x, 2), not x:mul(2))', i)
    end
  end
end

local function finish(x, keep) return keep and x or tree_map(x, function(t) return t:detach() end) end

-- ---- grad and gradAndValue ------------------------------------------------------------------------

local function grad_core(op, func, argnums, single, has_aux, ...)
  local nargs = select('#', ...)
  local args = { ... }
  local keep = Fn._keeps_graph(...)
  local leaves, nested = prepare_args(op, args, nargs, argnums)
  nested = nested or keep
  local versions = Fn._versions(leaves)
  local res = { torch.enableGrad(Fn._call_deeper, func, unpack(args, 1, nargs)) }
  Fn._check_versions(op, leaves, versions)  -- Note [Arguments changed in place]
  local out, aux = res[1], res[2]
  if not has_aux and table.maxn(res) > 1 then
    fail(op, 'the function returned %d values; return only the loss, or pass hasAux = true to return (loss, aux)', table.maxn(res))
  end
  -- Note [A number is not a loss]: Torch7's full reductions and criterion:forward return Lua
  -- numbers, which carry no graph even when computed from the inputs; taking them for a constant
  -- would give zero gradients silently.
  if type(out) == 'number' then
    fail(op, 'the function returned a number, which carries no gradient: return a tensor (Torch7\'s '
      .. 'criterion:forward(x, y), and x:sum() or torch.sum(x) of a tensor that needs no grad, give numbers; '
      .. 'criterion(x, y) gives a tensor)')
  end
  if not is_tensor(out) then fail(op, 'the function must return a one-element tensor, got %s', describe(out)) end
  if out:nElement() ~= 1 then
    fail(op, 'the function must return a one-element tensor (a loss), got a %s; torch.func.jacrev or vjp take other outputs', describe(out))
  end
  -- Note [Keeping the graph of a closure] (autograd_functional_util.lua): at the outermost level,
  -- func may still reach a tensor that requires grad through a closure
  if not nested and out:needsGrad() then nested = H.reaches_outer({ out }, leaves) end
  -- a tensor that does not require grad does not depend on the inputs: zero gradients (functorch's)
  local grads = {}
  if out:needsGrad() then
    grads = torch.autograd.grad({ out }, leaves, nil, { createGraph = nested, allowUnused = true })
  end
  local by_leaf = {}
  for i, p in ipairs(leaves) do
    local g = grads[i] or torch.zerosLike(p:detach())
    by_leaf[p] = nested and g or g:detach()
  end
  local per_arg = {}
  for i, a in ipairs(argnums) do per_arg[i] = tree_map(args[a], function(p) return by_leaf[p] end) end
  local value = finish(out, nested)
  local keep_aux = nested or (has_aux and H.reaches_outer(tree_leaves(aux), leaves))
  return single and per_arg[1] or per_arg, value, has_aux and finish(aux, keep_aux) or nil
end

--- torch.func.grad(func[, {argnums = 1, hasAux = false}]): the function computing the gradient of
--- func (which returns a one-element tensor) with respect to its argument argnums (a position or
--- a list of them; an argument may be a table of tensors, whose gradient is a table of the same
--- shape). With hasAux, func returns (loss, aux) and the new function returns (gradient, aux).
--- Example: torch.func.grad(function(x) return torch.sum(torch.sin(x)) end)(torch.Tensor({0, 1}))
function Fn.grad(func, opts)
  local op = 'func.grad'
  check_func(op, func)
  opts = options(op, opts, { 'argnums', 'hasAux' })
  local argnums, single = read_argnums(op, opts.argnums)
  local has_aux = opts.hasAux and true or false
  return function(...)
    local g, _, aux = grad_core(op, func, argnums, single, has_aux, ...)
    if has_aux then return g, aux end
    return g
  end
end

--- torch.func.gradAndValue(func[, {argnums = 1, hasAux = false}]): like torch.func.grad, but the
--- new function returns (gradient, value), or (gradient, value, aux) with hasAux.
--- Example: local g, v = torch.func.gradAndValue(function(x) return torch.sum(x * x) end)(torch.Tensor({1, 2}))
function Fn.gradAndValue(func, opts)
  local op = 'func.gradAndValue'
  check_func(op, func)
  opts = options(op, opts, { 'argnums', 'hasAux' })
  local argnums, single = read_argnums(op, opts.argnums)
  local has_aux = opts.hasAux and true or false
  return function(...)
    local g, value, aux = grad_core(op, func, argnums, single, has_aux, ...)
    if has_aux then return g, value, aux end
    return g, value
  end
end

require 'torch.func_products'
require 'torch.func_vmap'
require 'torch.func_module'
return Fn
