-- Activation checkpointing (PyTorch's torch.utils.checkpoint, reentrant variant): a segment runs
-- without recording and keeps only its inputs; backward replays it with recording on, under the
-- RNG and autocast state of the forward, and differentiates the replay.
--   torch.utils.checkpoint(fn, ...)                       (= .checkpoint(fn, ...))
--   torch.utils.checkpoint.checkpointWith(opts, fn, ...)  opts = {preserveRngState=true}
--   torch.utils.checkpoint.checkpointSequential(seq, segments, input[, opts])
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, fail = lib.C, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

local M = {}
local OP, SEQ_OP = 'utils.checkpoint', 'utils.checkpointSequential'

-- Note [Checkpoint options]: fn's arguments can be any Lua values, tables included, so a trailing
-- options table could not be told apart from an argument. checkpoint(fn, ...) passes every
-- argument through and uses the defaults; checkpointWith(opts, fn, ...) takes the options first.
-- checkpointSequential takes one tensor input, so its options can trail. Unknown keys are errors
-- (a misspelt preserveRngState must not silently keep the default).
local function read_opts(op, opts, allowed)
  local out = { preserveRngState = true, clearState = true }
  if opts == nil then return out end
  if type(opts) ~= 'table' or is_tensor(opts) then fail(op, 'options must be a table, got %s', describe(opts)) end
  for k, v in pairs(opts) do
    if not allowed[k] then fail(op, 'unknown option %s (expected %s)', tostring(k), allowed._list) end
    if type(v) ~= 'boolean' then fail(op, 'option %s must be a boolean, got %s', k, describe(v)) end
    out[k] = v
  end
  return out
end
local CHECKPOINT_OPTS = { preserveRngState = true, _list = 'preserveRngState' }
local SEQUENTIAL_OPTS = { preserveRngState = true, clearState = true, _list = 'preserveRngState, clearState' }

local function is_module(x) return type(x) == 'table' and nn ~= nil and torch.isTypeOf(x, 'nn.Module') end

-- fn as a function: nn modules run through forward (autograd style), callable tables through __call.
local function as_function(op, fn, what)
  if type(fn) == 'function' then return fn end
  if is_module(fn) then return function(...) return fn:forward(...) end end
  local mt = getmetatable(fn)
  if type(mt) == 'table' and mt.__call then return function(...) return fn(...) end end
  fail(op, 'expected %s (a function or an nn.Module), got %s', what, describe(fn))
end

-- ---- RNG and autocast state of the forward ---------------------------------------------------

-- The CUDA devices of the tensor arguments (PyTorch stashes the generators of those devices).
local function cuda_devices(args, n)
  local devs, seen = {}, {}
  for i = 1, n do
    local a = args[i]
    if is_tensor(a) and a:isCuda() then
      local d = a:getDevice()
      if not seen[d] then seen[d] = true devs[#devs + 1] = d end
    end
  end
  return devs
end

-- Note [Checkpoint and the CUDA generator]: replaying a segment that draws CUDA random numbers
-- (dropout) needs the CUDA generators' states at the forward: those of the devices of the tensor
-- arguments (as PyTorch), through torch.cuda.getRNGState/setRNGState.
local function snapshot_rng(devs)
  local s = { cpu = torch.getRNGState(), cuda = {} }
  if #devs > 0 and torch.cuda.isAvailable() then
    for _, d in ipairs(devs) do s.cuda[#s.cuda + 1] = { dev = d, state = torch.cuda.getRNGState(d) } end
  end
  return s
end
local function restore_rng(s)
  torch.setRNGState(s.cpu)
  for _, c in ipairs(s.cuda) do torch.cuda.setRNGState(c.state, c.dev) end
end
local function current_rng(s)
  local cur = { cpu = torch.getRNGState(), cuda = {} }
  for _, c in ipairs(s.cuda) do cur.cuda[#cur.cuda + 1] = { dev = c.dev, state = torch.cuda.getRNGState(c.dev) } end
  return cur
end

local function autocast_state()
  return { cpu = torch.isAutocastEnabled('cpu') and torch.getAutocastDtype('cpu'),
           cuda = torch.isAutocastEnabled('cuda') and torch.getAutocastDtype('cuda') }
end
-- Runs fn(...) under the autocast state ac (PyTorch's recomputation does the same, so a segment
-- run under torch.autocast is replayed in the same precision after the region has closed).
local function under_autocast(ac, fn, ...)
  local now = autocast_state()
  if now.cpu == ac.cpu and now.cuda == ac.cuda then return fn(...) end
  local function on_cuda(...)
    if ac.cuda then return torch.autocast('cuda', ac.cuda, fn, ...) end
    return torch.noAutocast('cuda', fn, ...)
  end
  if ac.cpu then return torch.autocast('cpu', ac.cpu, on_cuda, ...) end
  return torch.noAutocast('cpu', on_cuda, ...)
end

-- ---- the autograd Function -------------------------------------------------------------------

local autograd_grad, autograd_backward = torch.autograd.grad, torch.autograd.backward
local tensor_backward = torch._tensor_methods.backward
-- Note [Checkpoint inside torch.autograd.grad]: the replayed graph is differentiated with
-- torch.autograd.backward when the engine call that reached this node is a backward (parameter
-- gradients accumulate into .grad, as without checkpointing), and with torch.autograd.grad for
-- the segment's inputs only when it is a torch.autograd.grad (which must leave every .grad
-- alone). The nearest of those functions on the Lua stack says which; the node callback runs on
-- the stack of the Lua call that started the engine.
local function inside_grad_call()
  local level = 3
  while true do
    local info = debug.getinfo(level, 'f')
    if not info then return false end
    local f = info.func
    if f == autograd_grad then return true end
    if f == autograd_backward or f == tensor_backward then return false end
    level = level + 1
  end
end

-- For each of fn's results: true for a tensor (the node's outputs, in order), else what it was.
local function result_kinds(res, n)
  local kinds = {}
  for i = 1, n do kinds[i] = is_tensor(res[i]) or describe(res[i]) end
  return kinds
end

-- Note [Checkpoint results in tables]: a Torch7 module returns several tensors as a table
-- (nn.LSTMCell's {h, c}, PyTorch's tuple); the node only sees results that are tensors, so the
-- tensors of a table would come out of the unrecorded forward without history and their gradients
-- would be lost. The results are therefore flattened: plain tables (no metatable) holding tensors,
-- at any depth, become their entries (keys in a fixed order) for the node, and the caller gets the
-- tables rebuilt around the node's outputs. The replay is flattened along the forward's layout.
local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == 'number' or ta == 'string' then return a < b end
  return tostring(a) < tostring(b)
end
local function holds_tensor(v, seen)
  if is_tensor(v) then return true end
  if type(v) ~= 'table' or getmetatable(v) ~= nil or seen[v] then return false end
  seen[v] = true
  for _, e in pairs(v) do if holds_tensor(e, seen) then return true end end
  return false
end
-- The layout of a value: true (kept as one result) or { keys = sorted keys, sub = their layouts };
-- a table met again inside itself (a cycle) is kept as one result there.
local function layout_of(v, open)
  open = open or {}
  if is_tensor(v) or open[v] or not holds_tensor(v, {}) then return true end
  open[v] = true
  local keys, sub = {}, {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, key_less)
  for i, k in ipairs(keys) do sub[i] = layout_of(v[k], open) end
  open[v] = nil
  return { keys = keys, sub = sub }
end
-- Appends the entries of v along layout to flat (flat.n counts, nils included).
local function flatten(v, layout, flat)
  if layout == true then
    flat.n = flat.n + 1
    flat[flat.n] = v
    return
  end
  for i, k in ipairs(layout.keys) do
    local e = nil  -- (not `v[k] or nil`: a false entry stays false)
    if type(v) == 'table' then e = v[k] end
    flatten(e, layout.sub[i], flat)
  end
end
local function flatten_results(res, n, layouts)
  local flat = { n = 0 }
  for i = 1, n do flatten(res[i], layouts[i], flat) end
  return flat
end
local function rebuild(layouts, n, flat)
  local pos, out = 0, {}
  local function build(layout)
    if layout == true then
      pos = pos + 1
      return flat[pos]
    end
    local t = {}
    for i, k in ipairs(layout.keys) do t[k] = build(layout.sub[i]) end
    return t
  end
  for i = 1, n do out[i] = build(layouts[i]) end
  return unpack(out, 1, n)
end

local Checkpoint = torch.autograd.Function(OP)

-- Forward arguments: st (the call's state), dummy (see Note [Checkpoint without inputs that
-- require grad]), then fn's arguments. Runs with recording off (autograd.Function's forward).
function Checkpoint.forward(ctx, st, dummy, ...)
  local n = select('#', ...)
  local args, tensors, positions, versions = { ... }, {}, {}, {}
  for i = 1, n do
    if is_tensor(args[i]) then
      tensors[#tensors + 1], positions[#positions + 1] = args[i], i
      versions[#versions + 1] = C.tocha_tensor_version(args[i].p)
      args[i] = false  -- kept once, by saveForBackward
    end
  end
  if st.preserve then st.rng = snapshot_rng(cuda_devices({ ... }, n)) end
  st.autocast = autocast_state()
  local res = { st.fn(...) }
  local nres, layouts = table.maxn(res), {}
  for i = 1, nres do layouts[i] = layout_of(res[i]) end
  st.nres, st.layouts = nres, layouts
  local flat = flatten_results(res, nres, layouts)
  -- An input changed in place by fn would be replayed from its changed value.
  for k, t in ipairs(tensors) do
    if C.tocha_tensor_version(t.p) ~= versions[k] then
      fail(st.op, 'fn modified its tensor argument %d in place; the recomputation in backward would start from the '
        .. 'modified value (use an out-of-place op, or clone the input first)', positions[k])
    end
  end
  ctx:saveForBackward(unpack(tensors))
  ctx.st, ctx.args, ctx.nargs, ctx.positions = st, args, n, positions
  ctx.nres = flat.n
  ctx.kinds = result_kinds(flat, ctx.nres)
  if st.afterForward then st.afterForward() end
  return unpack(flat, 1, flat.n)
end

-- pcall's status and its other values in a table that keeps their positions: a nil result between
-- tensors (fn returning a, nil, b) must stay a hole, which table.remove(res, 1) would not shift.
local function collect(ok, ...) return ok, { ... } end

-- Replays fn on detached copies of the inputs with recording on, under the forward's RNG state
-- (the RNG state of the caller is put back afterwards) and autocast state.
local function replay(ctx)
  local st, args = ctx.st, {}
  local saved = { ctx:savedTensors() }
  for i = 1, ctx.nargs do args[i] = ctx.args[i] end
  local inputs = {}
  for k, pos in ipairs(ctx.positions) do
    local t = saved[k]
    local d = t:detach()
    if t:needsGrad() then d:requiresGrad() end
    args[pos], inputs[k] = d, d
  end
  local caller_rng = st.preserve and current_rng(st.rng)
  if st.preserve then restore_rng(st.rng) end
  local ok, res = collect(pcall(torch.enableGrad, under_autocast, st.autocast, st.fn, unpack(args, 1, ctx.nargs)))
  if caller_rng then restore_rng(caller_rng) end
  if not ok then error(res[1], 0) end
  -- Flattened along the forward's layout (Note [Checkpoint results in tables]); extra results kept.
  local flat = flatten_results(res, st.nres, st.layouts)
  for i = st.nres + 1, table.maxn(res) do
    flat.n = flat.n + 1
    flat[flat.n] = res[i]
  end
  return flat, inputs
end

-- Note [Checkpoint results that are numbers]: fn's forward runs with grad mode off, where a full
-- reduction (x:sum()) is a Lua number (Note [Full reductions under autograd]); the replay, with
-- grad mode on, makes it a 0-dim tensor that requires grad. A number result carries no gradient,
-- so when the replay shows that it should have, backward raises rather than drop that gradient.
local function replayed_outputs(ctx, res)
  local outs = {}
  for i = 1, math.max(ctx.nres, table.maxn(res)) do
    local r = res[i]
    if ctx.kinds[i] == true then
      if not is_tensor(r) then
        error(string.format('[%s] fn returned a tensor as result %d in the forward but %s when run again in '
          .. 'backward; fn must do the same thing when it is run again', ctx.st.op, i, describe(r)), 0)
      end
      outs[#outs + 1] = r
    elseif is_tensor(r) and r:needsGrad() then
      error(string.format('[%s] result %d of fn needs a gradient, but the forward (run without recording) returned '
        .. '%s there, which cannot carry one: a full reduction such as x:sum() is a number when grad mode is off; '
        .. 'return a tensor (x:sum(1), x:view(-1):sum(1)...)', ctx.st.op, i, ctx.kinds[i] or 'nil'), 0)
    end
  end
  return outs
end

function Checkpoint.backward(ctx, ...)
  if torch.isGradEnabled() then
    error('[' .. ctx.st.op .. '] createGraph=true (double backward) through a checkpoint is not supported: its gradients '
      .. 'come from a replay whose graph is not connected to the inputs; call the function without checkpointing', 0)
  end
  local grads, ngrads = { ... }, select('#', ...)
  local res, inputs = replay(ctx)
  local outs = replayed_outputs(ctx, res)
  local o, g = {}, {}
  for i = 1, ngrads do
    if grads[i] ~= nil and outs[i]:needsGrad() then o[#o + 1], g[#g + 1] = outs[i], grads[i] end
  end
  local input_grads = {}
  if #o > 0 then
    if inside_grad_call() then
      local want, at = {}, {}
      for k, d in ipairs(inputs) do if d:needsGrad() then want[#want + 1], at[#want + 1] = d, k end end
      if #want > 0 then
        local gs = autograd_grad(o, want, g, { allowUnused = true })
        for j, k in ipairs(at) do input_grads[k] = gs[j] end
      end
    else
      autograd_backward(o, g)
      for k, d in ipairs(inputs) do if d:needsGrad() then input_grads[k] = d.grad end end
    end
  end
  if ctx.st.afterBackward then ctx.st.afterBackward(true) end
  -- One gradient per forward argument: st, dummy, then fn's arguments.
  local res = {}
  for k, pos in ipairs(ctx.positions) do res[pos + 2] = input_grads[k] end
  return unpack(res, 1, ctx.nargs + 2)
end

-- Note [Checkpoint without inputs that require grad]: a Function records a node only when an
-- input requires grad, but a segment whose inputs need none (the data going into the first
-- layers) may still use parameters that do; without a node their gradients would be silently
-- lost (PyTorch's reentrant checkpoint only warns). A one-element leaf that requires grad is
-- then passed as an extra input, so the node exists and the replay accumulates the parameters'
-- gradients. The cost: the outputs require grad even when fn uses no parameter (a backward
-- through them then does nothing).
local dummy
local function run(op, opts, fn, hooks, ...)
  if not torch.isGradEnabled() then return fn(...) end
  local any = false
  for i = 1, select('#', ...) do
    local a = select(i, ...)
    if is_tensor(a) and a:needsGrad() then any = true break end
  end
  if not any then dummy = dummy or torch.zeros(1):requiresGrad() end
  local st = { op = op, fn = fn, preserve = opts.preserveRngState }
  if hooks then st.afterForward, st.afterBackward = hooks, hooks end
  local flat = { Checkpoint.apply(st, (not any) and dummy or nil, ...) }  -- sets st.layouts
  return rebuild(st.layouts, st.nres, flat)
end

--- torch.utils.checkpoint.checkpoint(fn, ...): returns fn(...) while saving only fn's arguments:
--- fn runs without recording, and backward runs it again with recording on (restoring the CPU
--- and CUDA RNG states of the forward, so dropout draws the same mask) to get the gradients of
--- the tensor arguments and of the parameters fn uses, as without checkpointing. Every argument
--- passes through (use checkpointWith for options); fn (a function or an nn.Module) may return
--- several values, tensors or not, and tables of tensors (nn.LSTMCell's {h, c}: rebuilt around
--- the recorded tensors). Also callable as torch.utils.checkpoint(fn, ...). Limits:
--- createGraph through it is an error; torch.autograd.grad reaches fn's tensor arguments but
--- not tensors fn captures (pass those as arguments); fn must not change its inputs in place
--- (an error) and must return tensors, not numbers, for results that need a gradient; fields a
--- module sets (an RNN's m.hN) carry no gradient (return them: function(x) local y = m:forward(x)
--- return y, m.hN end).
--- Example: local y = torch.utils.checkpoint.checkpoint(torch.tanh, torch.randn(3):requiresGrad())
function M.checkpoint(fn, ...)
  return run(OP, read_opts(OP, nil, CHECKPOINT_OPTS), as_function(OP, fn, 'fn'), nil, ...)
end

--- torch.utils.checkpoint.checkpointWith(opts, fn, ...): checkpoint(fn, ...) with options:
--- opts.preserveRngState (default true) restores the RNG states of the forward for the
--- recomputation; false skips that (cheaper, but random ops draw new numbers in backward).
--- Example: torch.utils.checkpoint.checkpointWith({ preserveRngState = false }, torch.exp, torch.randn(2):requiresGrad())
function M.checkpointWith(opts, fn, ...)
  local o = read_opts(OP, opts, CHECKPOINT_OPTS)
  return run(OP, o, as_function(OP, fn, 'fn'), nil, ...)
end

-- ---- checkpointSequential ---------------------------------------------------------------------

local function layers_of(seq)
  if is_module(seq) then
    if torch.isTypeOf(seq, 'nn.Sequential') then return seq.modules end
  elseif type(seq) == 'table' and getmetatable(seq) == nil then
    for i, f in ipairs(seq) do
      if not is_module(f) and type(f) ~= 'function' then
        fail(SEQ_OP, 'element %d of the list is %s, expected an nn.Module or a function', i, describe(f))
      end
    end
    return seq
  end
  fail(SEQ_OP, 'expected an nn.Sequential or a list of modules and functions, got %s',
    is_module(seq) and torch.typename(seq) or describe(seq))
end

local function segment(layers, first, last)
  return function(x)
    for i = first, last do
      local f = layers[i]
      if type(f) == 'function' then x = f(x) else x = f:forward(x) end
    end
    return x
  end
end

-- Note [Checkpointing nn modules]: a Torch7 module keeps its last output (and gradInput and other
-- buffers) in fields, which would keep every activation of a segment alive and void the saving.
-- So by default the modules of a checkpointed segment are cleared with clearState() after its
-- forward and after its backward (clearState replaces the fields by new tensors: the segment's
-- output returned to the caller is not touched). After the backward, the outputs of the replay
-- are detached first: a Torch7 module's autograd node keeps its output, which has the node as
-- history, and that loop would keep the replaced tensors alive. {clearState=false} keeps the
-- buffers, for code that reads m.output (or an RNN's hN) afterwards.
local function detach_all(x)
  if is_tensor(x) then x:detach_()
  elseif type(x) == 'table' then for _, v in ipairs(x) do detach_all(v) end end
end
local function detach_outputs(m) detach_all(m.output) end
local function clearer(layers, first, last)
  return function(after_backward)
    for i = first, last do
      local f = layers[i]
      if type(f) ~= 'function' then
        if after_backward then f:apply(detach_outputs) end
        f:clearState()
      end
    end
  end
end

--- torch.utils.checkpoint.checkpointSequential(seq, segments, input[, opts]): runs an
--- nn.Sequential (or a list of modules and functions) on input in `segments` chunks of
--- floor(n/segments) layers (the last takes the rest) and checkpoints all but the last, like
--- PyTorch's checkpoint_sequential: only the chunks' inputs are kept for backward. Modules run
--- in autograd style (m:forward(x), then backward from the loss). opts.preserveRngState (default
--- true) as in checkpointWith; opts.clearState (default true) empties the buffers of the modules
--- of checkpointed chunks (m.output...) so that their activations are freed.
--- Example: torch.utils.checkpoint.checkpointSequential(nn.Sequential():add(nn.Linear(3, 3)):add(nn.Tanh()), 2, torch.randn(4, 3))
function M.checkpointSequential(seq, segments, input, opts)
  local layers = layers_of(seq)
  local n = #layers
  if n == 0 then fail(SEQ_OP, 'the sequence has no modules') end
  if type(segments) ~= 'number' or segments ~= math.floor(segments) or segments < 1 or segments > n then
    fail(SEQ_OP, 'segments must be an integer from 1 to %d (the number of modules), got %s', n,
      type(segments) == 'number' and tostring(segments) or describe(segments))
  end
  if not is_tensor(input) then fail(SEQ_OP, 'input must be a tensor, got %s', describe(input)) end
  local o = read_opts(SEQ_OP, opts, SEQUENTIAL_OPTS)
  local size, last = math.floor(n / segments), 0
  for first = 1, size * (segments - 1), size do
    last = first + size - 1
    input = run(SEQ_OP, o, segment(layers, first, last), o.clearState and clearer(layers, first, last) or nil, input)
  end
  return segment(layers, last + 1, n)(input)
end

torch.utils = torch.utils or {}
torch.utils.checkpoint = setmetatable(M, {
  __call = function(_, fn, ...) return M.checkpoint(fn, ...) end,
})

return M
