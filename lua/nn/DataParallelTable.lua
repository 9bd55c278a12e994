-- nn.DataParallelTable(dim [, flattenParams, useNCCL]) (Torch7's cunn class): data parallelism over
-- several GPUs of one process. The batch is split along dim, each device's replica of the model
-- runs its slice, the outputs are gathered on the first device, and the replicas' gradients are
-- summed into the first replica (NCCL when available, device copies otherwise), whose parameters
-- are what parameters()/getParameters() and optimizers see (Note [DataParallelTable replicas]).
local DPT, parent = torch.class('nn.DataParallelTable', 'nn.Container')

-- Note [DataParallelTable replicas]:
--  * self.modules[i] is the replica on self.devices[i]; modules[1] is the module given to add,
--    moved to the first device. parameters() returns modules[1]'s only, so an optimizer updates
--    those; the next forward broadcasts them to the other replicas (Torch7's needsSync).
--  * accGradParameters sums every replica's gradients into modules[1]'s and zeroes the others', so
--    gradients accumulate across iterations exactly as a single model's would; the sum of the
--    slices' gradients is the gradient of the whole batch.
--  * A device is a CUDA index (0-based, as torch.cuda.setDevice) or 'cpu'. CPU replicas run one
--    after the other: the same split/replicate/gather/reduce code, testable without a GPU. CUDA
--    replicas also run one after the other from Lua, but their kernels are queued on each
--    device's stream without host synchronization, so the devices compute at the same time.
--  * Buffers that are not parameters (batch-norm running statistics) stay per replica, as in
--    Torch7; modules[1]'s are the ones saved.
--  * Under loss:backward() the table is one coarse autograd node (it defines updateGradInput and
--    accGradParameters), so both training styles reduce the gradients.

local S = require 'nn.support'
local ffi = require 'ffi'
local NAME = 'nn.DataParallelTable'

--- nn.DataParallelTable(dim [, flattenParams [, useNCCL]]): splits batches along dim (1-based;
--- negative counts from the end). flattenParams: flatten each replica's parameters
--- (getParameters) so gradients are reduced in one call; useNCCL: reduce and broadcast with NCCL
--- when libtocha_nccl.so is available (default true), device copies otherwise.
function DPT:__init(dim, flattenParams, useNCCL)
  parent.__init(self)
  self._transparent = false  -- a coarse autograd node (Note [DataParallelTable replicas])
  if type(dim) ~= 'number' or dim % 1 ~= 0 or dim == 0 then
    error(string.format('[%s] dim must be a non-zero integer, got %s', NAME, tostring(dim)), torch._lib.user_level())
  end
  self.dimension = dim
  self.flattenParams = flattenParams and true or false
  self.useNCCL = useNCCL ~= false
  self.devices = {}
  self.needsSync = false
end

local function is_cuda(dev) return dev ~= 'cpu' end

-- Runs fn(...) with dev current (CUDA), restoring the current device even on error.
local function on(dev, fn, ...)
  if not is_cuda(dev) then return fn(...) end
  local prev = torch.cuda.getDevice()
  torch.cuda.setDevice(dev)
  local res = { pcall(fn, ...) }
  torch.cuda.setDevice(prev)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

-- The tensor type of m's parameters on dev (a CUDA type keeps the dtype: Double -> CudaDouble).
local function type_on(m, dev)
  local params = m:parameters()
  local t = params and params[1] or m.output
  local name = torch.typename(t) or 'torch.FloatTensor'
  local cpu = name:gsub('^torch%.Cuda', 'torch.')
  if cpu == 'torch.Tensor' then cpu = 'torch.FloatTensor' end
  if not is_cuda(dev) then return cpu end
  local cuda = cpu == 'torch.FloatTensor' and 'torch.CudaTensor' or cpu:gsub('^torch%.', 'torch.Cuda')
  return cuda
end

local function check_device(dev, i)
  if dev == 'cpu' then return end
  if type(dev) ~= 'number' or dev % 1 ~= 0 then
    error(string.format("[%s] device %d must be a CUDA index (0-based) or 'cpu', got %s", NAME, i, tostring(dev)), torch._lib.user_level())
  end
  local n = torch.cuda.deviceCount()
  if dev < 0 or dev >= n then
    error(string.format('[%s] device %s is not a CUDA device (%s)', NAME, tostring(dev),
      n == 0 and torch.cuda.unavailableReason() or ('0..' .. (n - 1))), torch._lib.user_level())
  end
end

--- dpt:add(module, devices): replicates module on each device of the list (CUDA indices, 0-based,
--- or 'cpu'; all CUDA or all 'cpu'); module itself becomes the replica on the first. Returns dpt.
--- A single device after the first add adds that device (Note [One add per device]).
function DPT:add(module, gpus)
  if type(module) ~= 'table' or not module.forward then
    error(string.format('[%s] add expects a module, got %s', NAME, torch.type(module)), torch._lib.user_level())
  end
  if #self.modules > 0 then
    if type(gpus) == 'number' or type(gpus) == 'string' then return self:_addDevice(gpus) end
    error(string.format('[%s] add was already called: one module per table', NAME), torch._lib.user_level())
  end
  if type(gpus) == 'number' or type(gpus) == 'string' then gpus = { gpus } end
  if type(gpus) ~= 'table' or #gpus == 0 then
    error(string.format('[%s] add expects a list of devices, got %s', NAME, tostring(gpus)), torch._lib.user_level())
  end
  local seen, cpu = {}, nil
  for i, dev in ipairs(gpus) do
    check_device(dev, i)
    if cpu == nil then cpu = not is_cuda(dev) end
    if cpu ~= not is_cuda(dev) then error(string.format("[%s] mix of CUDA devices and 'cpu' in %s", NAME, 'the list'), torch._lib.user_level()) end
    if is_cuda(dev) and seen[dev] then error(string.format('[%s] device %d is listed twice', NAME, dev), torch._lib.user_level()) end
    seen[dev] = true
  end
  -- Every replica starts as a CPU copy of the module (clone() works on CPU modules; a module
  -- already on a device would otherwise stay there), moved to its device.
  local cpu_type = type_on(module, 'cpu')
  local dev_type = type_on(module, gpus[1])
  module:type(cpu_type)
  for i = #gpus, 1, -1 do
    local dev = gpus[i]
    self.devices[i] = dev
    local replica = i == 1 and module or module:clone()
    self.modules[i] = on(dev, function() return replica:type(dev_type) end)
  end
  if self.flattenParams then
    for i, m in ipairs(self.modules) do on(self.devices[i], function() m:getParameters() end) end
  end
  self:_setupComm()
  return self
end

-- Note [One add per device]: cunn also accepts one add(module, gpu) call per device (for i = 1, n
-- do dpt:add(model, i) end); the module of the later calls is ignored there, and each call adds a
-- device. Each such call replicates modules[1] anew over the longer list; an invalid device leaves
-- the table as it was.
function DPT:_addDevice(dev)
  local devs = {}
  for i, d in ipairs(self.devices) do devs[i] = d end
  devs[#devs + 1] = dev
  local modules, devices = self.modules, self.devices
  self.modules, self.devices = {}, {}
  local ok, err = pcall(self.add, self, modules[1], devs)
  if not ok then
    self.modules, self.devices = modules, devices
    error(err, 0)
  end
  return self
end

--- dpt:threads(fn): Torch7 ran fn in each worker thread; the replicas run from this thread, so fn
--- runs once here (a documented near no-op). Returns dpt.
function DPT:threads(fn)
  if fn then fn() end
  return self
end

-- The NCCL communicator over the devices, when asked for, available and useful (2+ GPUs).
function DPT:_setupComm()
  self._comm = nil
  if not self.useNCCL or #self.devices < 2 or not is_cuda(self.devices[1]) then return end
  local ok, N = pcall(torch.distributed._loadNCCL, NAME)
  if not ok then
    self._noNCCL = N  -- why: copies are used instead
    return
  end
  local devs = ffi.new('int[?]', #self.devices, self.devices)
  local c = N.tocha_nccl_local_new(#self.devices, devs)
  if c == nil then error(ffi.string(N.tocha_nccl_last_error()), 3) end
  self._N = N
  self._comm = ffi.gc(c, N.tocha_nccl_local_free)
end

--- dpt:usesNCCL(): true when gradients and parameters move through an NCCL communicator.
function DPT:usesNCCL() return self._comm ~= nil end

-- ---- split and gather ---------------------------------------------------------------------------

-- The slices of a batch of n along dim for k devices: {offset, size} with sizes as even as possible.
local function slices(n, k)
  local out, base, extra, offset = {}, math.floor(n / k), n % k, 1
  for i = 1, k do
    local size = base + (i <= extra and 1 or 0)
    out[i] = { offset, size }
    offset = offset + size
  end
  return out
end

local function dim_of(self, t)
  local d = self.dimension
  if d < 0 then d = t:dim() + 1 + d end
  if d < 1 or d > t:dim() then
    S.fail(NAME, 'cannot split along dimension %d a tensor of size %s', self.dimension, S.sizestr(t))
  end
  return d
end

-- Slice i of x (a tensor or a table of them) on dev.
local function scatter(self, x, sl, dev)
  if torch.isTensor(x) then
    local part = x:narrow(dim_of(self, x), sl[1], sl[2])
    if is_cuda(dev) then return on(dev, function() return part:contiguous():cuda(dev) end) end
    return part:contiguous()
  elseif type(x) == 'table' then
    local out = {}
    for k, v in ipairs(x) do out[k] = scatter(self, v, sl, dev) end
    return out
  end
  S.fail(NAME, 'expected a tensor or a table of tensors, got %s', S.describe(x))
end

-- The replicas' results (tensors or tables of them), concatenated along dim on the first device.
-- Copies into slices of a new tensor rather than torch.cat: a plain device copy is all it needs
-- on any device (the table is one coarse autograd node, so nothing here is recorded).
local function gather(self, parts, first)
  local p1 = parts[1]
  if torch.isTensor(p1) then
    if #parts == 1 then return p1 end
    local d = dim_of(self, p1)
    local sizes = p1:size():totable()
    sizes[d] = 0
    for _, p in ipairs(parts) do sizes[d] = sizes[d] + p:size(d) end
    return on(first, function()
      local out = p1.new(unpack(sizes))
      local offset = 1
      for _, p in ipairs(parts) do
        local n = p:size(d)
        out:narrow(d, offset, n):copy(is_cuda(first) and p:cuda(first) or p)
        offset = offset + n
      end
      return out
    end)
  elseif type(p1) == 'table' then
    local out = {}
    for k = 1, #p1 do
      local col = {}
      for i, p in ipairs(parts) do col[i] = p[k] end
      out[k] = gather(self, col, first)
    end
    return out
  end
  S.fail(NAME, 'a replica returned %s, expected a tensor or a table of tensors', S.describe(p1))
end

local function batch_size(self, x)
  if torch.isTensor(x) then return x:size(dim_of(self, x)) end
  if type(x) == 'table' and x[1] ~= nil then return batch_size(self, x[1]) end
  S.fail(NAME, 'expected a tensor or a table of tensors, got %s', S.describe(x))
end

-- ---- forward and backward -----------------------------------------------------------------------

function DPT:updateOutput(input)
  if #self.modules == 0 then S.fail(NAME, 'has no module (call add(module, devices) first)') end
  if self.needsSync then self:syncParameters() end
  local n = batch_size(self, input)
  if n == 0 then  -- no replica would run, and the gather would have nothing to say why
    S.fail(NAME, 'cannot split an empty batch (size 0 along dimension %d) across the replicas', self.dimension)
  end
  local sl = slices(n, #self.devices)
  self._inputs, self._used = {}, 0
  local outs = {}
  for i, dev in ipairs(self.devices) do
    if sl[i][2] > 0 then
      local x = scatter(self, input, sl[i], dev)
      self._inputs[i] = x
      outs[i] = on(dev, function() return self:rethrowErrors(self.modules[i], i, 'forward', x) end)
      self._used = i
    end
  end
  self._slices, self._accumulated = sl, false
  self.output = gather(self, outs, self.devices[1])
  return self.output
end

-- Note [DataParallelTable backward]: each replica runs its whole backward (gradInput and its
-- parameter gradients) in one call, because a module differentiated by autograd has no separate
-- updateGradInput; so updateGradInput already accumulates the replicas' gradients, and
-- accGradParameters then only sums them into the first replica (or runs the backward when
-- updateGradInput did not).
local function run_backward(self, gradOutput, scale)
  if not self._slices then S.fail(NAME, 'backward called before forward') end
  local gis = {}
  for i = 1, self._used do
    local dev = self.devices[i]
    local g = scatter(self, gradOutput, self._slices[i], dev)
    gis[i] = on(dev, function()
      return self:rethrowErrors(self.modules[i], i, 'backward', self._inputs[i], g, scale)
    end)
  end
  self.gradInput = gather(self, gis, self.devices[1])
  return self.gradInput
end

function DPT:updateGradInput(input, gradOutput)
  run_backward(self, gradOutput, 1)
  self._accumulated = true
  return self.gradInput
end

function DPT:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if self._accumulated and scale ~= 1 then
    S.fail(NAME, 'accGradParameters with scale %s after updateGradInput (which already accumulated the '
      .. 'gradients at scale 1): call backward(input, gradOutput, scale) instead', tostring(scale))
  end
  if not self._accumulated then run_backward(self, gradOutput, scale) end
  self._accumulated = false
  self:_reduceGradients()
  self.needsSync = true
end

--- dpt:backward(input, gradOutput [, scale]): every replica's backward on its slice, gradInput
--- gathered on the first device, gradients summed into the first replica.
function DPT:backward(input, gradOutput, scale)
  run_backward(self, gradOutput, scale or 1)
  self._accumulated = false
  self:_reduceGradients()
  self.needsSync = true
  return self.gradInput
end

-- ---- gradients and parameters across replicas ---------------------------------------------------

-- Each replica's gradient tensors: one flat tensor per replica when flattenParams holds and the
-- gradients still live in it, else the list of gradients.
local function grads_of(self, i)
  local _, grads = self.modules[i]:parameters()
  return grads or {}
end
local function params_of(self, i) return (self.modules[i]:parameters()) or {} end

local REDUCE_SUM = 0

-- Runs the NCCL op over {tensors[1][k], ..., tensors[n][k]} for every k; false when a tensor is
-- not contiguous (the caller then copies).
local function nccl_each(self, lists, op)
  local n = #lists
  local ts = ffi.new('tocha_tensor *[?]', n)
  for k = 1, #lists[1] do
    for i = 1, n do
      if not lists[i][k]:isContiguous() then return false end
      ts[i - 1] = lists[i][k].p
    end
    local rc = op == 'reduce' and self._N.tocha_nccl_local_reduce(self._comm, ts, n, 0, REDUCE_SUM)
               or self._N.tocha_nccl_local_broadcast(self._comm, ts, n, 0)
    if rc ~= 0 then error(ffi.string(self._N.tocha_nccl_last_error()), 0) end
  end
  return true
end

function DPT:_reduceGradients()
  local n = #self.devices
  if n < 2 then return end
  local lists = {}
  for i = 1, n do lists[i] = grads_of(self, i) end
  local first = self.devices[1]
  if not (self._comm and nccl_each(self, lists, 'reduce')) then
    for i = 2, n do
      for k, g in ipairs(lists[i]) do
        local src = is_cuda(first) and g:cuda(first) or g
        on(first, function() lists[1][k]:add(src) end)
      end
    end
  end
  for i = 2, n do
    on(self.devices[i], function() for _, g in ipairs(lists[i]) do g:zero() end end)
  end
end

--- dpt:syncParameters(): copies the first replica's parameters into the others (done by forward
--- after every update; call it after changing modules[1]'s parameters by hand).
function DPT:syncParameters()
  self.needsSync = false
  local n = #self.devices
  if n < 2 then return end
  local lists = {}
  for i = 1, n do lists[i] = params_of(self, i) end
  if self._comm and nccl_each(self, lists, 'broadcast') then return end
  for i = 2, n do
    local dev = self.devices[i]
    for k, p in ipairs(lists[i]) do
      local src = is_cuda(dev) and lists[1][k]:cuda(dev) or lists[1][k]
      on(dev, function() p:copy(src) end)
    end
  end
end

--- dpt:parameters(): the first replica's parameters and gradients (what optimizers update).
function DPT:parameters()
  if not self.modules[1] then return end
  return self.modules[1]:parameters()
end

function DPT:updateParameters(lr)
  self.modules[1]:updateParameters(lr)
  self.needsSync = true
end

function DPT:zeroGradParameters()
  for i, m in ipairs(self.modules) do on(self.devices[i], function() m:zeroGradParameters() end) end
end

--- dpt:type(name): converts every replica on its own device (CUDA names keep each replica's
--- device; a CPU name is refused: the replicas belong to their devices).
function DPT:type(name, cache)
  if not name then return self._type end
  for i, m in ipairs(self.modules) do
    local dev = self.devices[i]
    local cuda_name = name:match('^torch%.Cuda') ~= nil
    if cuda_name ~= is_cuda(dev) then
      S.fail(NAME, 'cannot convert the replica on %s to %s', is_cuda(dev) and ('cuda:' .. dev) or 'the CPU', name)
    end
    on(dev, function() m:type(name, cache) end)
  end
  self._type = name
  self.output, self.gradInput = nil, nil
  return self
end

--- dpt:get(i): the replica on the i-th device (get(1): the module given to add, now on device 1).
function DPT:get(i) return self.modules[i] end

function DPT:clearState()
  self._inputs, self._slices = nil, nil
  return parent.clearState(self)
end

-- Note [Saving a DataParallelTable]: the NCCL communicator and the last batch's slices are not
-- saved; loading makes a new communicator over the same devices (they must exist then).
local TRANSIENT = { _comm = true, _N = true, _inputs = true, _slices = true, _noNCCL = true }

--- dpt:write(file): saves the table without its communicator (Note [Saving a DataParallelTable]).
function DPT:write(file) nn.utils.writeFieldsExcept(self, file, TRANSIENT) end

--- dpt:read(file): loads a saved table and rebuilds its NCCL communicator.
function DPT:read(file)
  nn.utils.readFields(self, file, NAME)
  self:_setupComm()
end

function DPT:__tostring__()
  local devs = {}
  for i, d in ipairs(self.devices) do devs[i] = is_cuda(d) and ('cuda:' .. d) or 'cpu' end
  return string.format('%s(dim %d, devices {%s}%s) {\n  %s\n}', NAME, self.dimension, table.concat(devs, ', '),
    self._comm and ', NCCL' or '', tostring(self.modules[1]):gsub('\n', '\n  '))
end
