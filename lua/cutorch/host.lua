-- cutorch's pinned host tensors (cutorch.createCudaHost<Type>Tensor), on Tocha's pinned memory
-- (t:pinMemory()), and the flags and no-ops cutorch scripts call.
local cutorch = rawget(_G, 'cutorch')
local cuda = torch.cuda

local function fail(fn, fmt, ...)
  error(string.format('[cutorch.%s] ' .. fmt, fn, ...), torch._lib.user_level())
end

-- Sizes given as numbers or one LongStorage (cutorch's longTensorSize); none means 0 elements.
local function sizes(fn, ...)
  local a = ...
  if a == nil then return { 0 } end
  if torch.isStorage and torch.isStorage(a) then return a:totable() end
  local list = { ... }
  for i, v in ipairs(list) do
    if type(v) ~= 'number' or v % 1 ~= 0 or v < 0 then
      fail(fn, 'expected sizes (non-negative integers or a LongStorage), got %s at argument %d', tostring(v), i)
    end
  end
  return list
end

for _, ty in ipairs({ 'Float', 'Double', 'Int', 'Long', 'Byte', 'Half' }) do
  local fn = 'createCudaHost' .. ty .. 'Tensor'
  cutorch[fn] = function(...)
    local dims = sizes(fn, ...)
    if not cuda.isBuilt() then fail(fn, 'pinned host memory needs the CUDA backend: %s', cuda.unavailableReason()) end
    return torch[ty .. 'Tensor'](unpack(dims)):pinMemory()
  end
end
--- cutorch.createCudaHostTensor(sizes...): an uninitialized torch.FloatTensor in pinned host
--- memory (fast, asynchronous copies to the GPU); createCudaHost{Double,Int,Long,Byte,Half}Tensor
--- give the other types. Sizes are numbers or a LongStorage.
--- Example: require 'cutorch'; if cutorch.isAvailable() then cutorch.createCudaHostTensor(2, 3) end
cutorch.createCudaHostTensor = cutorch.createCudaHostFloatTensor

cutorch.hasHalf = true

--- cutorch.setHeapTracking(on): accepted and ignored: Tocha's collector always counts device
--- memory (the GC heuristic of torch.cuda.memoryStats().liveBytes).
--- Example: require 'cutorch'; cutorch.setHeapTracking(true)
function cutorch.setHeapTracking(on) end

return cutorch
