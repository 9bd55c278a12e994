-- The safetensors format (https://github.com/huggingface/safetensors): u64 header length, a JSON
-- header {name: {dtype, shape, data_offsets}, "__metadata__": {string: string}}, then raw
-- little-endian row-major data. Names are PyTorch-style dotted paths ("features.0.weight").
--
-- Note [State dicts]: nn will give modules stateDict() (a flat table of tensors by dotted name,
-- PyTorch's naming) and loadStateDict(tbl); torch.saveSafetensors/loadSafetensors move those
-- tables to and from files, so weights exported from PyTorch load into an equivalent Tocha model.
local ffi = require 'ffi'
local lib = require 'torch.lib'
local types = require 'torch.types'
local common = require 'torch.serialize_common'
local S = require 'torch.serialize_stream'
local J = require 'torch.safetensors_json'
local D = lib.dtype

local M = {}

local MAX_HEADER = 100 * 1024 * 1024  -- the reference implementation's limit

-- File dtype -> Tocha dtype and element size.
local file_dtypes = {
  F64 = { dtype = D.f64, size = 8 }, F32 = { dtype = D.f32, size = 4 }, F16 = { dtype = D.f16, size = 2 },
  BF16 = { dtype = D.bf16, size = 2 }, I64 = { dtype = D.i64, size = 8 }, I32 = { dtype = D.i32, size = 4 },
  U8 = { dtype = D.u8, size = 1 }, BOOL = { dtype = D.bool, size = 1 },
  I16 = { dtype = D.i16, size = 2 }, I8 = { dtype = D.i8, size = 1 },
}
local dtype_names = { [D.f64] = 'F64', [D.f32] = 'F32', [D.f16] = 'F16', [D.bf16] = 'BF16', [D.i64] = 'I64',
                      [D.i32] = 'I32', [D.i16] = 'I16', [D.i8] = 'I8', [D.u8] = 'U8', [D.bool] = 'BOOL' }

local function is_int(v) return type(v) == 'number' and v >= 0 and v == math.floor(v) and v < 2 ^ 53 end

-- ---- reading ----------------------------------------------------------------------------------------

-- Checks one header entry; returns { name, info, shape, numel, b, e }.
local function entry(stream, name, e, data_len)
  local function bad(msg) stream:fail("tensor '%s': %s", name, msg) end
  if type(e) ~= 'table' or J.is_array(e) or e == J.null then bad('its entry is not a JSON object') end
  local info = type(e.dtype) == 'string' and file_dtypes[e.dtype]
  if not info then bad('unsupported dtype ' .. tostring(e.dtype)) end
  local shape, offs = e.shape, e.data_offsets
  if type(shape) ~= 'table' or not J.is_array(shape) or #shape > 16 then bad('shape is not a list of at most 16 sizes') end
  local numel = 1
  for i = 1, #shape do
    if not is_int(shape[i]) then bad('shape holds ' .. tostring(shape[i])) end
    numel = numel * shape[i]
  end
  if type(offs) ~= 'table' or not J.is_array(offs) or #offs ~= 2 or not is_int(offs[1]) or not is_int(offs[2])
     or offs[1] > offs[2] or offs[2] > data_len then
    bad(string.format('data_offsets do not lie within the %d data bytes', data_len))
  end
  if numel * info.size ~= offs[2] - offs[1] then
    bad(string.format('shape needs %d bytes but data_offsets span %d', numel * info.size, offs[2] - offs[1]))
  end
  return { name = name, info = info, shape = shape, numel = numel, b = offs[1], e = offs[2] }
end

local function contiguous_strides(shape)
  local strides, acc = {}, 1
  for i = #shape, 1, -1 do
    strides[i] = acc
    acc = acc * shape[i]
  end
  return strides
end

--- Reads a safetensors stream: returns tensors by name and the metadata table.
function M.read(stream, opts, op)
  local size = stream:size()
  if size < 8 then stream:fail('too short for a safetensors file (%d bytes)', size) end
  stream:seek(0)
  local n64 = ffi.cast('uint64_t *', stream:read_string(8, 'the header size'))[0]
  local n = tonumber(n64)
  if n > size - 8 or n > MAX_HEADER then
    -- printed from the u64 itself: %d of a double above 2^63 printed a negative size
    stream:fail('declares a %s-byte header but the file has %d bytes (truncated or corrupt)',
                (tostring(n64):gsub('ULL$', '')), size)
  end
  local ok, h = pcall(J.decode, stream:read_string(n, 'the header'))
  if not ok then stream:fail('header: %s', h) end
  if type(h) ~= 'table' or J.is_array(h) or h == J.null then stream:fail('header is not a JSON object') end
  local data_start = 8 + n
  local data_len = size - data_start
  local metadata, entries = {}, {}
  for name, e in pairs(h) do
    if name == '__metadata__' then
      if type(e) ~= 'table' or J.is_array(e) then stream:fail('__metadata__ is not a JSON object') end
      for k, v in pairs(e) do
        if type(v) ~= 'string' then stream:fail('metadata value %s is not a string', k) end
        metadata[k] = v
      end
    else
      entries[#entries + 1] = entry(stream, name, e, data_len)
    end
  end
  -- The data must be covered exactly, without overlaps or holes (as the reference reader requires).
  table.sort(entries, function(a, b) if a.b ~= b.b then return a.b < b.b end return a.e < b.e end)
  local at = 0
  for _, x in ipairs(entries) do
    if x.b ~= at then stream:fail("tensor '%s': data at byte %d overlaps or leaves a hole (expected %d)", x.name, x.b, at) end
    at = x.e
  end
  if at ~= data_len then stream:fail('%d data bytes belong to no tensor', data_len - at) end
  local tensors = {}
  for _, x in ipairs(entries) do
    local base = stream:read_blob(data_start + x.b, x.e - x.b, x.e - x.b, x.info.dtype, opts.mmap, false, 0)
    tensors[x.name] = S.view(base, 0, x.shape, contiguous_strides(x.shape),
                               stream.name .. ": tensor '" .. x.name .. "'", op)
  end
  return tensors, metadata
end

-- ---- writing ----------------------------------------------------------------------------------------

-- Flattens nested tables of tensors into dotted names.
local function flatten(stream, t, prefix, out, seen)
  if seen[t] then stream:fail('the table of tensors contains a cycle at %s', prefix) end
  seen[t] = true
  for _, k in ipairs(common.sorted_keys(t)) do
    if type(k) ~= 'string' and type(k) ~= 'number' then stream:fail('tensor names must be strings, got a %s key', type(k)) end
    if type(k) == 'number' and (k ~= math.floor(k) or math.abs(k) >= 2 ^ 53) then
      stream:fail('tensor names must be strings or integers, got the key %s', tostring(k))
    end
    local name = prefix .. (type(k) == 'number' and string.format('%d', k) or k)
    -- The header's "__metadata__" entry is not a tensor: a tensor of that name made an unreadable file.
    if name == '__metadata__' then stream:fail("'__metadata__' is reserved for the metadata and cannot name a tensor") end
    -- Note [Names are UTF-8]: JSON text is UTF-8 and the reference reader (serde_json) rejects a
    -- header holding other bytes, so a Latin-1 name or metadata string used to write a file that
    -- only Tocha could read back; saving now refuses it.
    if not J.is_utf8(name) then stream:fail('tensor name %q is not valid UTF-8', name) end
    local v = t[k]
    if types.is_tensor(v) then
      if out[name] then stream:fail("two tensors are named '%s'", name) end
      out[name] = v
      out[#out + 1] = name
    elseif type(v) == 'table' and common.classify(v) == 'table' then
      flatten(stream, v, name .. '.', out, seen)
    else
      stream:fail("'%s' is a %s; safetensors files hold only tensors", name, types.describe(v))
    end
  end
  seen[t] = nil
end

local function encode_metadata(stream, metadata)
  if metadata == nil then return nil end
  if type(metadata) ~= 'table' then stream:fail('metadata must be a table of strings, got %s', types.describe(metadata)) end
  local parts = {}
  for _, k in ipairs(common.sorted_keys(metadata)) do
    local v = metadata[k]
    if type(k) ~= 'string' or (type(v) ~= 'string' and type(v) ~= 'number' and type(v) ~= 'boolean') then
      stream:fail('metadata must map strings to strings, got %s = %s', tostring(k), types.describe(v))
    end
    v = tostring(v)
    if not (J.is_utf8(k) and J.is_utf8(v)) then  -- Note [Names are UTF-8]
      stream:fail('metadata %q = %q is not valid UTF-8', k, v)
    end
    parts[#parts + 1] = J.quote(k) .. ':' .. J.quote(v)
  end
  return '"__metadata__":{' .. table.concat(parts, ',') .. '}'
end

--- Writes tensors (a table by name; nested tables give dotted names) and optional metadata.
function M.write(stream, tensors, metadata, op)
  if type(tensors) ~= 'table' or common.classify(tensors) ~= 'table' then
    lib.fail(op, 'expected a table of tensors, got %s', types.describe(tensors))
  end
  local out = {}
  flatten(stream, tensors, '', out, {})
  -- Wider types first, so every tensor's data is aligned to its element size.
  table.sort(out, function(a, b)
    local ea, eb = out[a].p.elsize, out[b].p.elsize
    if ea ~= eb then return ea > eb end
    return a < b
  end)
  local parts, offset = {}, 0
  parts[1] = encode_metadata(stream, metadata)
  for _, name in ipairs(out) do
    local p = out[name].p
    local shape = {}
    for i = 0, p.ndim - 1 do shape[#shape + 1] = string.format('%d', tonumber(p.size[i])) end
    local nbytes = tonumber(p.numel) * p.elsize
    parts[#parts + 1] = string.format('%s:{"dtype":"%s","shape":[%s],"data_offsets":[%d,%d]}', J.quote(name),
                                      dtype_names[p.dtype], table.concat(shape, ','), offset, offset + nbytes)
    offset = offset + nbytes
  end
  local header = '{' .. table.concat(parts, ',') .. '}'
  header = header .. string.rep(' ', (8 - (8 + #header) % 8) % 8)  -- data starts 8-byte aligned
  local len = ffi.new('uint64_t[1]', #header)
  stream:write(len, 8)
  stream:write(header)
  for _, name in ipairs(out) do
    local t = out[name]
    stream:write_tensor(t, S.native_kind[t.p.dtype], 0)
  end
end

return M
