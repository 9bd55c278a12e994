-- How a threads.Threads job (its function, upvalues and arguments) travels to a worker state and
-- its results come back: data/transfer.lua's codec (Note [Shipping datasets]) plus the job's
-- tensors, passed by address (Note [Job tensors]). Used by both sides (threads/pool.lua and
-- threads/worker.lua).
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'
local transfer = require 'data.transfer'
local C = lib.C

local codec = {}

-- Note [Job tensors]: the data loader's C queue carries strings only, and tensors given to it
-- when the workers start. A job's tensors go as the addresses of their C objects in the task
-- string: the main state holds a reference to each (tocha_tensor_retain; counts are atomic)
-- until the job's result is delivered, which is after the worker has read its task, and the
-- worker takes its own reference before wrapping them. The main state's references are raw
-- pointers released by threads/pool.lua after delivery or after the thread is joined, never by
-- a Lua finalizer that could run while a queued task still names them. Only states of this
-- process read these strings. Results come back through the loader's result tensors
-- (tocha_loader_worker_put), as batches do.
--
-- Note [Copy or share]: as in Torch7, the default serialization ('threads.serialize') copies
-- the tensors a job sends and returns (each tensor is cloned by the sender, so a worker's
-- in-place change is not seen by the main state, and a buffer a worker reuses cannot change
-- under a result already delivered); 'threads.sharedserialize' sends the tensors themselves,
-- so both states see the same memory (fb.resnet.torch's loader uses it to avoid the copies).
-- Two views of one storage are copied separately (Torch7's serializer kept them sharing one
-- copy). Lua values (tables, numbers, strings, functions and their upvalues) are always copies.

-- Note [Thread globals]: as in Torch7, the globals a job (or init function) reads and writes
-- are its thread's, whatever environment the function had in the main state (a chunk run
-- with setfenv, a module(...) file): a job's environment is not sent (data/transfer.lua would
-- send a copy, so a global an init function set would be lost with that copy).
local GLOBALS = { globals = true }

local function copy(t)
  return torch.noGrad(function() return t:clone() end)
end

local function rename(msg)
  return (tostring(msg):gsub('^%[DataLoader%]', '[threads]'))
end

-- codec.encode(value, root, shared[, direction]): the string and tensor list for value (root
-- names it in error messages; direction 'from' when a worker sends it), tensors cloned unless
-- shared (Note [Copy or share]).
function codec.encode(value, root, shared, direction)
  local ok, s, tensors = pcall(transfer.encode, value, root, direction, GLOBALS)
  if not ok then error(rename(s), 0) end
  if not shared then
    for i, t in ipairs(tensors) do tensors[i] = copy(t) end
  end
  return s, tensors
end

-- codec.decode(s, tensors): the value codec.encode encoded.
function codec.decode(s, tensors)
  local ok, v = pcall(transfer.decode, s, tensors)
  if not ok then error(rename(v), 0) end
  return v
end

-- codec.task(s, tensors): the task string for a worker: the tensors' addresses, then s
-- (Note [Job tensors]; the caller holds references until the result is delivered).
function codec.task(s, tensors)
  local parts = { #tensors }
  for i, t in ipairs(tensors) do
    parts[i + 1] = string.format('%.0f', tonumber(ffi.cast('intptr_t', t.p)))
  end
  parts[#parts + 1] = s
  return table.concat(parts, ';')
end

-- codec.untask(task): the value of a task string, in a worker state.
function codec.untask(task)
  local n, pos = task:match('^(%d+);()')
  if not n then error('[threads] bad task string', 0) end
  local tensors = {}
  for i = 1, tonumber(n) do
    local addr
    addr, pos = task:match('^(%d+);()', pos)
    if not addr then error('[threads] bad task string', 0) end
    local p = ffi.cast('tocha_tensor *', ffi.cast('intptr_t', tonumber(addr)))
    C.tocha_tensor_retain(p)
    tensors[i] = lib.wrap(p)
  end
  return codec.decode(task:sub(pos), tensors)
end

return codec
