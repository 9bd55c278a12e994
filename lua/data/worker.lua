-- The code a data-loader worker state runs (bindings/data_loader.cpp creates the state on its
-- own thread and calls start, then the function start returns once per task).
local worker = {}

--- worker.start(spec, id): rebuilds the loader's job from spec (Note [Shipping datasets],
--- data/transfer.lua) and returns the function that turns a task string into an encoded item.
function worker.start(spec, id)
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

  -- Note [Worker collections]: the GC-pressure flag is the main state's to clear (Note [GC
  -- pressure in worker states], torch/lib.lua), and the main state usually clears it before a
  -- worker looks, so a worker cannot wait for it: its temporaries would pile up until LuaJIT's
  -- own collector noticed the small handles. A worker collects fully after a task whenever
  -- that keeps collections under a tenth of its time (a worker state is small: well under a
  -- millisecond), and always when the flag is up.
  local since, gc_cost = torch.tic(), 0
  local function maybe_collect()
    if C.tocha_memory_gc_pending() == 1 or torch.toc(since) >= 10 * gc_cost then
      local t = torch.tic()
      collectgarbage('collect')
      gc_cost = torch.toc(t)
      since = torch.tic()
    end
  end

  return function(task)
    local seed, batch, indices = fetch.decode_task(task)
    torch.manualSeed(seed)  -- this thread's own generator (Note [Worker generators], core/rng.h)
    local item = fetch.run(job, indices, batch, stopping)
    local s, tensors = transfer.encode(item, 'the batch')
    for _, t in ipairs(tensors) do lib.check(C.tocha_loader_worker_put(t.p)) end
    maybe_collect()
    return s
  end
end

return worker
