-- File helpers of the readers: whole files (gzip or not) as ByteTensors or strings, directory
-- listings, and finding a dataset file that may or may not carry a .gz suffix.
local ffi = require 'ffi'
local lib = require 'torch.lib'
local util = require 'data.util'
local C = lib.C

local files = {}

local gz_out, len_out = ffi.new('int[1]'), ffi.new('int64_t[1]')

--- files.bytes(path): the file's bytes (decompressed if gzip) as a 1D ByteTensor.
function files.bytes(path)
  if type(path) ~= 'string' then util.fail('data', 'expected a file name, got %s', type(path)) end
  return lib.wrap(C.tocha_data_read_file(path, gz_out))
end

--- files.text(path): the file's contents (decompressed if gzip) as a Lua string.
function files.text(path)
  local t = files.bytes(path)
  local s = t:nElement() > 0 and ffi.string(t:data(), t:nElement()) or ''
  t:free()
  return s
end

--- files.list(dir): sorted entries of dir: a list of {name=, dir=true|false}.
function files.list(dir)
  local p = C.tocha_data_list_dir(dir, len_out)
  if p == nil then lib.raise() end
  local s = ffi.string(p, len_out[0])
  local out = {}
  for kind, name in s:gmatch('(.)([^%z]*)%z') do out[#out + 1] = { name = name, dir = kind == 'd' } end
  return out
end

--- files.exists(path): whether path can be opened for reading.
function files.exists(path)
  local f = io.open(path, 'rb')
  if f then f:close() return true end
  return false
end

--- files.find(dir, name, op): dir/name or dir/name.gz, whichever exists; an error listing both
--- otherwise.
function files.find(dir, name, op)
  for _, candidate in ipairs({ dir .. '/' .. name, dir .. '/' .. name .. '.gz' }) do
    if files.exists(candidate) then return candidate end
  end
  util.fail(op, 'missing file: neither %s/%s nor %s/%s.gz exists', dir, name, dir, name)
end

return files
