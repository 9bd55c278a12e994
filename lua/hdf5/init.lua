-- The hdf5 package (require 'hdf5'): torch-hdf5's API (deepmind/torch-hdf5) for Tocha, so that
-- Torch7 scripts that keep their data in HDF5 files run unmodified. Like torch-hdf5, it sets the
-- global `hdf5` and calls the HDF5 C library through the LuaJIT FFI. Files: lib.lua (the library,
-- types), handles.lua (open objects), file.lua (hdf5.HDF5File), group.lua (hdf5.HDF5Group),
-- dataset.lua (hdf5.HDF5DataSet), options.lua (hdf5.DataSetOptions).
local torch = require 'torch'

if rawget(_G, 'hdf5') and rawget(_G, 'hdf5')._tocha then return rawget(_G, 'hdf5') end

-- torch.class('hdf5.X') puts the classes in the global table, so it exists before they load.
hdf5 = { _tocha = true }
local ok, L = pcall(require, 'hdf5.lib')
-- A failed require (no libhdf5) leaves no "loop or previous error" mark: a later one says why again.
if not ok then
  hdf5 = nil
  package.loaded['hdf5.lib'], package.loaded.hdf5 = nil, nil
  error(L, 2)
end

hdf5.version = L.version
require 'hdf5.options'
require 'hdf5.dataset'
require 'hdf5.group'
require 'hdf5.file'

--- hdf5.open(filename[, mode]): opens or creates an HDF5 file (hdf5.HDF5File.open): mode 'r',
--- 'r+', 'w', 'w-' or 'a' (the default: read/write, created if missing).
--- Example: local f = hdf5.open('data.h5', 'w'); f:write('/train/x', torch.rand(4, 3)); f:close(); f = hdf5.open('data.h5', 'r'); print(f:read('/train/x'):all():size()); f:close()
function hdf5.open(filename, mode)
  return hdf5.HDF5File.open(filename, mode)
end

return hdf5
