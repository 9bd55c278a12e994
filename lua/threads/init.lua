-- The threads package of Torch7 (torch/threads): `local threads = require 'threads'`, then
-- threads.Threads(N, init...) for a pool of Lua states on worker threads (threads/pool.lua).
local Threads = require 'threads.pool'

local threads = {}

-- Torch7's threads.Threads is callable and also holds serialization (threads.Threads.serialization).
threads.Threads = setmetatable({}, {
  __index = Threads,
  __newindex = Threads,
  __call = function(_, ...) return Threads.new(...) end,
})

--- threads.serialization([name]): sets ('threads.serialize', the default, copies tensors;
--- 'threads.sharedserialize' shares them) or returns the serialization of the pools made next.
--- Example: local threads = require 'threads'; local old = threads.serialization()
---   threads.serialization('threads.sharedserialize'); threads.serialization(old)
threads.serialization = Threads.serialization

-- Older Torch7 scripts used the module itself as the class: local Threads = require 'threads';
-- Threads(4); Threads.serialization(...). Torch7's Mutex, Condition, Thread, Queue and safe
-- (its low-level layer) have no counterpart here.
return setmetatable(threads, getmetatable(threads.Threads))
