-- hdf5.HDF5DataSet: one dataset of an open file (what file:read('/x') returns): its size, its
-- tensor type, and reading it whole (:all) or in part (:partial) straight into tensor memory.
local torch = require 'torch'
local L = require 'hdf5.lib'
local H = require 'hdf5.handles'
local C = L.C

local HDF5DataSet = torch.class('hdf5.HDF5DataSet')

-- Made by hdf5.HDF5File:read, not by scripts: (file state, dataset id, path, the file's sentinel;
-- Note [Closing what the script forgot] in handles.lua).
function HDF5DataSet:__init(state, id, path, keep)
  self._state, self._id, self._path, self._keep = state, id, path, keep
end

function HDF5DataSet:__tostring()
  return string.format('[HDF5DataSet %s in %s]', self._path, self._state.name)
end

local function where(self)
  return string.format("'%s' in '%s'", self._path, self._state.name)
end

-- Calls fn(space) with the dataset's file dataspace, closing it afterwards (also on error).
local function with_space(self, fn_name, body)
  H.alive(self, fn_name)
  local space = L.check(C.H5Dget_space(self._id), fn_name, 'H5Dget_space', 'for ' .. where(self))
  local ok, result = pcall(body, space)
  C.H5Sclose(space)
  if not ok then error(result, 0) end
  return result
end

-- Sizes of the dataset ({} for a scalar); errors for a null dataspace (a dataset without data).
local function sizes_of(self, fn_name, space)
  local class = C.H5Sget_simple_extent_type(space)
  if class == L.S_NULL then L.fail(fn_name, '%s has a null dataspace (it holds no data)', where(self)) end
  return (L.dims(space, fn_name, 'for ' .. where(self)))
end

--- dataset:dataspaceSize(): the dataset's sizes as a Lua table, without reading the data.
--- Example: local f = hdf5.open('size.h5', 'w'); f:write('/x', torch.zeros(3, 4)); print(f:read('/x'):dataspaceSize()[2]); f:close()
function HDF5DataSet:dataspaceSize()
  return with_space(self, 'HDF5DataSet:dataspaceSize', function(space)
    return sizes_of(self, 'HDF5DataSet:dataspaceSize', space)
  end)
end

-- The tensor type name, the memory type to read with, and the unsigned-64-bit flag.
local function read_type(self, fn_name)
  H.alive(self, fn_name)
  local t = L.check(C.H5Dget_type(self._id), fn_name, 'H5Dget_type', 'for ' .. where(self))
  local typename, memType, u64 = L.readType(t)
  C.H5Tclose(t)
  if not typename then
    L.fail(fn_name, '%s has an unsupported datatype (%s); hdf5 reads integers and floats', where(self), memType)
  end
  if typename == 'torch.HalfTensor' and not torch.HalfTensor then typename = 'torch.FloatTensor' end
  return typename, memType, u64
end

local function ctor_of(typename)
  return torch[typename:match('^torch%.(.*)$')]
end

--- dataset:getTensorFactory(): the constructor of the tensor type the dataset reads into (e.g.
--- torch.ByteTensor for uint8 data) and the HDF5 memory type it reads with.
--- Example: local f = hdf5.open('fac.h5', 'w'); f:write('/x', torch.IntTensor{1, 2}); print(f:read('/x'):getTensorFactory() == torch.IntTensor); f:close()
function HDF5DataSet:getTensorFactory()
  local typename, memType = read_type(self, 'HDF5DataSet:getTensorFactory')
  return ctor_of(typename), memType
end

-- Reads the selection of fileSpace (H5S_ALL: everything) into a new tensor of `sizes`.
local function read_into(self, fn_name, sizes, memSpace, fileSpace)
  local typename, memType, u64 = read_type(self, fn_name)
  -- float16 data goes through float (an exact conversion HDF5 does), then becomes a HalfTensor.
  local half = typename == 'torch.HalfTensor'
  -- resize, not the constructor: torch.LongTensor(storage) would view the sizes as data.
  local t = ctor_of(half and 'torch.FloatTensor' or typename)():resize(torch.LongStorage(sizes))
  if t:nElement() > 0 then
    L.check(C.H5Dread(self._id, memType, memSpace, fileSpace, L.P_DEFAULT, t:data()), fn_name, 'H5Dread',
      'reading ' .. where(self))
    if u64 and t:min() < 0 then
      L.fail(fn_name, '%s holds unsigned 64-bit values of 2^63 or more, which a LongTensor cannot hold',
        where(self))
    end
  end
  return half and t:half() or t
end

--- dataset:all(): the whole dataset as a tensor of the matching type (int8 -> CharTensor, uint8 ->
--- ByteTensor, int16 -> ShortTensor, int32 -> IntTensor, int64 -> LongTensor, float -> FloatTensor,
--- double -> DoubleTensor; see Note [Unsigned integers] in lua/hdf5/lib.lua).
--- Example: local f = hdf5.open('all.h5', 'w'); f:write('/x', torch.range(1, 6):view(2, 3)); print(f:read('/x'):all()); f:close()
function HDF5DataSet:all()
  local fn_name = 'HDF5DataSet:all'
  local sizes = with_space(self, fn_name, function(space) return sizes_of(self, fn_name, space) end)
  return read_into(self, fn_name, sizes, L.S_ALL, L.S_ALL)
end

-- The 0-based start and the count of each dimension from partial's ranges ({first, last} or an
-- index, 1-based and inclusive; negative counts from the end as in Tocha's indexing).
local function hyperslab(self, fn_name, ranges, sizes)
  if #ranges ~= #sizes then
    L.fail(fn_name, '%s has %d dimensions but %d ranges were given', where(self), #sizes, #ranges)
  end
  local start, count = {}, {}
  for k, r in ipairs(ranges) do
    local first, last
    if type(r) == 'number' then
      first, last = r, r
    elseif type(r) == 'table' and #r == 2 and type(r[1]) == 'number' and type(r[2]) == 'number' then
      first, last = r[1], r[2]
    else
      L.fail(fn_name, 'range %d must be {first, last} or an index, got %s', k, type(r))
    end
    local n = sizes[k]
    if first < 0 then first = n + first + 1 end
    if last < 0 then last = n + last + 1 end
    if first % 1 ~= 0 or last % 1 ~= 0 or first < 1 or last > n or first > last then
      L.fail(fn_name, 'range %d {%s, %s} is outside 1..%d of %s (or first > last)', k, tostring(r[1] or r),
        tostring(r[2] or r), n, where(self))
    end
    start[k], count[k] = first - 1, last - first + 1
  end
  return start, count
end

--- dataset:partial(range1, range2, ...): a block of the dataset, one {first, last} range (1-based,
--- inclusive) or index per dimension; only that block is read from the file.
--- Example: local f = hdf5.open('part.h5', 'w'); f:write('/x', torch.range(1, 12):view(3, 4)); print(f:read('/x'):partial({2, 3}, {1, 2})); f:close()
function HDF5DataSet:partial(...)
  local fn_name = 'HDF5DataSet:partial'
  local ranges = { ... }
  return with_space(self, fn_name, function(space)
    local sizes = sizes_of(self, fn_name, space)
    if #sizes == 0 then L.fail(fn_name, '%s is a scalar; read it with :all()', where(self)) end
    local start, count = hyperslab(self, fn_name, ranges, sizes)
    L.check(C.H5Sselect_hyperslab(space, L.S_SELECT_SET, L.toHsize(start), nil, L.toHsize(count), nil),
      fn_name, 'H5Sselect_hyperslab', 'selecting a block of ' .. where(self))
    local mem = L.check(C.H5Screate_simple(#count, L.toHsize(count), nil), fn_name, 'H5Screate_simple',
      'for ' .. where(self))
    local ok, t = pcall(read_into, self, fn_name, count, mem, space)
    C.H5Sclose(mem)
    if not ok then error(t, 0) end
    return t
  end)
end

--- dataset:close(): closes the dataset (file:close() also closes the datasets it handed out).
--- Example: local f = hdf5.open('close.h5', 'w'); f:write('/x', torch.ones(2)); local d = f:read('/x'); d:close(); f:close()
function HDF5DataSet:close()
  if not self._state.closed then H.release(self._state, self._id) end
end

return HDF5DataSet
