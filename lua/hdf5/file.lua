-- hdf5.HDF5File: an open HDF5 file (hdf5.open(path, mode)): the access modes of torch-hdf5
-- ('r', 'r+', 'w', 'w-', 'a'), and read/write/append/all by data path through the root group.
local torch = require 'torch'
local paths = require 'paths'
local L = require 'hdf5.lib'
local H = require 'hdf5.handles'
require 'hdf5.group'  -- defines hdf5.HDF5Group
local C = L.C

local HDF5File = torch.class('hdf5.HDF5File')

-- Made by hdf5.open: (absolute file name, file id, mode).
function HDF5File:__init(filename, id, mode)
  local state, keep = H.newState(id, filename, mode)
  self._filename, self._state, self._keep = filename, state, keep
  local root = C.H5Gopen2(id, '/', L.P_DEFAULT)
  if root < 0 then
    H.closeAll(state)
    L.check(root, 'open', 'H5Gopen2', "opening the root group of '" .. filename .. "'")
  end
  H.register(state, root, 'group')
  self._rootGroup = hdf5.HDF5Group(state, root, '/', keep)
end

--- file:filename(): the file's absolute path.
--- Example: local f = hdf5.open('name.h5', 'w'); print(f:filename()); f:close()
function HDF5File:filename()
  return self._filename
end

function HDF5File:__tostring()
  return '[HDF5File: ' .. self._filename .. (self._state.closed and ' (closed)' or '') .. ']'
end

--- file:close(): closes the file and every group and dataset read from it. Closing twice is fine.
--- Example: local f = hdf5.open('fclose.h5', 'w'); f:close(); f:close()
function HDF5File:close()
  H.closeAll(self._state)
end

--- file:write(path, data[, options]): writes a tensor at `path` ('/a/b/x'), creating the groups on
--- the way and replacing a dataset already there; a table of tensors (nested tables too) becomes a
--- group; `options` is an hdf5.DataSetOptions (chunking, compression).
--- Example: local f = hdf5.open('w.h5', 'w'); f:write('/train/x', torch.rand(4, 3)); f:write('/', {y = torch.ones(2)}); f:close()
function HDF5File:write(datapath, data, options)
  self._rootGroup:write(datapath, data, options)
end

--- file:append(path, tensor[, options]): adds rows (dimension 1) to a dataset written with chunked
--- options; no dataset there yet: like write.
--- Example: local f = hdf5.open('app.h5', 'w'); f:append('/x', torch.ones(2, 3), hdf5.DataSetOptions():setChunked(8, 3)); f:append('/x', torch.ones(1, 3)); print(f:read('/x'):dataspaceSize()[1]); f:close()
function HDF5File:append(datapath, data, options)
  self._rootGroup:append(datapath, data, options)
end

--- file:read([path]): the dataset (hdf5.HDF5DataSet) or group (hdf5.HDF5Group) at `path`; no
--- path or '/': the root group. Read the data with :all() or :partial(...).
--- Example: local f = hdf5.open('r.h5', 'w'); f:write('/x', torch.ones(2, 2)); print(f:read('/x'):all()); f:close()
function HDF5File:read(datapath)
  if datapath ~= nil and type(datapath) ~= 'string' and type(datapath) ~= 'table' then
    L.fail('HDF5File:read', 'the data path must be a string, got %s', type(datapath))
  end
  return self._rootGroup:read(datapath or '/')
end

--- file:all(): the whole file as nested Lua tables of tensors.
--- Example: local f = hdf5.open('every.h5', 'w'); f:write('/a/x', torch.ones(2)); print(f:all().a.x); f:close()
function HDF5File:all()
  return self._rootGroup:all()
end

local MODES = { r = true, ['r+'] = true, w = true, ['w-'] = true, a = true }

--- hdf5.HDF5File.open(filename[, mode]): opens or creates an HDF5 file; mode 'r' (read only, must
--- exist), 'r+' (read/write, must exist), 'w' (create, truncating), 'w-' (create, fail if it
--- exists) or 'a' (default: 'r+' if it exists, else 'w').
--- Example: local f = hdf5.HDF5File.open('o.h5', 'w'); f:close()
function HDF5File.open(filename, mode)
  local fn = 'open'
  H.drain()
  if type(filename) ~= 'string' or filename == '' then
    L.fail(fn, 'the file name must be a non-empty string, got %s', tostring(filename))
  end
  if mode ~= nil and not MODES[mode] then
    L.fail(fn, "unknown mode %s for '%s': use 'r', 'r+', 'w', 'w-' or 'a'", tostring(mode), filename)
  end
  if filename:sub(1, 2) == '~/' then filename = (os.getenv('HOME') or '') .. filename:sub(2) end
  filename = paths.concat(filename)
  local dir = paths.dirname(filename)
  if not paths.dirp(dir) then L.fail(fn, "no such directory '%s' (for '%s')", dir, filename) end
  local exists = paths.filep(filename) or paths.dirp(filename)
  if mode == nil or mode == 'a' then mode = exists and 'r+' or 'w' end
  local id
  if mode == 'r' or mode == 'r+' then
    if not exists then L.fail(fn, "no such file '%s' (mode '%s')", filename, mode) end
    if C.H5Fis_hdf5(filename) <= 0 then
      C.H5Eclear2(L.E_DEFAULT)
      L.fail(fn, "'%s' is not an HDF5 file", filename)
    end
    id = C.H5Fopen(filename, mode == 'r' and L.ACC_RDONLY or L.ACC_RDWR, L.P_DEFAULT)
    L.check(id, fn, 'H5Fopen', "opening '" .. filename .. "' (mode '" .. mode .. "')")
  else
    if mode == 'w-' and exists then L.fail(fn, "'%s' already exists (mode 'w-')", filename) end
    id = C.H5Fcreate(filename, mode == 'w' and L.ACC_TRUNC or L.ACC_EXCL, L.P_DEFAULT, L.P_DEFAULT)
    L.check(id, fn, 'H5Fcreate', "creating '" .. filename .. "' (mode '" .. mode .. "')")
  end
  return hdf5.HDF5File(filename, id, mode)
end

return HDF5File
