-- The code a data-loader worker state runs (bindings/data_loader.cpp creates the state on its
-- own thread and calls start, then the function start returns once per task).
local worker = {}

-- Note [Worker collections]: the GC-pressure flag is the main state's to clear (Note [GC pressure
-- in worker states], torch/lib.lua), and the main state usually clears it before a worker looks,
-- so a worker cannot wait for it: its temporaries would pile up until LuaJIT's own collector
-- noticed the small handles. A worker collects fully after a task whenever that keeps collections
-- under a tenth of its time (a worker state is small: well under a millisecond), and always when
-- the flag is up. worker.collector() returns the function a worker calls after each task (the
-- data loader's workers and threads.Threads' both).
function worker.collector()
  local torch = require 'torch'
  local C = require('torch.lib').C
  local since, gc_cost = torch.tic(), 0
  return function()
    if C.tocha_memory_gc_pending() == 1 or torch.toc(since) >= 10 * gc_cost then
      local t = torch.tic()
      collectgarbage('collect')
      gc_cost = torch.toc(t)
      since = torch.tic()
    end
  end
end

--- worker.start(spec, id): rebuilds the loader's job from spec (Note [Shipping datasets],
--- data/transfer.lua) and returns the function that turns a task string into an encoded item.
function worker.start(spec, id)
  -- A threads.Threads pool's worker (threads/pool.lua) runs on this machinery too.
  if spec:sub(1, 8) == 'threads;' then return require('threads.worker').start(spec) end
  local torch = require 'torch'
  local lib = require 'torch.lib'
  local C = lib.C
  lib.poll_gc = false  -- Note [GC pressure in worker states], torch/lib.lua
  require 'data'
  local transfer = require 'data.transfer'
  local fetch = require 'data.fetch'
  local build = require 'data.job'

  local count, body = spec:match('^(%d+);(.*)$')
  local shared = {}
  for i = 1, tonumber(count) do shared[i] = lib.wrap(C.tocha_loader_worker_input(i - 1)) end
  local job = build.resolve(transfer.decode(body, shared))
  local function stopping() return C.tocha_loader_worker_stopping() ~= 0 end

  local maybe_collect = worker.collector()  -- Note [Worker collections]

  -- Note [Worker state defaults]: a worker state is a fresh Lua state, so what the main state
  -- set in its own Lua state is not there unless copied. The default tensor type lives in both
  -- (the C default float dtype is process-wide, torch.Tensor is per state): the worker follows
  -- the process-wide one before each task, so torch.Tensor / torch.zeros give the main state's
  -- type (a DoubleTensor main state got FloatTensor batches from workers, DoubleTensor without).
  -- math.random is per state and every fresh state starts from the same seed, so all workers
  -- drew the same numbers (PyTorch seeds Python's random in each worker for this reason): it
  -- is seeded like torch's generator, per batch (map-style: reproducible whichever worker makes
  -- the batch) or, for an iterable dataset's stream, once per epoch with mix(seed, worker id).
  -- The main state's math.random (workers = 0) is the user's and is left alone, as PyTorch
  -- leaves the main process's random module alone. A math.randomseed in workerInitFn does not
  -- last past its batch, as a torch.manualSeed there does not (Note [Loader determinism]).
  local util = require 'data.util'
  local iterable = job.iterable
  local my_id = C.tocha_loader_worker_id()
  local stream_key
  -- Only the state's own half of the default type: writing the process-wide value back (the same
  -- value just read) could undo a change the main state made in between, and a workerInitFn's
  -- setdefaulttensortype must not change the main state's promotions (Note [Default type in
  -- worker states], torch/tensor.lua); it lasts until the next task follows the main state again.
  torch._per_state_default = true
  local function follow_defaults(seed, indices)
    local dt = C.tocha_default_float_dtype()
    if dt ~= torch._default_dtype() then torch._set_state_default(dt) end
    if not iterable then
      math.randomseed(seed)
    else
      local key = string.format('%.17g;%s', seed, tostring(indices[1]))  -- indices = {epoch}
      if key ~= stream_key then
        stream_key = key
        math.randomseed(util.mix_seed(seed, my_id))
      end
    end
  end

  return function(task)
    local seed, batch, indices = fetch.decode_task(task)
    follow_defaults(seed, indices)
    torch.manualSeed(seed)  -- this thread's own generator (Note [Worker generators], core/rng.h)
    local item = fetch.run(job, indices, batch, stopping)
    local s, tensors = transfer.encode(item, 'the batch', 'from')
    for _, t in ipairs(tensors) do lib.check(C.tocha_loader_worker_put(t.p)) end
    maybe_collect()
    return s
  end
end

return worker
