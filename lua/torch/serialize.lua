-- torch.save / torch.load / torch.serialize / torch.deserialize: choosing and detecting the format
-- (Tocha checkpoints by default, Torch7 .t7 binary and ascii, safetensors), options, and atomic
-- writes (DESIGN.md decision 11: files are safe by default; loading never runs code from a file).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local S = require 'torch.serialize_stream'
local N = require 'torch.serialize_native'
local native_write = require 'torch.serialize_native_write'
local native_read = require 'torch.serialize_native_read'
local t7 = require 'torch.t7'
local safetensors = require 'torch.safetensors'
-- PyTorch's checkpoints (lua/torch/pt_*.lua) load on first use: start-up never parses them.
local pytorch = setmetatable({}, { __index = function(t, k)
  local m = require 'torch.pt_checkpoint'
  setmetatable(t, { __index = m })
  return m[k]
end })
torch.serialization = torch.serialization or {}
--- torch.serialization.pytorchKeys(t[, keys]): the key order of a table loaded from a PyTorch
--- checkpoint (or sets it for torch.save(path, t, 'pytorch')); loads lua/torch/pt_checkpoint.lua.
--- Example: torch.serialization.pytorchKeys({ b = 1, a = 2 }, { 'b', 'a' })
function torch.serialization.pytorchKeys(...)
  local _ = pytorch.detect  -- loads pt_checkpoint.lua, which replaces this function
  return torch.serialization.pytorchKeys(...)
end
local function pytorch_head(head)  -- a ZIP (PyTorch >= 1.6) or the legacy format's magic number
  return head:sub(1, 4) == 'PK\3\4' or head:byte(1) == 0x80 and pytorch.detect(head) ~= nil
end

-- Format names accepted by torch.save and torch.serialize. 'binary' is Torch7's name for its
-- default; Tocha's checkpoint format takes that role (torch.load reads both).
local save_formats = { tocha = 'tocha', binary = 'tocha', ['binary-t7'] = 't7', t7 = 't7', ascii = 'ascii',
                       safetensors = 'safetensors', pytorch = 'pytorch' }

local function save_format(op, format)
  local f = save_formats[format or 'tocha']
  if not f then
    lib.fail(op, "unknown format %s (expected 'tocha', 'binary-t7', 'ascii', 'safetensors' or 'pytorch')",
             tostring(format))
  end
  return f
end

-- torch.save(path, obj, format, referenced) (Torch7) or torch.save(path, obj[, format], opts).
local function save_options(format, opts)
  if type(format) == 'table' then format, opts = nil, format end
  if type(opts) == 'boolean' then opts = { referenced = opts } end
  opts = opts or {}
  return format or opts.format, opts
end

local function write_to(stream, obj, fmt, opts, op)
  if opts.allowCode and (fmt == 'tocha' or fmt == 'safetensors' or fmt == 'pytorch') then
    -- the option was silently ignored: the function was then refused as if it had not been given
    lib.fail(op, "allowCode applies to Torch7's formats only (format 'binary-t7' or 'ascii'); the %s format holds data, "
      .. 'not code', fmt)
  end
  if fmt == 'tocha' then
    native_write.write(stream, obj, op)
  elseif fmt == 'safetensors' then
    safetensors.write(stream, obj, opts.metadata, op)
  elseif fmt == 'pytorch' then
    pytorch.write(stream, obj, opts, op)
  else
    t7.write(stream, obj, { ascii = fmt == 'ascii', referenced = opts.referenced, allowCode = opts.allowCode })
  end
end

-- Runs f(stream, ...) and always releases the stream; an error discards an unfinished write.
local function with_stream(stream, commit, f, ...)
  local ok, a, b = pcall(f, stream, ...)
  if not ok then
    stream:free()
    error(a, 0)
  end
  if commit then stream:close() else stream:free() end
  return a, b
end

--- torch.save(path, obj[, format][, opts]): writes obj (tensors, storages, tables, numbers, strings,
--- booleans, torch.class objects, shared references and cycles). format: 'tocha' (default; also
--- 'binary'), 'binary-t7' or 'ascii' (Torch7 .t7), 'safetensors' (a table of tensors; opts.metadata),
--- 'pytorch' (PyTorch's zip checkpoint, for torch.load in PyTorch: tables, tensors, numbers, strings).
--- The write is atomic: the file is replaced only once it is complete. Functions are refused.
--- Example: local p = os.tmpname(); torch.save(p, {w = torch.ones(2), step = 3}); os.remove(p)
function torch.save(path, obj, format, opts)
  local fmt
  format, opts = save_options(format, opts)
  fmt = save_format('save', format)
  local stream = S.open_file(path, 'w', 'save')
  with_stream(stream, true, write_to, obj, fmt, opts, 'save')
end

-- ---- loading ---------------------------------------------------------------------------------------

local u64p, i32p = ffi.typeof('uint64_t *'), ffi.typeof('int32_t *')

-- Which format a stream holds, from its first bytes.
local function detect(stream)
  local size = stream:size()
  if size == 0 then stream:fail('empty file') end
  stream:seek(0)
  local head = stream:read_string(math.min(size, 16))
  stream:seek(0)
  if head:sub(1, 8) == N.MAGIC then return 'tocha' end
  if pytorch_head(head) then return 'pytorch' end
  if #head >= 9 and head:byte(9) == 123 then  -- '{': a safetensors JSON header
    local n = tonumber(ffi.cast(u64p, head)[0])
    if n >= 2 and n <= size - 8 then return 'safetensors' end
  end
  if #head >= 4 then
    local tag = ffi.cast(i32p, head)[0]
    if tag >= 0 and tag <= 8 then return 't7' end
  end
  if head:match('^%s*%-?%d+%s') then return 'ascii' end
  local hex = head:sub(1, 8):gsub('.', function(c) return string.format('%02x', c:byte()) end)
  stream:fail('not a Tocha checkpoint, a Torch7 .t7 file, a safetensors file or a PyTorch checkpoint '
              .. '(it starts with bytes %s)', hex)
end

-- torch.load(path[, opts]) or Torch7's torch.load(path, mode[, referenced]).
local modes = { binary = {}, ascii = { format = 'ascii' }, b32 = { format = 't7', longSize = 4 },
                b64 = { format = 't7', longSize = 8 } }
local function load_options(op, a, b)
  if a == nil then return { referenced = b } end
  if type(a) == 'table' then return a end
  local m = modes[a]
  if not m then lib.fail(op, "expected an options table or a mode ('binary', 'ascii', 'b32', 'b64'), got %s", tostring(a)) end
  return { format = m.format, longSize = m.longSize, referenced = b }
end

local function read_from(stream, opts, op)
  local fmt = opts.format or detect(stream)
  if fmt == 'binary-t7' then fmt = 't7' end
  if fmt == 'tocha' then return native_read.read(stream, opts, op) end
  if fmt == 'safetensors' then return safetensors.read(stream, opts, op) end
  if fmt == 'pytorch' then return pytorch.read(stream, opts, op) end
  if fmt == 't7' or fmt == 'ascii' then
    stream:seek(0)
    return t7.read(stream, { ascii = fmt == 'ascii', longSize = opts.longSize, referenced = opts.referenced,
                             allowCode = opts.allowCode })
  end
  lib.fail(op, "unknown format %s (expected 'tocha', 't7', 'ascii', 'safetensors' or 'pytorch')", tostring(fmt))
end

--- torch.load(path[, opts]): reads a file written by torch.save, by Torch7 (binary or ascii .t7),
--- a safetensors file (returns the tensors and the metadata) or PyTorch's torch.save (.pt/.pth, zip
--- or legacy; loaded safely like weights_only=True; verify=false skips its CRC-32 checks), detecting
--- the format. opts: mmap=true maps tensor data instead of reading it; allowCode=true lets .t7 files
--- load serialized functions; device='cpu' keeps tensors on the CPU; format forces a format.
--- Corrupt files give clear errors.
--- Example: local p = os.tmpname(); torch.save(p, {w = torch.ones(2)}); local t = torch.load(p); os.remove(p)
function torch.load(path, a, b)
  local opts = load_options('load', a, b)
  local stream = S.open_file(path, 'r', 'load')
  return with_stream(stream, false, read_from, opts, 'load')
end

-- ---- strings and storages ----------------------------------------------------------------------------

--- torch.serialize(obj[, format]): the bytes torch.save would write, as a string.
--- Example: #torch.serialize({w = torch.ones(2)})
function torch.serialize(obj, format, opts)
  format, opts = save_options(format, opts)
  local fmt = save_format('serialize', format)
  local stream = S.open_memory(nil, 'serialize')
  -- one value, as Torch7's (f:write(torch.serialize(x)) failed on a trailing nil)
  return (with_stream(stream, false, function(st)
    write_to(st, obj, fmt, opts, 'serialize')
    return st:contents()
  end))
end

--- torch.deserialize(str[, opts]): the object torch.serialize (or any supported format) encoded.
--- Example: torch.deserialize(torch.serialize({w = torch.ones(2)})).w
function torch.deserialize(str, a, b)
  if type(str) ~= 'string' then lib.fail('deserialize', 'expected a string, got %s', types.describe(str)) end
  local opts = load_options('deserialize', a, b)
  return with_stream(S.borrow_string(str, 'deserialize'), false, read_from, opts, 'deserialize')
end

--- torch.serializeToStorage(obj[, format]): torch.serialize's bytes in a ByteStorage.
--- Example: torch.serializeToStorage(torch.ones(2)):size()
function torch.serializeToStorage(obj, format, opts)
  return S.byte_storage(torch.serialize(obj, format, opts))
end

--- torch.deserializeFromStorage(storage[, opts]): the object a ByteStorage holds.
--- Example: torch.deserializeFromStorage(torch.serializeToStorage(torch.ones(2)))
function torch.deserializeFromStorage(storage, a, b)
  if not types.is_storage(storage) then
    lib.fail('deserializeFromStorage', 'expected a ByteStorage, got %s', types.describe(storage))
  end
  local opts = load_options('deserialize', a, b)
  return with_stream(S.borrow_storage(storage, 'deserialize'), false, read_from, opts, 'deserialize')
end

torch.saveobj = torch.save
torch.loadobj = torch.load

-- ---- safetensors -----------------------------------------------------------------------------------

--- torch.saveSafetensors(path, tensors[, metadata]): tensors by name (nested tables give dotted
--- names) in the safetensors format; metadata is a table of strings. Atomic like torch.save.
--- Example: local p = os.tmpname(); torch.saveSafetensors(p, {w = torch.ones(2)}, {note = 'example'}); os.remove(p)
-- Note [Safetensors options]: loadSafetensors(path, 'x') and loadSafetensors(path, {map = true})
-- were read as no options (a misspelt mmap silently read the data); PyTorch's safetensors
-- functions reject unknown keywords, so a non-table, an unknown key or a non-boolean mmap is an
-- error naming the function. saveSafetensors takes no options after the metadata.
function torch.saveSafetensors(path, tensors, metadata, extra)
  if extra ~= nil then
    lib.fail('saveSafetensors', 'takes no options after the metadata (path, tensors[, metadata]), got %s',
      types.describe(extra))
  end
  local stream = S.open_file(path, 'w', 'saveSafetensors')
  with_stream(stream, true, function(st) safetensors.write(st, tensors, metadata, 'saveSafetensors') end)
end

--- torch.loadSafetensors(path[, opts]): a table of tensors by name and the metadata table;
--- opts.mmap maps the data instead of reading it.
--- Example: local p = os.tmpname(); torch.saveSafetensors(p, {w = torch.ones(2)})
--- local tensors, metadata = torch.loadSafetensors(p); os.remove(p)
function torch.loadSafetensors(path, opts)
  if opts == nil then opts = {} end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    lib.fail('loadSafetensors', 'expected an options table ({mmap = true}), got %s', types.describe(opts))
  end
  for k, v in pairs(opts) do
    if k ~= 'mmap' then lib.fail('loadSafetensors', "unknown option '%s' (expected mmap)", tostring(k)) end
    if type(v) ~= 'boolean' then lib.fail('loadSafetensors', 'mmap must be a boolean, got %s', types.describe(v)) end
  end
  local stream = S.open_file(path, 'r', 'loadSafetensors')
  return with_stream(stream, false, function(st) return safetensors.read(st, opts, 'loadSafetensors') end)
end

return torch
