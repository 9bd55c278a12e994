-- torch.distributed's operations: each xAsync returns a work handle (work:wait() returns the
-- result); x itself waits. Ranks are 0-based; roots default to 0. Each operation's checks and C
-- call live in one start_x function that returns what new_work (Async) and run_sync (x) take.
local torch = require 'torch.env'
local dist = torch.distributed
local carrier, poison, new_work, run_sync = dist._carrier, dist._poison, dist._new_work, dist._run_sync
local require_init, reduce_op, root_arg, OPS = dist._require_init, dist._reduce_op, dist._root_arg, dist._OPS
local same_dtype, peer_arg = dist._same_dtype, dist._peer_arg
local D = dist._plugin  -- the active backend table (Note [Backend table])

-- Note [Blocking fast path] (bindings/distributed/mpi_collectives.cpp): the synchronous forms mark
-- their collective as waited for at once, so that MPI may run it as a blocking call. The mark goes
-- to the plugin right before the C call, after every Lua check: a call that fails in Lua never
-- leaves it set for the next one.
local function mark(blocking) D().set_blocking(blocking and 1 or 0) end

-- A new tensor like t with a leading dimension of `first` (first x t's sizes).
local function stacked(first, t)
  local s = { first }
  for i = 1, t:dim() do s[i + 1] = t:size(i) end
  return t.new(unpack(s))
end

local function start_all_reduce(blocking, t, op)
  require_init('allReduce')
  local c, converted = carrier('allReduce', t, 'the tensor', true)
  op = reduce_op('allReduce', op, t)
  mark(blocking)
  return D().all_reduce(c.p, OPS[op]), t, t, converted and c, op == 'avg' and dist.size()
end
--- torch.distributed.allReduceAsync(t [, op]): starts reducing t across ranks in place
--- (op: 'sum' (default), 'avg', 'max', 'min', 'prod'; bool tensors: or / and); returns a work.
function dist.allReduceAsync(t, op) return new_work('allReduce', start_all_reduce(false, t, op)) end
--- torch.distributed.allReduce(t [, op]): reduces t across ranks in place and returns it.
function dist.allReduce(t, op) return run_sync(start_all_reduce(true, t, op)) end

local function start_broadcast(blocking, t, root)
  require_init('broadcast')
  local c, converted = carrier('broadcast', t, 'the tensor', true)
  root = root_arg('broadcast', root)
  mark(blocking)
  return D().broadcast(c.p, root), t, t, converted and c
end
--- torch.distributed.broadcastAsync(t [, root]): starts copying root's t into every rank's t.
function dist.broadcastAsync(t, root) return new_work('broadcast', start_broadcast(false, t, root)) end
--- torch.distributed.broadcast(t [, root]): root's t, copied into every rank's t (returned).
function dist.broadcast(t, root) return run_sync(start_broadcast(true, t, root)) end

local function start_reduce(blocking, t, root, op)
  require_init('reduce')
  local c, converted = carrier('reduce', t, 'the tensor', true)
  root = root_arg('reduce', root)
  op = reduce_op('reduce', op, t)
  local at_root = dist.rank() == root
  mark(blocking)
  return D().reduce(c.p, root, OPS[op]), t, at_root and t, converted and c, op == 'avg' and dist.size()
end
--- torch.distributed.reduceAsync(t, root [, op]): starts reducing t into root's t (the others'
--- tensors stay unchanged).
function dist.reduceAsync(t, root, op) return new_work('reduce', start_reduce(false, t, root, op)) end
--- torch.distributed.reduce(t, root [, op]): the reduction of every rank's t, in root's t.
function dist.reduce(t, root, op) return run_sync(start_reduce(true, t, root, op)) end

local function start_all_gather(blocking, input, output)
  require_init('allGather')
  local ci = carrier('allGather', input, 'the input', true)
  output = output or stacked(dist.size(), input)
  local co, converted = carrier('allGather', output, 'the output', true)
  same_dtype('allGather', input, output)
  mark(blocking)
  return D().all_gather(co.p, ci.p), output, output, converted and co
end
--- torch.distributed.allGatherAsync(input [, output]): starts gathering every rank's input into
--- output (size x input's sizes: output[r + 1] is rank r's input; allocated when omitted).
function dist.allGatherAsync(input, output) return new_work('allGather', start_all_gather(false, input, output)) end
--- torch.distributed.allGather(input [, output]): every rank's input, stacked (size x ...).
function dist.allGather(input, output) return run_sync(start_all_gather(true, input, output)) end

local function start_reduce_scatter(blocking, input, output, op)
  if type(output) == 'string' then output, op = nil, output end
  require_init('reduceScatter')
  local ci = carrier('reduceScatter', input, 'the input', true)
  op = reduce_op('reduceScatter', op, input)
  local n = dist.size()
  if not output then
    if input:dim() == 0 or input:size(1) % n ~= 0 then
      poison('reduceScatter')
      torch._lib.fail('reduceScatter', 'the input\'s first dimension (%s) must split into %d equal blocks',
                      input:dim() > 0 and tostring(input:size(1)) or 'none', n)
    end
    local s = {}
    for i = 1, input:dim() do s[i] = input:size(i) end
    s[1] = math.floor(s[1] / n)
    output = input.new(unpack(s))
  end
  local co, converted = carrier('reduceScatter', output, 'the output', true)
  same_dtype('reduceScatter', input, output)
  mark(blocking)
  return D().reduce_scatter(co.p, ci.p, OPS[op]), output, output, converted and co, op == 'avg' and n
end
--- torch.distributed.reduceScatterAsync(input [, output] [, op]): starts reducing input across
--- ranks and giving rank r block r + 1 of input:size(1) / size blocks (output: one block).
function dist.reduceScatterAsync(input, output, op)
  return new_work('reduceScatter', start_reduce_scatter(false, input, output, op))
end
--- torch.distributed.reduceScatter(input [, output] [, op]): this rank's block of the reduction.
function dist.reduceScatter(input, output, op) return run_sync(start_reduce_scatter(true, input, output, op)) end

local function start_gather(blocking, input, output, root)
  if type(output) == 'number' then output, root = nil, output end
  require_init('gather')
  local ci = carrier('gather', input, 'the input', true)
  root = root_arg('gather', root)
  local co, converted
  if dist.rank() == root then
    output = output or stacked(dist.size(), input)
    co, converted = carrier('gather', output, 'the output', true)
    same_dtype('gather', input, output)
  else
    output = nil
  end
  mark(blocking)
  return D().gather(co and co.p or nil, ci.p, root), output, output, converted and co
end
--- torch.distributed.gatherAsync(input [, output] [, root]): starts gathering every rank's input
--- into root's output (size x input's sizes, allocated when omitted; nil on other ranks).
function dist.gatherAsync(input, output, root) return new_work('gather', start_gather(false, input, output, root)) end
--- torch.distributed.gather(input [, output] [, root]): at root, every rank's input stacked.
function dist.gather(input, output, root) return run_sync(start_gather(true, input, output, root)) end

local function start_scatter(blocking, output, input, root)
  if type(input) == 'number' then input, root = nil, input end
  require_init('scatter')
  local co, converted = carrier('scatter', output, 'the output', true)
  root = root_arg('scatter', root)
  local ci
  if dist.rank() == root then
    ci = carrier('scatter', input, 'the input', true)
    same_dtype('scatter', input, output)
  end
  mark(blocking)
  return D().scatter(co.p, ci and ci.p or nil, root), output, output, converted and co
end
--- torch.distributed.scatterAsync(output, input, root): starts giving rank r block r + 1 of root's
--- input (size x output's sizes; ignored, and may be nil, on other ranks) in its output.
function dist.scatterAsync(output, input, root) return new_work('scatter', start_scatter(false, output, input, root)) end
--- torch.distributed.scatter(output, input, root): this rank's block of root's input, in output.
function dist.scatter(output, input, root) return run_sync(start_scatter(true, output, input, root)) end

local function start_barrier(blocking)
  require_init('barrier')
  mark(blocking)
  return D().barrier(), nil
end
--- torch.distributed.barrierAsync(): a work that completes once every rank has reached it.
function dist.barrierAsync() return new_work('barrier', start_barrier(false)) end
--- torch.distributed.barrier(): waits until every rank has reached this point.
function dist.barrier() return run_sync(start_barrier(true)) end

local function tag_arg(name, tag)
  tag = tag or 0
  if type(tag) ~= 'number' or tag % 1 ~= 0 or tag < 0 then torch._lib.fail(name, 'tag must be an integer >= 0, got %s', tostring(tag)) end
  return tag
end

-- A rank cannot exchange with itself (PyTorch 1.13 refuses it on every backend; a synchronous MPI
-- send to oneself waited for the timeout).
local function not_self(name, what, r)
  if r == dist.rank() then torch._lib.fail(name, 'a rank cannot %s itself (%s %d is this rank)', name == 'send' and 'send to' or 'receive from', what, r) end
  return r
end

local function start_send(t, dst, tag)
  require_init('send')
  local c = carrier('send', t, 'the tensor', false)
  return D().send(c.p, not_self('send', 'destination', peer_arg('send', 'destination', dst)), tag_arg('send', tag)), t
end
--- torch.distributed.sendAsync(t, dst [, tag]): starts sending t to rank dst (with checks on, it
--- completes once dst has accepted its dtype and size).
function dist.sendAsync(t, dst, tag) return new_work('send', start_send(t, dst, tag)) end
--- torch.distributed.send(t, dst [, tag]): sends t to rank dst.
function dist.send(t, dst, tag) return run_sync(start_send(t, dst, tag)) end

local function start_recv(t, src, tag)
  require_init('recv')
  local c, converted = carrier('recv', t, 'the tensor', false)
  return D().recv(c.p, not_self('recv', 'source', peer_arg('recv', 'source', src)), tag_arg('recv', tag)), t, t, converted and c
end
--- torch.distributed.recvAsync(t, src [, tag]): starts receiving into t what rank src sends.
function dist.recvAsync(t, src, tag) return new_work('recv', start_recv(t, src, tag)) end
--- torch.distributed.recv(t, src [, tag]): receives into t (returned) what rank src sends.
function dist.recv(t, src, tag) return run_sync(start_recv(t, src, tag)) end

return dist
