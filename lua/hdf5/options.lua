-- hdf5.DataSetOptions: how file:write stores a dataset (chunk sizes, DEFLATE compression), as in
-- torch-hdf5: hdf5.DataSetOptions():setChunked(32, 32):setDeflate().
local torch = require 'torch'
local L = require 'hdf5.lib'
local C = L.C

local DataSetOptions = torch.class('hdf5.DataSetOptions')

-- Note [Options hold Lua values]: torch-hdf5 kept an HDF5 property list in the options object and
-- changed its chunk sizes for each tensor written. Ours keeps the settings as Lua values and builds
-- a property list for each write (closed right after), so one options object serves tensors of any
-- size and nothing leaks when the object is dropped.

--- hdf5.DataSetOptions(): default storage (contiguous, uncompressed); chain setChunked/setDeflate.
--- Example: local opt = hdf5.DataSetOptions():setChunked(4, 4):setDeflate(); print(opt)
function DataSetOptions:__init()
  self._chunking = nil
  self._deflate = nil
end

--- options:setChunked(size1, size2, ...): store the dataset in chunks of this size (one size per
--- dimension; sizes larger than the data shrink to it). Needed for compression and for append.
--- Example: local opt = hdf5.DataSetOptions():setChunked(32, 32)
function DataSetOptions:setChunked(...)
  local sizes = { ... }
  if #sizes == 0 then L.fail('DataSetOptions:setChunked', 'give one chunk size per dimension, got none') end
  for k, s in ipairs(sizes) do
    if type(s) ~= 'number' or s < 1 or s % 1 ~= 0 then
      L.fail('DataSetOptions:setChunked', 'chunk size %d must be a positive integer, got %s', k, tostring(s))
    end
  end
  self._chunking = sizes
  return self
end

--- options:setDeflate([level]): compress the chunks with DEFLATE (zlib, gzip in h5py) at level
--- 0..9 (default 6). Needs setChunked.
--- Example: local opt = hdf5.DataSetOptions():setChunked(8):setDeflate(9)
function DataSetOptions:setDeflate(level)
  level = level == nil and 6 or level
  if type(level) ~= 'number' or level < 0 or level > 9 or level % 1 ~= 0 then
    L.fail('DataSetOptions:setDeflate', 'level must be an integer in 0..9, got %s', tostring(level))
  end
  if not L.deflateAvailable() then
    L.fail('DataSetOptions:setDeflate', 'this HDF5 library was built without the DEFLATE filter')
  end
  self._deflate = level
  return self
end

--- options:close(): kept for torch-hdf5 scripts; there is nothing to free (Note [Options hold Lua values]).
--- Example: hdf5.DataSetOptions():close()
function DataSetOptions:close()
end

function DataSetOptions:__tostring()
  return '[DataSetOptions: chunking=' .. (self._chunking and table.concat(self._chunking, 'x') or 'none')
    .. (self._deflate and (' deflate=' .. self._deflate) or '') .. ']'
end

-- The chunk sizes for a tensor of `sizes` (each at most the data's size, at least 1), or nil.
function DataSetOptions:_chunksFor(sizes, fn, what)
  if not self._chunking then
    if self._deflate then
      L.fail(fn, 'DEFLATE needs chunked storage: add :setChunked(...) to the options for %s', what)
    end
    return nil
  end
  if #self._chunking ~= #sizes then
    L.fail(fn, 'the chunk size has %d dimensions but the data for %s has %d', #self._chunking, what, #sizes)
  end
  local chunks = {}
  for k, s in ipairs(self._chunking) do chunks[k] = math.max(1, math.min(s, sizes[k])) end
  return chunks
end

-- A dataset-creation property list for `chunks` (nil: contiguous) and the deflate level; the
-- caller closes it with H5Pclose.
function DataSetOptions:_creationList(chunks, fn, what)
  local plist = L.check(C.H5Pcreate(C.H5P_CLS_DATASET_CREATE_ID_g), fn, 'H5Pcreate', 'for ' .. what)
  local ok, err = pcall(function()
    if chunks then
      L.check(C.H5Pset_chunk(plist, #chunks, L.toHsize(chunks)), fn, 'H5Pset_chunk', 'for ' .. what)
    end
    if self._deflate then
      L.check(C.H5Pset_deflate(plist, self._deflate), fn, 'H5Pset_deflate', 'for ' .. what)
    end
  end)
  if not ok then
    C.H5Pclose(plist)
    error(err, 0)
  end
  return plist
end

return DataSetOptions
