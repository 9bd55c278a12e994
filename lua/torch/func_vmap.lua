-- torch.func.vmap: a function mapped over a dim of its inputs (PyTorch's functorch vmap), with
-- inDims/outDims per argument and result, pytree arguments, and PyTorch's randomness modes.
-- Loaded by lua/torch/func.lua.
--
-- Note [vmap runs the function per slice]: PyTorch's vmap rewrites each op to act on the whole
-- batch at once (batching rules). Tocha's calls func once per slice along the mapped dims and
-- stacks the results, so it has vmap's semantics (including under autograd and inside grad,
-- jacrev...) but the speed of a loop: for large batches of small work, write the batched op.
-- Results that share memory across slices are copied (Note [Results that share memory]).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local Fn = torch.func
local H = require 'torch.autograd_functional_util'
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail
local C = lib.C
local tree_map, tree_leaves, options, check_func = Fn._tree_map, Fn._tree_leaves, Fn._options, Fn._check_func

local function is_tree(x) return type(x) == 'table' and not is_tensor(x) end

local function check_dim_value(op, what, d)
  if d ~= false and (type(d) ~= 'number' or d ~= math.floor(d) or d == 0) then
    fail(op, '%s must be a non-zero integer dim (1-based, negative from the end) or false, got %s', what, H.show(d))
  end
end

-- One dim (or false) per argument or per result from a number or a list.
local function per_position(op, what, spec, n, default)
  if spec == nil then spec = default end
  if type(spec) == 'number' or spec == false then
    check_dim_value(op, what, spec)
    local out = {}
    for i = 1, n do out[i] = spec end
    return out
  end
  if not is_tree(spec) then fail(op, '%s must be a dim, false or a list of them, got %s', what, H.show(spec)) end
  if #spec ~= n or table.maxn(spec) ~= n then
    fail(op, '%s lists %d entries for %d %s (write false, not nil, for one that is not mapped)', what,
      table.maxn(spec), n, what == 'inDims' and 'arguments' or 'results')
  end
  for i = 1, n do check_dim_value(op, what .. '[' .. i .. ']', spec[i]) end
  return spec
end

-- Note [Results that share memory]: a Torch7 module writes each call's output into the same
-- tensor, so slice 2's call would overwrite slice 1's result. The first slice's results are
-- cloned; a later result whose memory is that of a first-slice result (the same tensor, or a view
-- of its storage) is cloned too, and a fresh one is kept as it is (cloning every slice's
-- gradients doubled the time of vmap(grad(f)) on an MLP). A later result that shares memory with
-- one kept from an earlier slice, which was then overwritten, is an error rather than a wrong
-- result; results of one slice may share memory, and results that view an argument are cloned.
local function storage_key(t)
  return tostring(ffi.cast('intptr_t', C.tocha_tensor_data(t.p)) - t.p.storage_offset * t.p.elsize)
end
-- seen maps tensors and storages to 'cloned' or to the slice b whose result was kept there (results
-- of one slice may share memory: return y, y:narrow(...) or {a = y, b = y}).
local function unshared(op, t, seen, b)
  local base = storage_key(t)
  local prev = seen[t] or seen[base]
  if type(prev) == 'number' and prev ~= b then
    fail(op, 'the function returned a tensor that shares memory with the result of an earlier slice, which it '
      .. 'overwrote: return new tensors (clone the output of a module that reuses its output tensor)')
  end
  local mark = (b == 1 or prev == 'cloned') and 'cloned' or b
  if mark == 'cloned' then t = t:clone() end
  seen[t], seen[base] = mark, mark
  return t
end

-- The states of the default generators and of every live torch.Generator object (a function may
-- draw from one it closes over).
local function rng_snapshot()
  local s = { cpu = torch.getRNGState(), gens = {} }
  if torch.cuda.isAvailable() then s.cuda = torch.cuda.getRNGState() end
  for _, g in ipairs(torch._liveGenerators()) do s.gens[g] = g:getRNGState() end
  return s
end
local function rng_restore(s)
  torch.setRNGState(s.cpu)
  if s.cuda then torch.cuda.setRNGState(s.cuda) end
  for g, state in pairs(s.gens) do g:setRNGState(state) end
end
local function rng_changed(a, b)
  if not torch.equal(a.cpu, b.cpu) or (a.cuda ~= nil and not torch.equal(a.cuda, b.cuda)) then return true end
  for g, state in pairs(a.gens) do
    if b.gens[g] ~= nil and not torch.equal(state, b.gens[g]) then return true end
  end
  return false
end

-- Whether x is a table of (tables of) nothing: pytree with no leaves.
local function holds_nothing(x)
  for _, v in pairs(x) do
    if not is_tree(v) or not holds_nothing(v) then return false end
  end
  return true
end

-- The batch size and, per argument, a function giving slice b (nil for unmapped arguments).
local function mapped_arguments(op, args, nargs, dims)
  local batch
  local slicers = {}
  for a = 1, nargs do
    local d = dims[a]
    -- a table holding nothing (PyTorch's empty dict of buffers, in model ensembling) is unmapped
    if d and (is_tensor(args[a]) or (is_tree(args[a]) and not holds_nothing(args[a]))) then
      local leaves = tree_leaves(args[a])
      if #leaves == 0 then
        fail(op, 'inDims maps argument %d, which holds no tensor (give false for it)', a)
      end
      for _, x in ipairs(leaves) do
        local nd = x:dim()
        local dd = d < 0 and d + nd + 1 or d
        if dd < 1 or dd > nd then
          fail(op, 'inDims maps dim %d of argument %d, a %s, which has no such dim', d, a, describe(x))
        end
        local size = x:size(dd)
        if batch and size ~= batch then
          fail(op, 'the mapped dims must all have one size: argument %d has %d where an earlier one has %d', a, size, batch)
        end
        batch = size
      end
      slicers[a] = function(b)
        return tree_map(args[a], function(x) return x:select(d < 0 and d + x:dim() + 1 or d, b) end)
      end
    elseif d and args[a] ~= nil and type(args[a]) ~= 'table' then
      -- numbers, strings, functions... pass through unmapped, as PyTorch does for non-tensors
    end
  end
  if not batch then fail(op, 'no argument is mapped: at least one must be a tensor (or a table of tensors) with an inDims dim') end
  if batch == 0 then fail(op, 'the mapped dims have size 0') end
  local ref
  for a = 1, nargs do
    if slicers[a] then ref = tree_leaves(args[a])[1] break end
  end
  if ref and not H.is_float(ref) then ref = nil end
  return batch, slicers, ref
end

-- Stacks the per-slice values of one result (tensors, numbers or tables of them) along dim d.
-- Numbers (Torch7's full reductions return them) become a tensor of the first mapped input's
-- type when it is a floating one, of the default type otherwise.
-- Note [Unmapped results]: outDims false returns one slice's value, which is right only when every
-- slice gave the same one (PyTorch 2's out_dims=None errors on a batched result; 1.13 refuses None).
local function same_value(a, b)
  if is_tensor(a) then
    return is_tensor(b) and a:isSameSizeAs(b) and torch.typename(a) == torch.typename(b) and torch.equal(a, b)
  end
  if is_tree(a) then
    if not is_tree(b) then return false end
    for k, v in pairs(a) do if not same_value(v, b[k]) then return false end end
    for k in pairs(b) do if a[k] == nil then return false end end
    return true
  end
  return a == b
end

local function stack_result(op, i, values, d, ref)
  local first = values[1]
  if d == false then
    for b = 2, #values do
      if not same_value(first, values[b]) then
        fail(op, 'outDims[%d] is false but result %d differs between slice 1 and slice %d: it depends on the '
          .. 'mapped dim, give a dim for it', i, i, b)
      end
    end
    return first
  end
  if type(first) == 'number' then
    for b, v in ipairs(values) do
      if type(v) ~= 'number' then fail(op, 'result %d is a number for slice 1 but %s for slice %d', i, describe(v), b) end
    end
    if d ~= 1 and d ~= -1 then fail(op, 'outDims[%d] is %d, but result %d is a number (a batch of them has one dim)', i, d, i) end
    local t = torch.DoubleTensor(values)
    return ref and t:type(ref:type()) or t:type(torch.getdefaulttensortype())
  end
  if is_tensor(first) then
    for b, v in ipairs(values) do
      if not is_tensor(v) then fail(op, 'result %d is a tensor for slice 1 but %s for slice %d', i, describe(v), b) end
      if not v:isSameSizeAs(first) then
        fail(op, 'result %d has different sizes across slices: %s for slice 1, %s for slice %d', i, describe(first), describe(v), b)
      end
    end
    local nd = first:dim() + 1
    local dd = d < 0 and d + nd + 1 or d
    if dd < 1 or dd > nd then fail(op, 'outDims[%d] is %d, out of range for a result of %d dims', i, d, nd) end
    return torch.stack(values, dd)
  end
  if is_tree(first) then
    local out = {}
    for k in pairs(first) do
      local column = {}
      for b, v in ipairs(values) do
        if not is_tree(v) or v[k] == nil then fail(op, 'result %d changes its structure across slices (slice %d)', i, b) end
        column[b] = v[k]
      end
      out[k] = stack_result(op, i, column, d, ref)
    end
    return out
  end
  fail(op, 'result %d must be a tensor, a number or a table of them, got %s', i, describe(first))
end

--- torch.func.vmap(func[, {inDims = 1, outDims = 1, randomness = 'error', chunkSize}]): the
--- function that maps func over dim inDims of its arguments (a dim for all, or a list with one
--- dim or false per argument; tables of tensors are mapped leaf by leaf) and stacks each result
--- along outDims. randomness: 'error' (a random draw in func is an error), 'different' (each slice
--- draws its own numbers) or 'same' (each slice draws the same). Runs func once per slice (Note
--- [vmap runs the function per slice]); chunkSize is accepted and unused.
--- Example: torch.func.vmap(torch.dot)(torch.randn(4, 3), torch.randn(4, 3))
function Fn.vmap(func, opts)
  local op = 'func.vmap'
  check_func(op, func)
  opts = options(op, opts, { 'inDims', 'outDims', 'randomness', 'chunkSize' })
  local randomness = opts.randomness or 'error'
  if randomness ~= 'error' and randomness ~= 'different' and randomness ~= 'same' then
    fail(op, "randomness must be 'error', 'different' or 'same', got %s", H.show(randomness))
  end
  Fn._check_chunk_size(op, opts.chunkSize)
  return function(...)
    local nargs = select('#', ...)
    local args = { ... }
    local dims = per_position(op, 'inDims', opts.inDims, nargs, 1)
    local batch, slicers, ref = mapped_arguments(op, args, nargs, dims)
    local any_grad, results, nres, seen = false, {}, nil, {}
    -- a result that views an argument (its slice, a narrow of it) is copied: slices 2 and 3 returning
    -- views of one argument are not a reused output buffer (they were taken for one). The unmapped
    -- arguments are walked once per table: they may hold cycles.
    local walked = {}
    for a = 1, nargs do
      Fn._any_tensor(args[a], function(t)
        any_grad = any_grad or t:needsGrad()
        seen[storage_key(t)] = 'cloned'
        return false
      end, false, walked)
    end
    local start = randomness ~= 'different' and rng_snapshot() or nil
    for b = 1, batch do
      local call = {}
      for a = 1, nargs do call[a] = slicers[a] and slicers[a](b) or args[a] end
      if randomness == 'same' then rng_restore(start) end
      local res = { func(unpack(call, 1, nargs)) }
      if randomness == 'error' and rng_changed(start, rng_snapshot()) then
        rng_restore(start)  -- the error leaves the generator as it found it
        fail(op, "the function draws random numbers, which randomness = 'error' (the default) forbids: pass "
          .. "randomness = 'different' or 'same'")
      end
      local n = table.maxn(res)
      if nres and n ~= nres then fail(op, 'the function returned %d values for slice 1 but %d for slice %d', nres, n, b) end
      nres = n
      for i = 1, n do
        if any_grad and type(res[i]) == 'number' then  -- Note [A number is not a loss] (func.lua)
          fail(op, 'result %d is a number, which carries no gradient, while an input requires grad: return a '
            .. 'tensor (criterion(x, y) gives a tensor where criterion:forward gives a number)', i)
        end
        results[i] = results[i] or {}
        results[i][b] = tree_map(res[i], function(t) return unshared(op, t, seen, b) end)
      end
    end
    if nres == 0 then fail(op, 'the function returned nothing; it must return tensors') end
    local outs = per_position(op, 'outDims', opts.outDims, nres, 1)
    local stacked = {}
    for i = 1, nres do stacked[i] = stack_result(op, i, results[i], outs[i], ref) end
    return unpack(stacked, 1, nres)
  end
end


return Fn
