-- hdf5.HDF5Group: a group of an open file (the root one is what file:read('/') returns): finding
-- groups and datasets by path, writing tensors (and tables of them) with the groups on their path
-- created as needed, appending along the first dimension, and reading everything below it.
local torch = require 'torch'
local ffi = require 'ffi'
local L = require 'hdf5.lib'
local H = require 'hdf5.handles'
require 'hdf5.dataset'  -- defines hdf5.HDF5DataSet
require 'hdf5.options'  -- defines hdf5.DataSetOptions
local C = L.C

local HDF5Group = torch.class('hdf5.HDF5Group')

-- Made by hdf5.HDF5File and by read: (file state, group id, absolute path, the file's sentinel,
-- held so that the file stays open while a group or dataset of it is reachable).
function HDF5Group:__init(state, id, path, keep)
  self._state, self._id, self._path, self._keep = state, id, path, keep
end

function HDF5Group:__tostring()
  return string.format('[HDF5Group %s in %s]', self._path, self._state.name)
end

-- The components of a data path ('/a/b', 'a/b' or {'a', 'b'}), without empty ones.
local function components(datapath, fn)
  if type(datapath) == 'table' then
    local out = {}
    for i, c in ipairs(datapath) do out[i] = tostring(c) end
    return out
  end
  if type(datapath) ~= 'string' then L.fail(fn, 'the data path must be a string, got %s', type(datapath)) end
  local out = {}
  for c in datapath:gmatch('[^/]+') do out[#out + 1] = c end
  return out
end

local function join(base, name)
  return base == '/' and ('/' .. name) or (base .. '/' .. name)
end

-- What the link `rel` (relative to the group) names: 'group', 'dataset', 'other' or nil (absent).
local function kind_at(self, rel)
  local e = C.H5Lexists(self._id, rel, L.P_DEFAULT)
  if e <= 0 then
    if e < 0 then C.H5Eclear2(L.E_DEFAULT) end
    return nil
  end
  local obj = C.H5Oopen(self._id, rel, L.P_DEFAULT)
  if obj < 0 then
    C.H5Eclear2(L.E_DEFAULT)
    return 'other'  -- a dangling soft link, an external file that is not there...
  end
  local t = C.H5Iget_type(obj)
  C.H5Oclose(obj)
  return t == L.I_GROUP and 'group' or t == L.I_DATASET and 'dataset' or 'other'
end

-- Walks `parts` from this group: the kind of the last one (nil when absent). An intermediate
-- component that is missing gives nil; one that is not a group is an error.
local function walk(self, parts, fn)
  local rel
  for i, c in ipairs(parts) do
    rel = rel and (rel .. '/' .. c) or c
    local kind = kind_at(self, rel)
    if i == #parts or kind == nil then return kind, rel end
    if kind ~= 'group' then
      L.fail(fn, "'%s' in '%s' is a %s, not a group", join(self._path, rel), self._state.name, kind)
    end
  end
end

-- Opens the group or dataset at `rel` (which exists, of `kind`) as a registered wrapper.
local function open_child(self, rel, kind, fn)
  local path, what = join(self._path, rel), "'" .. join(self._path, rel) .. "' in '" .. self._state.name .. "'"
  if kind == 'group' then
    local id = L.check(C.H5Gopen2(self._id, rel, L.P_DEFAULT), fn, 'H5Gopen2', 'opening ' .. what)
    H.register(self._state, id, 'group')
    return hdf5.HDF5Group(self._state, id, path, self._keep)
  elseif kind == 'dataset' then
    local id = L.check(C.H5Dopen2(self._id, rel, L.P_DEFAULT), fn, 'H5Dopen2', 'opening ' .. what)
    H.register(self._state, id, 'dataset')
    return hdf5.HDF5DataSet(self._state, id, path, self._keep)
  end
  L.fail(fn, '%s is neither a group nor a dataset', what)
end

--- group:read(path): the group or dataset at `path` below this group (a string 'a/b' or, as in
--- torch-hdf5, a table {'a', 'b'}); no path: the group itself.
--- Example: local f = hdf5.open('grp.h5', 'w'); f:write('/a/b', torch.ones(2)); print(f:read('/a'):read('b'):all()); f:close()
function HDF5Group:read(datapath)
  local fn = 'HDF5Group:read'
  H.alive(self, fn)
  local parts = components(datapath or {}, fn)
  if #parts == 0 then return self end
  local kind, rel = walk(self, parts, fn)
  if not kind then
    L.fail(fn, "no dataset or group '%s' in '%s'", join(self._path, table.concat(parts, '/')), self._state.name)
  end
  return open_child(self, rel, kind, fn)
end

-- The names of the group's links, in name order.
local function child_names(self, fn)
  local info = ffi.new('tocha_H5G_info_t[1]')
  L.check(C.H5Gget_info(self._id, info), fn, 'H5Gget_info', 'for ' .. tostring(self))
  local names = {}
  for i = 0, tonumber(info[0].nlinks) - 1 do
    local n = L.check(tonumber(C.H5Lget_name_by_idx(self._id, '.', 0, 0, i, nil, 0, L.P_DEFAULT)), fn,
      'H5Lget_name_by_idx', 'for ' .. tostring(self))
    local buf = ffi.new('char[?]', n + 1)
    C.H5Lget_name_by_idx(self._id, '.', 0, 0, i, buf, n + 1, L.P_DEFAULT)
    names[#names + 1] = ffi.string(buf, n)
  end
  return names
end

--- group:all(): everything below the group as nested Lua tables of tensors, keyed by name.
--- Example: local f = hdf5.open('tree.h5', 'w'); f:write('/g', {x = torch.ones(2), y = torch.zeros(3)}); print(f:read('/g'):all().y); f:close()
function HDF5Group:all()
  local fn = 'HDF5Group:all'
  H.alive(self, fn)
  local out = {}
  for _, name in ipairs(child_names(self, fn)) do
    local kind = kind_at(self, name)
    if kind == 'group' or kind == 'dataset' then
      local child = open_child(self, name, kind, fn)
      local ok, v = pcall(child.all, child)
      child:close()
      if not ok then error(v, 0) end
      out[name] = v
    end
  end
  return out
end

--- group:close(): closes the group (file:close() also closes the groups it handed out).
--- Example: local f = hdf5.open('gclose.h5', 'w'); f:write('/g/x', torch.ones(1)); f:read('/g'):close(); f:close()
function HDF5Group:close()
  if not self._state.closed then H.release(self._state, self._id) end
end

local function check_writable(self, fn)
  H.alive(self, fn)
  if not self._state.writable then
    L.fail(fn, "'%s' is open read-only (mode '%s'); open it with 'r+', 'a' or 'w' to write", self._state.name,
      self._state.mode)
  end
end

-- Creates the groups of parts[1..n-1] that are missing; fails where one is not a group.
local function make_parents(self, parts, fn)
  local rel
  for i = 1, #parts - 1 do
    rel = rel and (rel .. '/' .. parts[i]) or parts[i]
    local kind = kind_at(self, rel)
    if kind == nil then
      local id = L.check(C.H5Gcreate2(self._id, rel, L.P_DEFAULT, L.P_DEFAULT, L.P_DEFAULT), fn, 'H5Gcreate2',
        "creating group '" .. join(self._path, rel) .. "' in '" .. self._state.name .. "'")
      C.H5Gclose(id)
    elseif kind ~= 'group' then
      L.fail(fn, "'%s' in '%s' is a %s, not a group", join(self._path, rel), self._state.name, kind)
    end
  end
end

-- The tensor's file type, memory type and sizes; fails for types HDF5 files do not hold.
local function tensor_types(tensor, fn, what)
  local typename = torch.typename(tensor)
  local fileType, memType = L.writeTypes(typename)
  if not fileType then
    L.fail(fn, 'cannot write a %s to %s: hdf5 writes Byte, Char, Short, Int, Long, Float and Double '
      .. 'tensors on the CPU (convert with :float(), :double() or :long())', tostring(typename), what)
  end
  return fileType, memType, tensor:size():totable()
end

-- Note [Writing over a dataset]: torch-hdf5 failed when the path already held a dataset. Writing
-- replaces it here (unlink, then create), which is what a script that rewrites its results means;
-- HDF5 does not reuse the old dataset's bytes, so a file rewritten many times grows (h5repack).
local function write_tensor(self, parts, tensor, options, fn)
  local rel = table.concat(parts, '/')
  local what = "'" .. join(self._path, rel) .. "' in '" .. self._state.name .. "'"
  local fileType, memType, sizes = tensor_types(tensor, fn, what)
  options = options or hdf5.DataSetOptions()
  local chunks = options:_chunksFor(sizes, fn, what)
  make_parents(self, parts, fn)
  local kind = kind_at(self, rel)
  if kind == 'dataset' then
    L.check(C.H5Ldelete(self._id, rel, L.P_DEFAULT), fn, 'H5Ldelete', 'replacing ' .. what)
  elseif kind then
    L.fail(fn, '%s is a %s; write the tensor under a new name', what, kind)
  end
  local space
  if #sizes == 0 then
    space = C.H5Screate(L.S_SCALAR)
  else
    local maxdims = L.toHsize(sizes)
    if chunks then maxdims[0] = L.UNLIMITED end  -- chunked data can grow along dim 1 (append), as in torch-hdf5
    space = C.H5Screate_simple(#sizes, L.toHsize(sizes), maxdims)
  end
  L.check(space, fn, 'H5Screate_simple', 'for ' .. what)
  local plist = options:_creationList(chunks, fn, what)
  local id = C.H5Dcreate2(self._id, rel, fileType, space, L.P_DEFAULT, plist, L.P_DEFAULT)
  C.H5Pclose(plist)
  C.H5Sclose(space)
  L.check(id, fn, 'H5Dcreate2', 'creating ' .. what)
  local src = tensor:contiguous()
  local status = src:nElement() > 0 and C.H5Dwrite(id, memType, L.S_ALL, L.S_ALL, L.P_DEFAULT, src:data()) or 0
  C.H5Dclose(id)
  L.check(status, fn, 'H5Dwrite', 'writing ' .. what)
end

local function write_or_append(self, method, datapath, data, options)
  local fn = 'HDF5Group:' .. method
  check_writable(self, fn)
  if options ~= nil and torch.typename(options) ~= 'hdf5.DataSetOptions' then
    L.fail(fn, 'options must be an hdf5.DataSetOptions, got %s', torch.typename(options) or type(options))
  end
  local parts = components(datapath, fn)
  if type(data) == 'table' and not torch.isTensor(data) then
    for k, v in pairs(data) do
      local sub = {}
      for i, c in ipairs(parts) do sub[i] = c end
      sub[#sub + 1] = tostring(k)
      write_or_append(self, method, sub, v, options)
    end
    return
  end
  if not torch.isTensor(data) then
    L.fail(fn, 'can write tensors and tables of tensors, got %s', torch.typename(data) or type(data))
  end
  if #parts == 0 then
    L.fail(fn, "a tensor needs a name: write it at a path such as '/x' (only a table can go at '/')")
  end
  if method == 'append' then return self:_append(parts, data, options, fn) end
  write_tensor(self, parts, data, options, fn)
end

--- group:write(path, data[, options]): writes a tensor (or a table of them, as a group) at `path`
--- below the group, creating the groups on the way; `options` is an hdf5.DataSetOptions.
--- Example: local f = hdf5.open('gw.h5', 'w'); f:read('/'):write('a/b', torch.ones(2)); f:close()
function HDF5Group:write(datapath, data, options)
  write_or_append(self, 'write', datapath, data, options)
end

--- group:append(path, tensor[, options]): adds the tensor's rows after those of the dataset at
--- `path` (along dimension 1); a dataset written with chunked options can grow. No dataset there
--- yet: like write.
--- Example: local f = hdf5.open('ga.h5', 'w'); local o = hdf5.DataSetOptions():setChunked(4, 2); f:write('/x', torch.ones(2, 2), o); f:append('/x', torch.zeros(3, 2)); print(f:read('/x'):dataspaceSize()[1]); f:close()
function HDF5Group:append(datapath, tensor, options)
  write_or_append(self, 'append', datapath, tensor, options)
end

-- Grows the dataset at parts along dimension 1 and writes the tensor into the new rows.
function HDF5Group:_append(parts, tensor, options, fn)
  local kind, rel = walk(self, parts, fn)
  if kind == nil then return write_tensor(self, parts, tensor, options, fn) end
  local what = "'" .. join(self._path, rel) .. "' in '" .. self._state.name .. "'"
  if kind ~= 'dataset' then L.fail(fn, '%s is a %s, not a dataset', what, kind) end
  local _, memType, tsizes = tensor_types(tensor, fn, what)
  local ds = open_child(self, rel, kind, fn)
  local ok, err = pcall(function()
    local space = L.check(C.H5Dget_space(ds._id), fn, 'H5Dget_space', 'for ' .. what)
    local size, maxSize = L.dims(space, fn, 'for ' .. what)
    C.H5Sclose(space)
    if #tsizes ~= #size or #size == 0 then
      L.fail(fn, 'cannot append a %d-dimensional tensor to %s, which has %d dimensions', #tsizes, what, #size)
    end
    for k = 2, #size do
      if tsizes[k] ~= size[k] then
        L.fail(fn, 'cannot append a tensor of size %s to %s of size %s: the sizes after the first must match',
          table.concat(tsizes, 'x'), what, table.concat(size, 'x'))
      end
    end
    if maxSize[1] < size[1] + tsizes[1] then
      L.fail(fn, '%s cannot grow (its maximum size is %d along dimension 1); write it with '
        .. 'hdf5.DataSetOptions():setChunked(...) to append', what, maxSize[1])
    end
    local newSize = { size[1] + tsizes[1], unpack(size, 2) }
    L.check(C.H5Dset_extent(ds._id, L.toHsize(newSize)), fn, 'H5Dset_extent', 'growing ' .. what)
    if tsizes[1] == 0 then return end
    space = L.check(C.H5Dget_space(ds._id), fn, 'H5Dget_space', 'for ' .. what)
    local start = { size[1] }
    for k = 2, #size do start[k] = 0 end
    local mem = C.H5Screate_simple(#tsizes, L.toHsize(tsizes), nil)
    local src = tensor:contiguous()
    local status = C.H5Sselect_hyperslab(space, L.S_SELECT_SET, L.toHsize(start), nil, L.toHsize(tsizes), nil)
    if status >= 0 then status = C.H5Dwrite(ds._id, memType, mem, space, L.P_DEFAULT, src:data()) end
    C.H5Sclose(mem)
    C.H5Sclose(space)
    L.check(status, fn, 'H5Dwrite', 'appending to ' .. what)
  end)
  ds:close()
  if not ok then error(err, 0) end
end

return HDF5Group
