-- torch.autograd.graph: saved-tensor hooks (PyTorch's torch.autograd.graph.saved_tensors_hooks and
-- save_on_cpu). While they are active, every tensor an op saves for its backward goes to a Lua pack
-- hook and the node keeps what it returned; backward hands that to the unpack hook to get the
-- tensor back (Note [Saved-tensor hooks] in core/autograd/node.h).
--
-- Note [Saved-tensor hooks and the JIT]: the engine calls the pack hook from inside every recorded
-- op, and LuaJIT allows a callback only while the FFI call leading to it runs interpreted (Note
-- [Callbacks and the JIT], lua/torch/autograd.lua). The function given to savedTensorsHooks
-- therefore runs with the JIT off (compiled code flushed first); each packed tensor counts as a
-- live callback, so the backward that unpacks it runs interpreted too.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, fail = lib.C, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local autograd = torch.autograd
local registry, new_key, borrow = autograd._registry, autograd._new_key, autograd._borrow

local graph = {}
autograd.graph = graph

local function report(err) C.tocha_autograd_set_callback_error(tostring(err)) end

local pack_cb = ffi.cast('tocha_lua_pack_fn', function(hooks, t)
  local key = 0
  local ok, err = pcall(function()
    local h = registry[tonumber(hooks)]
    if not h then error('[savedTensorsHooks] these saved-tensor hooks are gone', 0) end
    local packed = h.pack(borrow(t))
    key = new_key({ packed = packed, unpack = h.unpack })
  end)
  if not ok then report(err) return 0 end
  return key
end)

local unpack_cb = ffi.cast('tocha_lua_unpack_fn', function(key)
  local result = nil
  local ok, err = pcall(function()
    local e = registry[tonumber(key)]
    if not e then error('[backward] the Lua state of a packed saved tensor is gone', 0) end
    local r = e.unpack(e.packed)
    if not is_tensor(r) then error('[savedTensorsHooks] the unpack hook must return a tensor, got ' .. describe(r), 0) end
    C.tocha_tensor_retain(r.p)
    result = r.p
  end)
  if not ok then report(err) return nil end
  return result
end)
graph._callbacks = { pack_cb, unpack_cb }  -- keep them alive
if autograd._owner > 0 then C.tocha_autograd_set_saved_callbacks(autograd._owner, pack_cb, unpack_cb) end

--- torch.autograd.graph.savedTensorsHooks(pack, unpack, fn, ...): runs fn(...) with every tensor
--- saved for backward handed to pack(t) (a tensor without history sharing t's memory), whose
--- result the graph keeps instead of t; backward calls unpack(result), which must give back a
--- tensor of t's size, type and device. Returns fn's results. Hooks run with grad mode off; fn runs
--- without the JIT (Note [Saved-tensor hooks and the JIT]). Leaves that require grad are kept as
--- they are (Note [Saved-tensor hooks]).
--- Example: local n = 0; local x = torch.randn(3):requiresGrad(); local y = torch.autograd.graph.savedTensorsHooks(function(t) n = n + 1 return t:clone() end, function(p) return p end, function() return (x * x):sum() end); y:backward()
function graph.savedTensorsHooks(pack, unpack_hook, fn, ...)
  local op = 'savedTensorsHooks'
  if type(pack) ~= 'function' then fail(op, 'pack must be a function, got %s', describe(pack)) end
  if type(unpack_hook) ~= 'function' then fail(op, 'unpack must be a function, got %s', describe(unpack_hook)) end
  if type(fn) ~= 'function' then fail(op, 'expected a function to run, got %s', describe(fn)) end
  if autograd._owner <= 0 then fail(op, 'this Lua state has no autograd callbacks (a data loader worker)') end
  local hooks = new_key({ pack = pack, unpack = unpack_hook })
  local jit_on = jit.status()
  if jit_on then
    jit.flush()
    jit.off()
  end
  local prev = C.tocha_autograd_set_saved_hooks(hooks)
  local res = { pcall(fn, ...) }
  C.tocha_autograd_set_saved_hooks(prev)
  if jit_on then jit.on() end
  autograd._release_key(hooks)  -- the packed tensors keep their own unpack; the engine never held this key
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

--- torch.autograd.graph.saveOnCpu(fn, ...): runs fn(...) with the tensors saved for backward kept
--- on the host and moved back to their device when backward needs them (PyTorch's save_on_cpu:
--- GPU memory for activations traded for copies). CPU tensors are kept as they are.
--- Example: local x = torch.randn(3):requiresGrad(); torch.autograd.graph.saveOnCpu(function() return (x * x):sum() end):backward()
function graph.saveOnCpu(fn, ...)
  local function pack(t)
    local dev = t:device()
    if dev == 'cpu' then return { t = t } end
    return { t = t:to('cpu'), device = dev }
  end
  local function unpack_saved(p) return p.device and p.t:to(p.device) or p.t end
  return graph.savedTensorsHooks(pack, unpack_saved, fn, ...)
end

return graph
