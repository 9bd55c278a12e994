-- Shared helpers of torch.autograd.functional (autograd_functional*.lua): argument checks that name
-- the public function, input copies, calling the user's function, strict mode, the grad wrapper
-- and the shaping of results as tensors or arrays like PyTorch's tuples.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail
local C = lib.C

local H = {}

-- ---- arguments ----------------------------------------------------------------------------------
local FLOAT = { [lib.dtype.f32] = true, [lib.dtype.f64] = true, [lib.dtype.f16] = true, [lib.dtype.bf16] = true }
function H.is_float(t) return FLOAT[t.p.dtype] == true end

-- A value as an error message shows it: numbers and strings themselves (describe gives their type only).
function H.show(v)
  if type(v) == 'number' or type(v) == 'boolean' then return tostring(v) end
  if type(v) == 'string' then return string.format('%q', v) end
  return describe(v)
end

function H.check_func(op, func)
  if type(func) ~= 'function' and not (type(func) == 'table' and getmetatable(func) and getmetatable(func).__call) then
    fail(op, 'expected a function as argument 1, got %s', describe(func))
  end
end

-- Options are checked by name so that PyTorch spellings (create_graph) do not pass silently.
function H.options(op, opts, names)
  if opts == nil then return {} end
  if type(opts) ~= 'table' or is_tensor(opts) then fail(op, 'options must be a table, got %s', describe(opts)) end
  local valid = {}
  for _, n in ipairs(names) do valid[n] = true end
  for k in pairs(opts) do
    if not valid[k] then fail(op, 'unknown option %s (valid options: %s)', tostring(k), table.concat(names, ', ')) end
  end
  return opts
end

function H.strategy(op, s, key)
  s = s or 'reverseMode'
  if s ~= 'reverseMode' and s ~= 'forwardMode' then
    fail(op, "%s must be 'reverseMode' or 'forwardMode', got %s", key, H.show(s))
  end
  return s
end

-- vjp(func, inputs, opts) leaves v out: a plain table that is not an array is the options.
function H.split_v(v, opts)
  if opts == nil and type(v) == 'table' and not is_tensor(v) and v[1] == nil then return nil, v end
  return v, opts
end

-- Note [Tensors or arrays]: PyTorch's "a tensor or a tuple of tensors" is a tensor or a Lua array of
-- tensors here; the flag says which, so results come back in the caller's form (H.shape1/shape2).
function H.as_list(op, x, what)
  if is_tensor(x) then return false, { x } end
  if type(x) ~= 'table' then fail(op, '%s must be a tensor or an array of tensors, got %s', what, describe(x)) end
  local n = table.maxn(x)
  if n == 0 and next(x) ~= nil then
    fail(op, '%s is a table with keys (such as %s); expected a tensor or an array of tensors', what, tostring((next(x))))
  end
  if n == 0 then fail(op, '%s is an empty table; expected a tensor or an array of tensors', what) end
  local list = {}
  for i = 1, n do
    if not is_tensor(x[i]) then
      fail(op, '%s must be a tensor or an array of tensors, but element %d is %s', what, i, describe(x[i]))
    end
    list[i] = x[i]
  end
  return true, list
end

function H.check_float(op, list, what)
  for i, t in ipairs(list) do
    if not H.is_float(t) then fail(op, '%s %d is %s; it must be a floating-point tensor', what, i, describe(t)) end
  end
end

-- v must match the tensors it multiplies (outputs for vjp, inputs for jvp/hvp/vhp) in number and
-- size; a different floating type is converted, as PyTorch's engine casts gradients.
function H.check_v(op, v, refs, refs_are_list, what)
  local _, vs = H.as_list(op, v, 'v')
  if #vs ~= #refs then
    if refs_are_list then fail(op, 'v has %d tensors but there are %d %ss', #vs, #refs, what) end
    fail(op, 'v must be a single tensor (the %s is one tensor), got an array of %d tensors', what, #vs)
  end
  for i, t in ipairs(vs) do
    local r = refs[i]
    if not H.is_float(t) then fail(op, 'v %d is %s; it must be a floating-point tensor', i, describe(t)) end
    if not t:isSameSizeAs(r) then
      fail(op, 'v %d has size %s but %s %d has size %s', i, types.shape_str(t.p), what, i, types.shape_str(r.p))
    end
    if torch.typename(t) ~= torch.typename(r) then vs[i] = t:typeAs(r) end
  end
  return vs
end

-- v may be left out only when it would be a single one-element tensor (PyTorch's rule); it is then 1.
function H.default_v(op, refs, what)
  if #refs ~= 1 or refs[1]:nElement() ~= 1 then
    fail(op, 'v can be omitted only when the function has a single %s with a single element, got %s',
      what, #refs == 1 and describe(refs[1]) or (#refs .. ' tensors'))
  end
  return { torch.onesLike(refs[1]) }
end

-- Note [Keeping the graph of a closure]: torch.func's transforms at the outermost level keep their
-- results' graph when the function closes over a tensor that requires grad (grad(function(x) return
-- torch.sum(x * w) end)(x) is w, connected to w, as functorch's). The arguments do not show it, so
-- the transforms pass createGraph = H.OUTER and the body decides after calling the function: the
-- graph of its outputs reaches a leaf that requires grad other than the input copies. The public
-- torch.autograd.functional keeps PyTorch's rule (createGraph false detaches) and never sees H.OUTER.
H.OUTER = setmetatable({}, { __tostring = function() return 'createGraph = outer' end })
function H.reaches_outer(outs, ins)
  local o, i = {}, {}
  for _, t in ipairs(outs) do if is_tensor(t) then o[#o + 1] = t.p end end
  for _, t in ipairs(ins) do i[#i + 1] = t.p end
  if #o == 0 then return false end
  local r = C.tocha_autograd_reaches_other_leaf(#o, ffi.new('tocha_tensor*[?]', #o, o), #i,
    ffi.new('tocha_tensor*[?]', math.max(#i, 1), i))
  if r < 0 then lib.check(r) end
  return r == 1
end
-- create as given, or, for H.OUTER, whether outs reach a leaf outside the input copies ins.
function H.decide(create, outs, ins)
  if create ~= H.OUTER then return create end
  return H.reaches_outer(outs, ins)
end

-- Note [Inputs are copies]: func never sees the caller's tensors, because Torch7's methods work in
-- place (x:pow(3) overwrites x) and an in-place op on a leaf is not recorded. Each input is a copy:
-- with createGraph an input that requires grad is cloned with the clone recorded, so results stay
-- differentiable with respect to the caller's tensor; otherwise a detached copy that requires grad.
-- torch.autograd.grad then differentiates with respect to the copies, which never touches any
-- .grad; H.call rejects a func that writes into them. PyTorch uses views here (no copy).
function H.prepare(list, create)
  local out = {}
  for i, t in ipairs(list) do
    if create and t:needsGrad() then out[i] = t:clone()
    else out[i] = t:detach():clone():requiresGrad() end
  end
  return out
end
-- v is only read: an alias, detached unless it carries a graph the results should keep.
function H.prepare_v(list, create)
  local out = {}
  for i, t in ipairs(list) do out[i] = (create and t:needsGrad()) and t or t:detach() end
  return out
end

-- Calls func on the prepared inputs; returns is_list, outputs.
function H.call(op, func, ins)
  local versions = {}
  for i, x in ipairs(ins) do versions[i] = C.tocha_tensor_version(x.p) end
  local res = { func(unpack(ins, 1, #ins)) }
  for i, x in ipairs(ins) do
    if C.tocha_tensor_version(x.p) ~= versions[i] then
      fail(op, 'the function modified input %d in place, which autograd cannot differentiate (Torch7 methods such '
        .. 'as x:pow(2) work in place: use torch.pow(x, 2))', i)
    end
  end
  local n = table.maxn(res)
  if n > 1 then fail(op, 'the function returned %d values; return one tensor or one array {y1, y2, ...} of tensors', n) end
  local r = res[1]
  local nums = type(r) == 'number'
  if type(r) == 'table' and not is_tensor(r) then
    for i = 1, table.maxn(r) do if type(r[i]) == 'number' then nums = true end end
  end
  if nums then
    fail(op, 'the function returned a number where a tensor was expected (a full reduction such as x:sum() gives '
      .. 'a number, not a 0-dim tensor, when its input does not depend on the inputs that require grad)')
  end
  return H.as_list(op, r, 'the output of the function')
end

-- ---- strict mode (PyTorch's _check_requires_grad and _fill_in_zeros) ------------------------------
local NEEDS_GRAD = {
  outputs = 'output %d of the function does not require grad; in strict mode the outputs must be computed '
    .. 'in a differentiable way from the inputs',
  jacobian = 'the jacobian with respect to input %d is independent of the inputs; in strict mode the function '
    .. 'must be twice differentiable with a jacobian that depends on the inputs (a linear function is not)',
  hessian = 'the hessian with respect to input %d is independent of the inputs; in strict mode the function '
    .. 'must be thrice differentiable with a hessian that depends on the inputs',
  gradInputs = 'the gradient with respect to input %d is independent of the inputs of the function, which '
    .. 'strict mode does not allow',
}
H.ZERO = {
  back = 'the output of the function is independent of input %d, which strict mode does not allow',
  backTrick = 'the gradient with respect to the inputs is independent of entry %d of the grad outputs of the '
    .. 'double-backward trick (output %d does not depend on the inputs), which strict mode does not allow',
  doubleBack = 'the jacobian of the function is independent of input %d, which strict mode does not allow',
  doubleBackTrick = 'the hessian of the function is independent of entry %d of the grad jacobian used by the '
    .. 'double-backward trick, which strict mode does not allow',
}

function H.check_requires_grad(op, list, kind, strict, n)
  if not strict then return end
  for i = 1, n or #list do
    local t = list[i]
    if not t or not t:needsGrad() then fail(op, 'strict: ' .. NEEDS_GRAD[kind], i) end
  end
end

-- Replaces the gradients autograd left out (independent parts) by zeros shaped like refs.
function H.fill_zeros(op, grads, refs, strict, stage)
  local out = {}
  for i, r in ipairs(refs) do
    local g = grads[i]
    if not g then
      if strict then fail(op, 'strict: ' .. H.ZERO[stage], i, i) end
      g = torch.zerosLike(r)
    end
    out[i] = g
  end
  return out
end

-- ---- the engine ---------------------------------------------------------------------------------
-- torch.autograd.grad over the outputs that require grad (PyTorch's _autograd_grad): a list with a
-- gradient or nil per input; n is the number of outputs (the list may hold nils).
function H.grad(outs, ins, gos, create, retain, n)
  local o, g, k = {}, {}, 0
  for i = 1, n or table.maxn(outs) do
    local t = outs[i]
    if t and t:needsGrad() then
      k = k + 1
      o[k], g[k] = t, gos and gos[i] or nil
    end
  end
  if k == 0 then return {} end
  return torch.autograd.grad(o, ins, g, { createGraph = create, retainGraph = retain, allowUnused = true })
end

-- Results without createGraph are detached so they neither require grad nor keep the graph alive.
function H.finish(x, create)
  if create then return x end
  if is_tensor(x) then return x:detach() end
  local out = {}
  for k, v in pairs(x) do out[k] = H.finish(v, create) end
  return out
end

function H.shape1(list, is_list) if is_list then return list end return list[1] end
function H.shape2(res, out_list, in_list)
  if out_list and in_list then return res end
  if out_list then
    local r = {}
    for i = 1, #res do r[i] = res[i][1] end
    return r
  end
  if in_list then return res[1] end
  return res[1][1]
end

-- The options, input list and flags every public function starts from.
function H.arguments(op, func, inputs, opts, names)
  opts = H.options(op, opts, names)
  H.check_func(op, func)
  local in_list, ins = H.as_list(op, inputs, 'inputs')
  H.check_float(op, ins, 'input')
  local create = opts.createGraph == H.OUTER and H.OUTER or (opts.createGraph and true or false)
  return opts, in_list, ins, create, opts.strict and true or false
end

-- func's single output for hessian/hvp/vhp, checked: one tensor with one element.
function H.single_output(op, func, ins, strict)
  local out_list, outs = H.call(op, func, ins)
  H.check_requires_grad(op, outs, 'outputs', strict)
  if out_list then fail(op, 'the function must return a single tensor, got an array of %d tensors', #outs) end
  if outs[1]:nElement() ~= 1 then
    fail(op, 'the function must return a tensor with a single element, got %s', describe(outs[1]))
  end
  return outs[1]
end

-- The first half of Note [Forward mode by double backward] (autograd_functional.lua): calls func
-- on the input copies xs and takes g(u) = J^T u with a graph, at u = 0 for every output that needs
-- a gradient. Returns the outputs (as H.call), gis = g(u) per input, the list `dense` of the u
-- tensors and `at`, where at[i] is output i's position in dense (nil: independent of the inputs).
function H.transposed_jacobian(op, func, xs, strict)
  local out_list, outs = H.call(op, func, xs)
  H.check_requires_grad(op, outs, 'outputs', strict)
  local dense, at, gos = {}, {}, {}
  for i, out in ipairs(outs) do
    if out:needsGrad() then
      gos[i] = torch.zerosLike(out):requiresGrad()
      dense[#dense + 1], at[i] = gos[i], #dense + 1
    end
  end
  local gis = H.grad(outs, xs, gos, true, true)
  H.check_requires_grad(op, gis, 'gradInputs', strict, #xs)
  return out_list, outs, gis, dense, at
end

return H
