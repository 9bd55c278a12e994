-- Sparse COO tensors (PyTorch's torch.sparse_coo_tensor as torch.sparseCooTensor) on dense ops:
-- this file owns construction and its checks, the accessors, copies and conversions; the
-- operations are in sparse_ops.lua, the products and softmax in sparse_mm.lua, printing in
-- sparse_print.lua (Note [Sparse COO layout] in sparse_util.lua).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local U = require 'torch.sparse_util'
local fail = lib.fail
local is_tensor, is_storage = types.is_tensor, types.is_storage
local methods = torch._tensor_methods
local mt = U.mt

torch.sparse = torch.sparse or {}

-- Note [1-based sparse indices]: indices are given and returned 1-based, in PyTorch's
-- sparseDim x nnz layout (column j of indices is the position of values[j]); PyTorch's are
-- 0-based. A table or tensor whose entries are not integers is an error, not truncated.
local function read_indices(op, indices)
  if type(indices) == 'table' and getmetatable(indices) == nil then
    for i, row in ipairs(indices) do
      if type(row) ~= 'table' then fail(op, 'indices row %d is a %s, expected a table of integers', i, U.describe(row)) end
      for j, v in ipairs(row) do
        -- inf passes the floor test and 2^63 and beyond wrap when converted to int64
        if type(v) ~= 'number' or v ~= math.floor(v) or v >= 2 ^ 63 or v < -2 ^ 63 then
          fail(op, 'index at row %d, column %d is %s, expected an integer', i, j, tostring(v))
        end
      end
    end
    indices = #indices > 0 and torch.LongTensor(indices) or torch.LongTensor(0, 0)
  end
  if not is_tensor(indices) then fail(op, 'expected indices (a LongTensor sparseDim x nnz), got %s', U.describe(indices)) end
  local dt = indices.p.dtype
  if dt ~= types.I64 and dt ~= lib.dtype.i32 then
    fail(op, 'indices must be integers (a LongTensor or IntTensor), got %s', U.describe(indices))
  end
  if indices:dim() ~= 2 then fail(op, 'indices must be 2-D (sparseDim x nnz), got %s', U.describe(indices)) end
  if dt ~= types.I64 then indices = indices:to('torch.LongTensor') end
  return indices
end

local function read_size(op, size)
  if size == nil then return nil end
  if is_storage(size) or is_tensor(size) then size = size:totable() end
  if type(size) ~= 'table' then fail(op, 'expected a size (a table or LongStorage), got %s', U.describe(size)) end
  local out = {}
  for i = 1, #size do out[i] = U.integer(op, size[i], 'size ' .. i) end
  return out
end

local known_opts = { dtype = true, device = true, requiresGrad = true }

--- torch.sparseCooTensor(indices, values [, size] [, {dtype=, device=, requiresGrad=}]): a sparse
--- COO tensor (PyTorch's torch.sparse_coo_tensor) with values[j] (a number, or a dense slice for a
--- hybrid tensor) at the 1-based position in column j of indices (a LongTensor, or a table of
--- rows, sparseDim x nnz). values is a tensor (or table) with nnz rows; without size, each sparse
--- size is the largest index and the dense sizes are values'. dtype is a tensor type name.
--- Example: torch.sparseCooTensor({{1, 2}, {3, 1}}, {5, 6}, {2, 3})
function torch.sparseCooTensor(indices, values, size, opts)
  local op = 'sparseCooTensor'
  if type(size) == 'table' and getmetatable(size) == nil and opts == nil and #size == 0 and next(size) ~= nil then
    size, opts = nil, size
  end
  indices = read_indices(op, indices)
  opts = opts or {}
  if type(values) == 'table' and getmetatable(values) == nil then
    -- built in the requested type: through the default FloatTensor, {0.1} with dtype
    -- 'torch.DoubleTensor' became 0.10000000149 and a LongTensor lost integers above 2^24
    local name = type(opts.dtype) == 'string' and types.dtype_of_name[opts.dtype] and opts.dtype:match('^torch%.(%a+)$')
    local ctor = name and rawget(torch, name)
    values = (type(ctor) == 'function' or type(ctor) == 'table') and ctor(values) or torch.Tensor(values)
  end
  if not is_tensor(values) then fail(op, 'expected values (a tensor), got %s', U.describe(values)) end
  size = read_size(op, size)
  for k in pairs(opts) do if not known_opts[k] then fail(op, 'unknown option %s', tostring(k)) end end
  if opts.dtype then values = values:to(opts.dtype) end
  if opts.device then values = values:to(opts.device) end
  local sd, nnz = indices:size(1), indices:size(2)
  if values:dim() < 1 or values:size(1) ~= nnz then
    fail(op, 'values must have one row per index column (%d), got %s', nnz, U.describe(values))
  end
  if sd < 1 then fail(op, 'indices must have at least one row (sparse dim), got %s', U.describe(indices)) end
  if values.p.device_type ~= indices.p.device_type or values.p.device_index ~= indices.p.device_index then
    indices = indices:to(values:device())
  end
  local mins = nnz > 0 and indices:min(2):view(sd):totable() or {}
  local maxs = nnz > 0 and indices:max(2):view(sd):totable() or {}
  for d = 1, sd do
    if nnz > 0 and mins[d] < 1 then fail(op, 'indices must be >= 1 (they are 1-based), got %d in row %d', mins[d], d) end
  end
  if size then
    if #size ~= sd + values:dim() - 1 then
      fail(op, 'size %s has %d dims, but indices give %d sparse dims and values %d dense dims',
        table.concat(size, 'x'), #size, sd, values:dim() - 1)
    end
    for d = 1, sd do
      if size[d] < 0 then fail(op, 'size %s has a negative size in dim %d', table.concat(size, 'x'), d) end
      if nnz > 0 and maxs[d] > size[d] then
        fail(op, 'index %d in row %d is out of range for size %s', maxs[d] or 0, d, table.concat(size, 'x'))
      end
    end
    for d = sd + 1, #size do
      if size[d] ~= values:size(d - sd + 1) then
        fail(op, 'dense size %d of size %s differs from values %s', size[d], table.concat(size, 'x'), U.describe(values))
      end
    end
  else
    size = {}
    for d = 1, sd do size[d] = maxs[d] or 0 end
    for d = 2, values:dim() do size[#size + 1] = values:size(d) end
  end
  -- As PyTorch, the new tensor is the leaf: values that are a leaf themselves are detached
  -- (sharing their data) rather than marked, so the caller's tensor does not start requiring grad.
  if opts.requiresGrad then
    if not values:needsGrad() then values = values:detach() end
    values:requiresGrad()
  end
  return U.new(indices, values, size, nnz <= 1)
end

--- torch.isSparse(x): true when x is a torch.SparseTensor (false for dense tensors and others).
--- Example: torch.isSparse(torch.ones(2):toSparse())
function torch.isSparse(x) return U.is_sparse(x) end
--- x:isSparse(): false for a dense tensor (true for a SparseTensor).
--- Example: torch.ones(2):isSparse()
function methods.isSparse() return false end

--- S:indices(): the LongTensor sparseDim x nnz of 1-based positions (shared, not copied).
--- Example: torch.ones(2, 2):toSparse():indices()
function mt:indices() return self._indices end
--- S:values(): the dense tensor nnz x (dense sizes) of values (shared; carries the gradient).
--- Example: torch.ones(2, 2):toSparse():values()
function mt:values() return self._values end
--- S:size([dim]): the sizes as a LongStorage, or one size.
--- Example: torch.ones(2, 3):toSparse():size(2)
function mt:size(d)
  if d ~= nil then return self._size[U.dim('size', d, #self._size)] end
  return torch.LongStorage(self._size)
end
--- S:dim(): sparseDim() + denseDim().
--- Example: torch.ones(2, 3):toSparse():dim()
function mt:dim() return #self._size end
mt.nDimension = mt.dim
--- S:sparseDim(): the number of sparse (indexed) dims, the rows of indices.
--- Example: torch.ones(2, 3):toSparse(1):sparseDim()
function mt:sparseDim() return self._indices:size(1) end
--- S:denseDim(): the number of dense trailing dims held in each value.
--- Example: torch.ones(2, 3):toSparse(1):denseDim()
function mt:denseDim() return self._values:dim() - 1 end
--- S:nnz(): the number of stored entries (duplicates counted until coalesce).
--- Example: torch.eye(3):toSparse():nnz()
function mt:nnz() return self._indices:size(2) end
mt._nnz = mt.nnz
--- S:nElement(): the number of elements of the dense equivalent.
--- Example: torch.eye(3):toSparse():nElement()
function mt:nElement() return U.prod(self._size) end
--- S:isCoalesced(): true when the indices are unique and sorted (S:coalesce() makes it so).
--- Example: torch.eye(3):toSparse():isCoalesced()
function mt:isCoalesced() return self._coalesced end
--- S:isSparse(): true.
--- Example: torch.eye(2):toSparse():isSparse()
function mt:isSparse() return true end

--- S:clone(): a copy with its own indices and values (values keep their autograd history).
--- Example: torch.eye(2):toSparse():clone()
function mt:clone() return U.new(self._indices:clone(), self._values:clone(), { unpack(self._size) }, self._coalesced) end
--- S:detach(): the same indices with values detached from autograd.
--- Example: torch.eye(2):toSparse():detach()
function mt:detach() return U.new(self._indices, self._values:detach(), self._size, self._coalesced) end
--- S:requiresGrad([flag = true]): marks the values as requiring grad (they must be a leaf); returns S.
--- Example: torch.eye(2):double():toSparse():requiresGrad()
function mt:requiresGrad(flag) self._values:requiresGrad(flag) return self end
--- S:needsGrad(): true when the values require grad.
--- Example: torch.eye(2):toSparse():needsGrad()
function mt:needsGrad() return self._values:needsGrad() end

-- Note [Sparse gradients]: S.grad is a SparseTensor with S's indices and the values' gradient
-- (PyTorch also gives a sparse gradient with the pattern of S); nil before backward.
local index_mt = mt.__index
mt.__index = function(self, k)
  local v = index_mt[k]
  if v ~= nil then return v end
  if k == 'grad' then
    local g = self._values.grad
    return g and U.new(self._indices, g, self._size, self._coalesced) or nil
  end
  return nil
end

-- Note [Setting S.grad]: S.grad lives in the values' gradient, so assigning it goes there too:
-- S.grad = nil clears it (as PyTorch's S.grad = None; a raw field set to nil cleared nothing and
-- the next backward accumulated onto the old gradient), and a SparseTensor with S's indices sets
-- it. Other keys are plain fields.
mt.__newindex = function(self, k, v)
  if k ~= 'grad' then return rawset(self, k, v) end
  if v == nil then self._values.grad = nil return end
  if not U.is_sparse(v) then fail('grad', 'expected a SparseTensor (or nil) as the gradient of a SparseTensor, got %s', U.describe(v)) end
  local a, b = self._indices, v._indices
  local same = rawequal(a, b) or (a:isSameSizeAs(b) and torch.equal(a, b:to(a:device())))
  if not same or table.concat(self._size, 'x') ~= table.concat(v._size, 'x') then
    fail('grad', 'the gradient must have the size and the indices of S (%s), got %s', U.describe(self), U.describe(v))
  end
  self._values.grad = v._values
end

-- A copy with values converted by conv and indices moved to the values' device.
local function convert(self, conv)
  local v = conv(self._values)
  local i = self._indices
  if v.p.device_type ~= i.p.device_type or v.p.device_index ~= i.p.device_index then i = i:to(v:device()) end
  if v == self._values and i == self._indices then return self end
  return U.new(i, v, self._size, self._coalesced)
end

--- S:type([typename]): without typename, PyTorch's sparse type name ('torch.sparse.FloatTensor',
--- 'torch.cuda.sparse.FloatTensor'); with a dense type name, S with values of that type/device.
--- Example: torch.eye(2):toSparse():type('torch.DoubleTensor'):type()
function mt:type(name)
  if name == nil then
    local vt = torch.typename(self._values)
    local s = types.suffix[self._values.p.dtype]
    return (vt:find('Cuda') and 'torch.cuda.sparse.' or 'torch.sparse.') .. s .. 'Tensor'
  end
  if type(name) ~= 'string' or not types.dtype_of_name[name] then
    fail('type', 'expected a dense tensor type name such as \'torch.DoubleTensor\', got %s', U.describe(name))
  end
  return (convert(self, function(v) return v:type(name) end))
end
--- S:to(device [, typename]) or S:to(typename): S on a device and/or with values of a type.
--- Example: torch.eye(2):toSparse():to('cpu', 'torch.DoubleTensor')
function mt:to(a, b) return (convert(self, function(v) return v:to(a, b) end)) end
--- S:float(): S with FloatTensor values.
--- Example: torch.eye(2):double():toSparse():float()
function mt:float() return (convert(self, function(v) return v:float() end)) end
--- S:double(): S with DoubleTensor values.
--- Example: torch.eye(2):toSparse():double()
function mt:double() return (convert(self, function(v) return v:double() end)) end
--- S:cuda([device]): S with indices and values on a CUDA device.
--- Example: torch.cuda.isAvailable() and torch.eye(2):toSparse():cuda()
function mt:cuda(dev) return (convert(self, function(v) return v:cuda(dev) end)) end
--- S:cpu(): S with indices and values on the CPU.
--- Example: torch.eye(2):toSparse():cpu()
function mt:cpu() return (convert(self, function(v) return v:cpu() end)) end
--- S:isCuda(): true when S lives on a CUDA device.
--- Example: torch.eye(2):toSparse():isCuda()
function mt:isCuda() return self._values:isCuda() end
--- S:device(): the values' device.
--- Example: torch.eye(2):toSparse():device()
function mt:device() return self._values:device() end

-- Note [Loading saved SparseTensors]: torch.save writes a SparseTensor as a class object with its
-- four fields, but the loaders take every class name of the form torch.<letters>Tensor for a
-- dense tensor type and refuse it. So the name is aliased, through the public
-- registerClassAlias, to a private holder class whose fields are read and then turned back into
-- a SparseTensor.
if torch.serialization and torch.serialization.registerClassAlias then
  torch.class('torch.sparse._SavedCoo')
  -- The parts go through sparseCooTensor's checks (a corrupt file's out-of-range index would
  -- otherwise reach coalesce, which folds it into a wrong position), and a coalesced flag is
  -- kept only when the positions are strictly increasing (a false one skips the summing).
  torch.serialization.registerClassAlias('torch.SparseTensor', 'torch.sparse._SavedCoo', function(obj)
    if type(obj._size) ~= 'table' then fail('load', 'a saved SparseTensor has no size table, got %s', U.describe(obj._size)) end
    local S = torch.sparseCooTensor(obj._indices, obj._values, obj._size)
    local nnz = S:nnz()
    if obj._coalesced == true and nnz > 1 then
      local key = U.keys('load', S._indices, S._size)
      S._coalesced = torch.gt(key:narrow(1, 2, nnz - 1), key:narrow(1, 1, nnz - 1)):all()
    end
    return S
  end)
end

require 'torch.sparse_ops'
require 'torch.sparse_mm'
require 'torch.sparse_print'

return torch
