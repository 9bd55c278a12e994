-- PyTorch checkpoints (files of torch.save): reading the zip format (PyTorch >= 1.6) and the legacy
-- format (_use_new_zipfile_serialization=False), writing the zip format PyTorch 1.13 reads. The
-- pieces: pt_zip.lua (the archive), pt_unpickle.lua (the safe unpickler), pt_pickle.lua (the
-- pickler); this file maps storages to tensors and back.
--
-- Note [PyTorch storages]: a checkpoint holds each storage once (archive/data/<key>, or a raw
-- block in a legacy file) and every tensor as (storage, offset, sizes, strides). Each storage
-- becomes one 1D base tensor and every tensor a view of it, so tensors sharing a storage in
-- PyTorch share memory in Tocha; in the other direction every Tocha storage is written whole,
-- once, and each tensor as a view of it. Dtypes Tocha lacks (complex, quantized) are errors
-- naming them.
local ffi = require 'ffi'
local bit = require 'bit'
local lib = require 'torch.lib'
local types = require 'torch.types'
local S = require 'torch.serialize_stream'
local Z = require 'torch.pt_zip'
local U = require 'torch.pt_unpickle'
local P = require 'torch.pt_pickle'
local torch = require 'torch.env'
local D = lib.dtype

local M = {}

-- PyTorch dtype name -> Tocha dtype, element size in the file.
local dtypes = {
  float32 = { dtype = D.f32, size = 4 }, float64 = { dtype = D.f64, size = 8 },
  float16 = { dtype = D.f16, size = 2 }, bfloat16 = { dtype = D.bf16, size = 2 },
  int64 = { dtype = D.i64, size = 8 }, int32 = { dtype = D.i32, size = 4 },
  int16 = { dtype = D.i16, size = 2 }, int8 = { dtype = D.i8, size = 1 },
  uint8 = { dtype = D.u8, size = 1 }, bool = { dtype = D.bool, size = 1 },
}
-- Tocha dtype -> PyTorch storage type.
local storage_types = { [D.f32] = 'FloatStorage', [D.f64] = 'DoubleStorage', [D.f16] = 'HalfStorage',
                        [D.bf16] = 'BFloat16Storage', [D.i64] = 'LongStorage', [D.i32] = 'IntStorage',
                        [D.i16] = 'ShortStorage', [D.i8] = 'CharStorage', [D.u8] = 'ByteStorage',
                        [D.bool] = 'BoolStorage' }

-- The legacy format starts with the pickle of this number (torch/serialization.py MAGIC_NUMBER)
-- in the protocol torch.save was given (pickle_protocol, 2 by default): protocols 4 and 5 put it
-- in a 13-byte FRAME. Such files were not recognized before (only protocol 2's head was).
local MAGIC = '\138\10\108\252\156\70\249\32\106\168\80\25\46'
M.LEGACY_HEADS = { '\128\2' .. MAGIC, '\128\3' .. MAGIC, '\128\4\149\13\0\0\0\0\0\0\0' .. MAGIC,
                   '\128\5\149\13\0\0\0\0\0\0\0' .. MAGIC }
M.LEGACY_HEAD = M.LEGACY_HEADS[1]
local LEGACY_PROTOCOL = 1001
local LONGEST_HEAD = #M.LEGACY_HEADS[3]

-- The legacy head that `head` starts with (or, for a head of at least 16 bytes cut short of it,
-- starts like: torch.load's format detection reads 16 bytes).
local function legacy_head(head)
  for _, h in ipairs(M.LEGACY_HEADS) do
    local n = math.min(#head, #h)
    if n >= math.min(16, #h) and head:sub(1, n) == h:sub(1, n) then return h end
  end
end

--- 'zip', 'legacy' or nil, from a file's first bytes.
function M.detect(head)
  if head:sub(1, 4) == 'PK\3\4' then return 'zip' end
  if legacy_head(head) then return 'legacy' end
end

-- ---- reading --------------------------------------------------------------------------------------

local function swap_bytes(s, size)
  if size == 1 then return s end
  local n = #s
  local b = ffi.new('uint8_t[?]', n)
  ffi.copy(b, s, n)
  for i = 0, n - size, size do
    for j = 0, size / 2 - 1 do b[i + j], b[i + size - 1 - j] = b[i + size - 1 - j], b[i + j] end
  end
  return ffi.string(b, n)
end

-- A 1D tensor of the storage's dtype from a string of its file bytes.
local function base_from_bytes(s, st, op)
  local ms = S.borrow_string(s, op)
  local info = st.info
  local t = ms:read_blob(0, #s, #s, info.dtype, false, false, 0)
  ms:free()
  return t
end

-- Validates a persistent id ('storage', storage type, key, location, numel[, view metadata]).
local function storage_id(u, pid)
  if getmetatable(pid) ~= U.Tuple or pid.n < 5 or pid[1] ~= 'storage' then
    u:fail("a persistent id is not a tuple ('storage', type, key, location, size)")
  end
  local ty, key, numel = pid[2], pid[3], pid[5]
  if getmetatable(ty) ~= U.Global or type(ty.value) ~= 'string' or ty.value == 'Tensor' or ty.value == 'Parameter' then
    u:fail('a storage of type %s', getmetatable(ty) == U.Global and ty.name or tostring(ty))
  end
  if type(key) == 'number' then key = string.format('%d', key) end
  if type(key) ~= 'string' then u:fail('a storage key %s', tostring(key)) end
  if type(numel) ~= 'number' or numel < 0 or numel ~= math.floor(numel) then
    u:fail("storage '%s' has %s elements", key, tostring(numel))
  end
  local info = dtypes[ty.value]
  if not info then
    u:fail("storage '%s' holds %s values (%s), a dtype Tocha does not have", key, ty.value, ty.name)
  end
  return ty.value, key, numel, info, pid
end

local function context(stream, op, storages, load_base)
  local ctx = {}
  function ctx.fail(fmt, ...) stream:fail(fmt, ...) end
  function ctx.persistent_load(u, pid)
    if not load_base then u:fail('a storage where none may appear') end
    local dtype, key, numel, info, raw = storage_id(u, pid)
    local st = storages[key]
    if st then
      if st.dtype ~= dtype or st.numel ~= numel then
        u:fail("storage '%s' is used as %s[%d] and as %s[%d]", key, st.dtype, st.numel, dtype, numel)
      end
    else
      st = { is_storage = true, key = key, dtype = dtype, numel = numel, info = info }
      storages[key] = st
      storages[#storages + 1] = st
    end
    local view = raw.n >= 6 and raw[6]
    if getmetatable(view) == U.Tuple then  -- legacy: (view key, offset, size) inside the root storage
      local off, size = view[2], view[3]
      if type(off) ~= 'number' or type(size) ~= 'number' or off < 0 or off + size > numel then
        u:fail("storage view of '%s' at %s+%s lies outside it", key, tostring(off), tostring(size))
      end
      return { is_storage = true, root = st, shift = off, numel = size }
    end
    return st
  end
  function ctx.tensor(st, offset, sizes, strides)
    local root, shift = st.root or st, st.shift or 0
    if not root.base then root.base = load_base(root) end
    if #sizes ~= #strides then stream:fail('a tensor with %d sizes and %d strides', #sizes, #strides) end
    local ok, t = pcall(S.view, root.base, offset + shift, sizes, strides, "a tensor of storage '" .. root.key .. "'", op)
    if not ok then stream:fail('%s', (tostring(t):gsub('^.-%[' .. op .. '%] ', ''))) end
    return t
  end
  function ctx.storage_value(st)
    local root = st.root or st
    if not root.base then root.base = load_base(root) end
    return S.storage_handle(root.base, st.shift or 0, st.numel)
  end
  return ctx
end

local function read_zip(stream, opts, op)
  local zip = Z.open(stream)
  local pkl
  for _, name in ipairs(zip.names) do
    local prefix = name:match('^([^/]*/?)data%.pkl$')
    if prefix then pkl = prefix break end
  end
  if not pkl then
    local hint = zip.entries['constants.pkl'] and ' (a TorchScript archive?)' or ''
    stream:fail('a ZIP archive without data.pkl: not a PyTorch checkpoint%s', hint)
  end
  local prefix = pkl
  if zip.entries[prefix .. 'code/'] or zip.entries[prefix .. 'constants.pkl'] then
    stream:fail('a TorchScript archive (torch.jit.save): load it in PyTorch and torch.save its state_dict()')
  end
  local big = false
  local bo = zip.entries[prefix .. 'byteorder']
  if bo then
    local s = Z.read(zip, bo)
    if s ~= 'little' and s ~= 'big' then stream:fail("archive byteorder is '%s' (expected 'little' or 'big')", s) end
    big = s == 'big'
  end
  local storages = {}
  local function load_base(st)
    local e = zip.entries[prefix .. 'data/' .. st.key]
    if not e then stream:fail("storage '%s' is missing from the archive (no %sdata/%s)", st.key, prefix, st.key) end
    local nbytes = st.numel * st.info.size
    if e.usize ~= nbytes then
      stream:fail("storage '%s' holds %d bytes but %d %s values need %d", st.key, e.usize, st.numel, st.dtype, nbytes)
    end
    local at = Z.data_offset(zip, e)
    if e.method == 0 and not big then
      return stream:read_blob(at, nbytes, nbytes, st.info.dtype, opts.mmap, opts.verify ~= false, e.crc)
    end
    local s = Z.read(zip, e)
    if big then s = swap_bytes(s, st.info.size) end
    return base_from_bytes(s, st, op)
  end
  local data = Z.read(zip, zip.entries[prefix .. 'data.pkl'])
  return U.load(U.string_source(data), context(stream, op, storages, load_base), prefix .. 'data.pkl')
end

local function read_legacy(stream, opts, op, head)
  stream:seek(#legacy_head(head))
  local storages = {}
  local function one(what, ctx)
    local src = U.stream_source(stream)
    local v = U.load(src, ctx or context(stream, op, storages, nil), what)
    stream:seek(src:tell())
    return v
  end
  local protocol = one('protocol version')
  if protocol ~= LEGACY_PROTOCOL then stream:fail('legacy protocol version %s (expected 1001)', tostring(protocol)) end
  local sys = one('sys_info')
  if type(sys) ~= 'table' then stream:fail('sys_info is not a dict') end
  if sys.little_endian == false then stream:fail('a big-endian legacy checkpoint (not supported)') end
  -- Storages are allocated as the object pickle names them and filled from the blocks after it.
  -- Every storage's data follows the object in the file, so together they fit in it: checked
  -- before allocating, or a small hostile file naming many storages of its own size each made
  -- the reader allocate that size many times over.
  local declared = 0
  local function alloc(st)
    local nbytes = st.numel * st.info.size
    if nbytes > stream:size() then
      stream:fail("storage '%s' declares %d bytes, more than the %d-byte file", st.key, nbytes, stream:size())
    end
    declared = declared + nbytes
    if declared > stream:size() then
      stream:fail('the storages declare %d bytes or more, more than the %d-byte file', declared, stream:size())
    end
    local t = lib.C.tocha_tensor_empty(1, ffi.new('int64_t[1]', st.numel), st.info.dtype, 0, 0)
    if t == nil then lib.raise() end
    return lib.wrap(t)
  end
  local obj = one('object', context(stream, op, storages, alloc))
  local keys = one('storage keys')
  if type(keys) ~= 'table' then stream:fail('the storage key list is not a list') end
  for i, key in ipairs(keys) do
    local st = storages[key]
    if not st then stream:fail("storage key '%s' is not used by the object", tostring(key)) end
    local count = ffi.cast('int64_t *', ffi.cast('const char *', stream:read_string(8, 'a storage size')))[0]
    if count ~= st.numel then
      stream:fail("storage '%s' (#%d) holds %s elements where %d were declared", key, i, tostring(count), st.numel)
    end
    if st.numel * st.info.size > stream:size() - stream:tell() then
      stream:fail("storage '%s' needs %d bytes but only %d remain (the file is truncated)", key,
                  st.numel * st.info.size, stream:size() - stream:tell())
    end
    if not st.base then st.base = alloc(st) end
    if st.numel > 0 then
      local got = stream:read_tensor(st.base, S.native_kind[st.info.dtype], 0)
      if got ~= st.numel then stream:fail("storage '%s' is truncated", key) end
    end
  end
  local listed = {}
  for _, key in ipairs(keys) do listed[key] = true end
  for _, st in ipairs(storages) do
    if not listed[st.key] then stream:fail("storage '%s' has no data in the file", st.key) end
  end
  return obj
end

--- Reads a PyTorch checkpoint from stream (the zip or the legacy format). opts.mmap maps stored
--- little-endian storages; opts.verify=false skips their CRC check.
function M.read(stream, opts, op)
  stream:seek(0)
  local head = stream:read_string(math.min(stream:size(), LONGEST_HEAD), 'the file header')
  local kind = M.detect(head)
  if kind == 'zip' then return read_zip(stream, opts or {}, op) end
  if kind == 'legacy' then
    if #head < #legacy_head(head) then stream:fail('truncated in its header (%d bytes)', #head) end
    return read_legacy(stream, opts or {}, op, head)
  end
  stream:fail('not a PyTorch checkpoint (neither a ZIP archive nor the legacy pickle format)')
end

-- ---- writing --------------------------------------------------------------------------------------

local intptr_t = ffi.typeof('intptr_t')
local function address(p) return tonumber(ffi.cast(intptr_t, p)) end

--- Writes obj (tables of tensors, numbers, strings, booleans) to stream as a PyTorch zip checkpoint.
function M.write(stream, obj, opts, op)
  local storages, by_address = {}, {}
  local hooks = {}
  function hooks.identity(t) return address(t.p) end
  function hooks.tensor(t, pickler)
    local p = t.p
    if p == lib.FREED then pickler:fail('a freed tensor') end
    local key = address(p.storage)
    local st = by_address[key]
    if st then
      if st.dtype ~= p.dtype then pickler:fail('a storage is shared by tensors of different types') end
    else
      st = { key = tostring(#storages), dtype = p.dtype, tensor = t, nbytes = tonumber(p.storage.nbytes) }
      by_address[key] = st
      storages[#storages + 1] = st
    end
    local sizes, strides = {}, {}
    for i = 0, p.ndim - 1 do
      sizes[i + 1] = tonumber(p.size[i])
      strides[i + 1] = tonumber(p.stride[i])
    end
    return { storage_type = storage_types[p.dtype], key = st.key, numel = math.floor(st.nbytes / p.elsize),
             offset = tonumber(p.storage_offset), sizes = sizes, strides = strides,
             requires_grad = bit.band(p.flags, 2) ~= 0 }
  end
  local pkl = P.dump(obj, hooks, op)
  local prefix = (opts and opts.archiveName or 'archive') .. '/'
  local zw = Z.writer(stream)
  zw:add(prefix .. 'data.pkl', pkl)
  zw:add(prefix .. 'byteorder', 'little')
  for _, st in ipairs(storages) do
    local e = zw:begin(prefix .. 'data/' .. st.key, st.nbytes)
    local nbytes, _, crc = stream:write_blob(st.tensor.p, 1)
    if nbytes ~= st.nbytes then stream:fail('storage %s changed size while being written', st.key) end
    zw:set_crc(e, crc)
  end
  zw:add(prefix .. 'version', '3\n')
  zw:finish()
end

-- ---- key order --------------------------------------------------------------------------------------

-- Note [Key order]: Lua tables have no order, PyTorch's state dicts do (registration order). A
-- table loaded from a dict or OrderedDict remembers its keys' order and class aside (U.info), and
-- torch.save(..., 'pytorch') writes it back the same way; other tables are written as dicts with
-- their keys sorted (numbers, then strings). pytorchKeys reads or sets that order.
torch.serialization = torch.serialization or {}

--- torch.serialization.pytorchKeys(t[, keys]): the keys of a table loaded from a PyTorch dict or
--- OrderedDict, in the file's order (nil for other tables). With keys (an array), records that
--- order and makes torch.save(path, t, 'pytorch') write t as an OrderedDict in it; returns t.
--- Example: local sd = torch.load('model.pth'); for _, k in ipairs(torch.serialization.pytorchKeys(sd)) do print(k) end
function torch.serialization.pytorchKeys(t, keys)
  if type(t) ~= 'table' then lib.fail('serialization.pytorchKeys', 'expected a table, got %s', types.describe(t)) end
  if keys == nil then
    local info = U.info[t]
    if not info then return nil end
    local out = {}
    for _, k in ipairs(info.keys) do if rawget(t, k) ~= nil then out[#out + 1] = k end end
    return out
  end
  if type(keys) ~= 'table' then
    lib.fail('serialization.pytorchKeys', 'keys must be an array, got %s', types.describe(keys))
  end
  local info = U.info[t] or { class = 'OrderedDict' }
  info.keys = {}
  for i, k in ipairs(keys) do info.keys[i] = k end
  U.info[t] = info
  return t
end

return M
