-- The FFI layer: finds libtocha, declares its C ABI (the cdef the library itself carries, so it
-- cannot drift), wraps returned tensors into handles with a C finalizer, polls the GC-pressure
-- flag, and turns C errors into Lua errors at the user's line (DESIGN.md decisions 7-9).
local ffi = require 'ffi'

local lib = {}

-- Directory holding the Lua modules (…/lua/), from this file's own path.
local this_file = debug.getinfo(1, 'S').source:sub(2)
lib.lua_root = this_file:match('^(.*)/torch/lib%.lua$') or '.'

local function try_symbol(ns)
  local ok, f = pcall(function() return ns.tocha_cdef end)
  return ok and f ~= nil
end

local function load_library()
  pcall(ffi.cdef, 'const char *tocha_cdef(void);')
  -- 1. Linked into the host (the `tocha` executable, an embedding application).
  if try_symbol(ffi.C) then return ffi.C, rawget(_G, '__tocha_library_path') end
  -- 2. An explicit path, then the usual places relative to this file and the C path.
  local candidates = {}
  -- Set by the embedding API (bindings/embed_state.cpp) to the library that created this state.
  if rawget(_G, '__tocha_library_path') then candidates[1] = rawget(_G, '__tocha_library_path') end
  if os.getenv('TOCHA_LIB') then candidates[#candidates + 1] = os.getenv('TOCHA_LIB') end
  local root = lib.lua_root
  for _, rel in ipairs({ '/../build/libtocha.so', '/../../../lib/libtocha.so', '/../lib/libtocha.so' }) do
    candidates[#candidates + 1] = root .. rel
  end
  local found = package.searchpath and package.searchpath('libtocha', package.cpath)
  if found then candidates[#candidates + 1] = found end
  candidates[#candidates + 1] = 'tocha'
  local errors = {}
  for _, path in ipairs(candidates) do
    local ok, ns = pcall(ffi.load, path, true)
    if ok and try_symbol(ns) then return ns, path end
    errors[#errors + 1] = path .. ': ' .. tostring(ns)
  end
  error('torch: cannot find libtocha.so; set TOCHA_LIB to its path. Tried:\n  ' .. table.concat(errors, '\n  '), 0)
end

local C, library_path = load_library()
if not pcall(ffi.typeof, 'tocha_handle') then
  ffi.cdef(ffi.string(C.tocha_cdef()))
end
lib.C = C

-- Note [Error levels]: errors are raised at the first stack frame outside Tocha's own Lua files,
-- so `script.lua:12: [mm] a is 2x3 but b is 4x5` names the user's line even when the call went
-- through several wrappers (fixed levels break as soon as a wrapper tail-calls).
local root_prefix = '@' .. lib.lua_root .. '/'
local function is_library_source(src)
  return src:sub(1, #root_prefix) == root_prefix or src == '=[C]'
end
function lib.user_level()
  local level = 3  -- 1 = user_level, 2 = its caller (raise/argerror)
  while true do
    local info = debug.getinfo(level, 'S')
    -- no frame outside the library (an op in the tail call of a function a host called): no
    -- position, rather than one inside lib.lua's own raise()
    if not info then return 0 end
    if not is_library_source(info.source) then return level - 1 end
    level = level + 1
  end
end
-- Other libraries built on torch (nn, optim...) register their roots to be skipped as well.
function lib.add_library_root(dir)
  local prefix = '@' .. dir .. '/'
  local prev = is_library_source
  is_library_source = function(src) return src:sub(1, #prefix) == prefix or prev(src) end
end

-- Raises the error the last C call stored.
-- Out of memory: collect dead tensors and empty the device cache first, so that a retry finds
-- the memory (Note [Out-of-memory from Lua], lua/torch/cuda.lua).
function lib.raise()
  local msg = ffi.string(C.tocha_last_error())
  if C.tocha_last_error_code() == 2 then
    lib.collect()
    C.tocha_cuda_empty_cache()
  end
  error(msg, lib.user_level())
end
-- Raises an error about a bad call from Lua (before reaching C).
function lib.fail(op, fmt, ...)
  local msg = select('#', ...) > 0 and string.format(fmt, ...) or fmt
  error('[' .. op .. '] ' .. msg, lib.user_level())
end

local Handle = ffi.typeof('tocha_handle')
lib.Handle = Handle
-- Note [Handle finalizer] (bindings/lua_handle.cpp): the C function when this LuaJIT hands it
-- the handle's own address, else the FFI function pointer.
local function handle_finalizer()
  local fallback = ffi.cast('void(*)(tocha_handle *)', C.tocha_handle_release)
  if not library_path or not library_path:find('/') then return fallback end
  local release_fn = package.loadlib(library_path, 'tocha_lua_release_handle')
  local address_of = package.loadlib(library_path, 'tocha_lua_handle_address')
  if not release_fn or not address_of then return fallback end
  local probe = Handle(nil)
  if ffi.cast('void *', address_of(probe)) ~= ffi.cast('void *', ffi.cast('tocha_handle *', probe)) then
    return fallback
  end
  return release_fn
end
local release = handle_finalizer()
lib.release = release

-- Note [GC pressure]: Lua's collector cannot see tensor memory, so allocations raise a flag in C
-- (core/memory.h) and every wrap() polls it; a collection frees the handles of dead tensors.
local gc_pending, gc_done, gc_step_done = C.tocha_memory_gc_pending, C.tocha_memory_gc_done, C.tocha_memory_gc_step_done
local function collect()
  collectgarbage('collect')
  if lib.poll_gc then gc_done() end
end
lib.collect = collect

-- Note [GC pacing]: every tensor op leaves a dead handle whose tensor (header, storage, data:
-- ~600 bytes for a 1-element tensor, far more than the ~50 bytes Lua counts for the handle) stays
-- allocated until the collector finishes a cycle. With LuaJIT's default step multiplier (200) a
-- cycle spans so much allocation that a loop of tiny ops keeps tens of MB of dead tensors, and
-- each new tensor is written to memory that has left the caches (1-element add: ~600 ns per op;
-- a full collection every few thousand ops made it ~300 ns, collection included). A higher
-- multiplier does the same work per cycle in fewer, larger steps, so a cycle ends after far less
-- allocation and dead tensors are reused while still cached; the pause (when a cycle starts) and
-- so the total collection work are unchanged. Users may still set their own after require 'torch'.
collectgarbage('setstepmul', 1000)

-- Wraps a tocha_tensor* carrying one reference into a Lua handle (NULL: raise the C error).
-- Note [GC pressure in worker states]: the flag is process-wide and collecting clears it, so a
-- data-loader worker state (lib.poll_gc = false, lua/data/worker.lua) leaves it to the main
-- state and collects its own garbage between batches; otherwise busy workers would keep
-- clearing it and the main state's dead batches would never be collected.
lib.poll_gc = true
function lib.wrap(p)
  if p == nil then lib.raise() end
  local h = ffi.gc(Handle(p), release)
  local pending = gc_pending()
  if pending ~= 0 and lib.poll_gc then
    if pending == 1 then
      collect()
    else  -- Note [Graph-driven GC steps], Note [CPU-tensor GC steps] (core/memory.cpp)
      gc_step_done()
      if pending == 2 then
        collectgarbage('step', 8)
      else  -- pending - 2 MiB of CPU tensors: a step of size 2 per MiB (about 3 basic steps)
        collectgarbage('step', 2 * (pending - 2))
      end
    end
  end
  return h
end

-- Checks an int status from a C call.
function lib.check(status)
  if status ~= 0 then lib.raise() end
end

lib.dtype = { f32 = 0, f64 = 1, f16 = 2, bf16 = 3, i64 = 4, i32 = 5, u8 = 6, bool = 7, i8 = 8, i16 = 9 }
lib.dtype_count = 10
lib.FREED = C.tocha_freed_tensor()

-- Scratch int64 arrays for passing sizes/strides to C without allocating per call.
lib.dims_a = ffi.new('int64_t[16]')
lib.dims_b = ffi.new('int64_t[16]')


-- A table of settable booleans, each backed by a C getter and setter (torch.backends.<name>.<key>):
-- switches = { key = { getter, setter }, ... }; `extra` holds plain fields (functions).
function lib.backend_switch(name, switches, extra)
  return setmetatable(extra or {}, {
    __index = function(_, k) local s = switches[k]; if s then return s[1]() ~= 0 end end,
    __newindex = function(_, k, v)
      local s = switches[k]
      if not s then lib.fail('backends.' .. name, 'unknown setting %s', tostring(k)) end
      s[2](v and 1 or 0)
    end,
  })
end

return lib
