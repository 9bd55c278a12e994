-- What a threads.Threads worker state runs: lua/data/worker.lua hands it the pool's spec
-- ('threads;<index>;<copy|shared>;<seed>'), and the function start returns runs each job.
local worker = {}

-- Note [Worker jobs]: a job's error is caught here (xpcall with debug.traceback, as Torch7's
-- threads did) and sent back as the job's result, so the worker stays alive and the main
-- state raises "[thread i callback] <message and worker traceback>" from dojob
-- (threads/pool.lua); so are results that cannot be sent (a coroutine, a C function).

-- worker.start(spec): sets up a worker state (__threadid, torch, seeds) and returns the
-- function that turns a task string into the encoded result ('R' .. value or 'E' .. error).
function worker.start(spec)
  local idx, mode, seed = spec:match('^threads;(%d+);(%a+);(%d+)$')
  if not idx then error('[threads] bad worker spec ' .. spec, 0) end
  idx, seed = tonumber(idx), tonumber(seed)
  local torch = require 'torch'
  local lib = require 'torch.lib'
  local util = require 'data.util'
  local codec = require 'threads.codec'
  local C = lib.C
  lib.poll_gc = false  -- Note [GC pressure in worker states], torch/lib.lua
  local shared = mode == 'shared'

  -- What a Torch7 thread state had: the torch global and its index (README of torch/threads).
  _G.torch = torch
  _G.__threadid = idx
  -- Note [Thread default tensor type]: as in Torch7, each thread has its own default tensor
  -- type. It starts as the type the process has now (Note [Worker state defaults],
  -- data/worker.lua), and torch.setdefaulttensortype (or setDefaultDtype) in a job or init
  -- function sets this state's type only (Note [Default type in worker states],
  -- torch/tensor.lua). Integer math in a thread promotes to the process-wide type (the main state's).
  torch._per_state_default = true
  local dt = C.tocha_default_float_dtype()
  if dt ~= torch._default_dtype() then torch._set_state_default(dt) end
  -- Note [Thread seeds]: every fresh state starts from the same seeds, so the threads would draw
  -- the same random crops. Each one seeds torch's generator (its own: Note [Worker generators],
  -- core/rng.h) and math.random from a base the main state drew from its generator when the
  -- pool was made, mixed with the index: different per thread, and repeatable after a
  -- torch.manualSeed in the main state. An init function may seed again (torch.manualSeed(s + idx)).
  torch.manualSeed(util.mix_seed(seed, idx))
  math.randomseed(util.mix_seed(seed, idx, 1) % 2147483647)

  local maybe_collect = require('data.worker').collector()  -- Note [Worker collections]

  local function pack(...) return { n = select('#', ...), ... } end
  local function call(task)
    local v = codec.untask(task)
    return pack(v.job(unpack(v.args, 1, v.args.n)))
  end

  return function(task)
    local out
    local ok, res = xpcall(call, debug.traceback, task)
    if ok then
      local sent, s, tensors = pcall(codec.encode, res, 'the results of the job', shared, 'from')
      if sent then
        for _, t in ipairs(tensors) do lib.check(C.tocha_loader_worker_put(t.p)) end
        out = 'R' .. s
      else
        out = 'E' .. tostring(s)
      end
    else
      out = 'E' .. tostring(res)
    end
    res = nil
    maybe_collect()
    return out
  end
end

return worker
