-- The open HDF5 identifiers of one file: each group and dataset that hdf5.HDF5File:read or :write
-- hands out is registered here, so that file:close() closes what the script left open (HDF5 keeps
-- a file open while any of its objects is), and a use after close is a Lua error, not a crash.
local ffi = require 'ffi'
local L = require 'hdf5.lib'
local C = L.C

local H = {}

local CLOSE = { group = 'H5Gclose', dataset = 'H5Dclose' }
-- hid_t values are int64 cdata (they exceed 2^53, so they cannot be Lua numbers): `objects` is
-- keyed by the very cdata that the wrapper holds as its _id, which is why ids are never copied.

-- Note [Closing what the script forgot]: the state table holds only numbers and strings, so a
-- finalizer (a gc'd cdata, the "sentinel") can close the file without keeping it alive. The file
-- object and every group and dataset read from it hold the sentinel, so the file stays open while
-- any of them is reachable, and a file dropped unclosed is closed when the collector frees the
-- last of them (torch-hdf5's stayed open until exit).
local deferred = {}  -- states whose finalizer ran inside an HDF5 callback, closed at the next open
local function close_all(state)
  if state.closed then return end
  if L.inCallback then  -- the serial HDF5 library is not reentrant
    deferred[#deferred + 1] = state
    return
  end
  state.closed = true
  for id, kind in pairs(state.objects) do C[CLOSE[kind]](id) end
  state.objects = {}
  C.H5Fclose(state.id)
end

-- Note [Lua finalizers run interpreted]: run as the sentinel's finalizer, the compiled pairs() loop
-- of close_all hung LuaJIT 2.1-20230119 (Debian's luajit2) in an endless trace exit (gdb on a
-- debug build of it: lj_snap_restore under lj_trace_exit, the trace starting in close_all;
-- upstream has reports of pairs() traces looping). test_hdf5.lua spun at full CPU in CI, and about
-- 1 run in 70 under collectgarbage('setpause', 1); with the finalizer and close_all kept out of
-- traces (jit.off), no hang in 400 runs. Tocha's own tensor and storage finalizers are C functions.
jit.off(close_all)

-- A new state for an open file id: { id, name, mode, writable, objects = {id -> kind}, closed }.
function H.newState(id, name, mode)
  local state = { id = id, name = name, mode = mode, writable = mode ~= 'r', objects = {}, closed = false }
  local finalize = function() close_all(state) end
  jit.off(finalize)
  local sentinel = ffi.gc(ffi.new('char[1]'), finalize)
  return state, sentinel
end

-- Closes the files whose finalizer was deferred (hdf5.open calls it first).
-- Inside an HDF5 callback nothing is closed (close_all would defer the file again, and the loop
-- would never end); the files wait for the next drain.
function H.drain()
  if L.inCallback then return end
  while #deferred > 0 do close_all(table.remove(deferred)) end
end

function H.closeAll(state)
  close_all(state)
end

function H.register(state, id, kind)
  state.objects[id] = kind
end

-- Closes one object; false when it was already closed (by itself or with its file).
function H.release(state, id)
  local kind = state.objects[id]
  if not kind then return false end
  state.objects[id] = nil
  C[CLOSE[kind]](id)
  return true
end

-- Raises "[hdf5.fn] ... is closed" unless the object (and its file) is still open.
function H.alive(obj, fn)
  local state = obj._state
  if state.closed then
    L.fail(fn, "the file '%s' is closed (%s)", state.name, tostring(obj._path))
  end
  if obj._id and not state.objects[obj._id] then
    L.fail(fn, "'%s' in '%s' is closed", obj._path, state.name)
  end
end

return H
