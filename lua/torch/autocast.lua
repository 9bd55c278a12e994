-- torch.autocast (issue 9): runs a function with per-op mixed precision on one device type. The
-- state is thread-local and lives in C (core/autocast.h); the op lists and how gradients flow are
-- in Note [Autocast] (core/autocast.cpp). This file checks arguments, opens and closes regions
-- (nesting and errors restore the previous state) and answers queries.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local C, fail, check = lib.C, lib.fail, lib.check

local device_types = { cpu = 0, cuda = 1 }
local dtype_names = {
  bf16 = lib.dtype.bf16, bfloat16 = lib.dtype.bf16, ['torch.BFloat16Tensor'] = lib.dtype.bf16,
  ['torch.CudaBFloat16Tensor'] = lib.dtype.bf16,
  f16 = lib.dtype.f16, float16 = lib.dtype.f16, half = lib.dtype.f16, ['torch.HalfTensor'] = lib.dtype.f16,
  ['torch.CudaHalfTensor'] = lib.dtype.f16,
}
-- PyTorch's defaults: f16 on CUDA, bf16 on the CPU.
local default_dtype = { [0] = lib.dtype.bf16, [1] = lib.dtype.f16 }
local dtype_label = { [lib.dtype.bf16] = 'bf16', [lib.dtype.f16] = 'f16' }

local function device_type(op, device)
  local dt = type(device) == 'string' and device_types[device:match('^(%a+)')]
  if not dt then fail(op, "expected a device type ('cuda' or 'cpu'), got %s", tostring(device)) end
  return dt
end

local function dtype_of(op, dtype, dev)
  if dtype == nil then return default_dtype[dev] end
  local d = dtype_names[dtype]
  if not d then fail(op, "expected a dtype 'bf16' or 'f16', got %s", tostring(dtype)) end
  return d
end

-- Runs fn(...) with autocast of device type dev set to (enabled, dtype), then restores the
-- previous state of that device type whether fn returned or raised.
-- Note [Restoring the autocast dtype]: tocha_autocast_set(dev, 0, d) leaves the dtype alone, so
-- putting back a disabled state would keep the dtype of the region (getAutocastDtype('cpu') said
-- 'f16' after torch.autocast('cpu', 'f16', fn) had returned; PyTorch restores it): the previous
-- dtype is set with the device type enabled first, then the previous enabled flag.
local function restore(dev, prev, prev_dtype, ok, ...)
  if prev ~= 1 then C.tocha_autocast_set(dev, 1, prev_dtype) end
  C.tocha_autocast_set(dev, prev, prev_dtype)
  if not ok then error((...), 0) end
  return ...
end
local dtype_box = ffi.new('int[1]')
local function run_with(op, dev, enabled, dtype, fn, ...)
  if type(fn) ~= 'function' then fail(op, 'expected a function to run, got %s', type(fn)) end
  local prev = C.tocha_autocast_get(dev, dtype_box)
  local prev_dtype = dtype_box[0]
  check(C.tocha_autocast_set(dev, enabled and 1 or 0, dtype))
  return restore(dev, prev, prev_dtype, pcall(fn, ...))
end

--- torch.autocast(device, [dtype,] fn, ...): runs fn(...) with mixed precision for tensors of the
--- device type ('cuda' or 'cpu'): matmuls and convolutions in dtype ('bf16' or 'f16'; default f16
--- on CUDA, bf16 on the CPU, like PyTorch), losses, softmax and normalization in f32, other ops in
--- the widest dtype of their inputs. Returns fn's results; nests, and restores the previous state
--- on return or error. Tensors of other device types are untouched. Call backward after it returns.
--- Example: local model, crit = nn.Linear(3, 2), nn.CrossEntropyCriterion()
--- local x, y = torch.randn(4, 3), torch.LongTensor({1, 2, 1, 2})
--- local loss = torch.autocast('cuda', 'bf16', function() return crit(model(x), y) end)
function torch.autocast(device, dtype, fn, ...)
  if type(dtype) == 'function' then return torch.autocast(device, nil, dtype, fn, ...) end
  local dev = device_type('autocast', device)
  return run_with('autocast', dev, true, dtype_of('autocast', dtype, dev), fn, ...)
end

--- torch.noAutocast(device, fn, ...): runs fn(...) with autocast of the device type off (a region
--- that needs full precision inside an autocast region).
--- Example: torch.noAutocast('cuda', function() return torch.mm(torch.randn(2, 3), torch.randn(3, 2)) end)
function torch.noAutocast(device, fn, ...)
  local dev = device_type('noAutocast', device)
  return run_with('noAutocast', dev, false, default_dtype[dev], fn, ...)
end

-- Note [Autocast]'s CUDA f32 list for ops written in Lua (the losses of nn.functional, as
-- PyTorch 1.13's CUDA list has them): t in f32 when it is an f16/bf16 CUDA tensor and CUDA
-- autocast is on, else t itself. The cast is recorded, so gradients flow back in t's dtype.
local HALF = { [lib.dtype.f16] = true, [lib.dtype.bf16] = true }
local CUDA = device_types.cuda
function torch._autocastF32(t)
  if not (HALF[t.p.dtype] and t.p.device_type == CUDA and C.tocha_autocast_get(CUDA, nil) == 1) then return t end
  return (lib.wrap(C.tocha_tensor_to_dtype(t.p, lib.dtype.f32)))
end

--- torch.isAutocastEnabled([device]): whether autocast is on for the device type (default 'cuda')
--- on this thread.
--- Example: torch.isAutocastEnabled('cuda')
function torch.isAutocastEnabled(device)
  return C.tocha_autocast_get(device_type('isAutocastEnabled', device or 'cuda'), nil) == 1
end

--- torch.getAutocastDtype([device]): the autocast dtype of the device type ('bf16' or 'f16').
--- Example: torch.getAutocastDtype('cuda')
function torch.getAutocastDtype(device)
  C.tocha_autocast_get(device_type('getAutocastDtype', device or 'cuda'), dtype_box)
  return dtype_label[dtype_box[0]] or 'bf16'
end

return torch.autocast
