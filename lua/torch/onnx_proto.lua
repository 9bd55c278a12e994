-- The protobuf bytes of the ONNX messages torch.onnx.export writes, on top of the wire-format
-- helpers of lua/torch/tensorboard_proto.lua. Field numbers are onnx/onnx.proto's (cited per
-- message); the file is proto2, so a field given is written even at its default value.
local ffi = require 'ffi'
local pb = require 'torch.tensorboard_proto'
local concat = table.concat

local M = {}

-- TensorProto.DataType (onnx.proto): FLOAT = 1, UINT8 = 2, INT8 = 3, INT16 = 5, INT32 = 6, INT64 = 7,
-- BOOL = 9, FLOAT16 = 10, DOUBLE = 11.
M.FLOAT, M.UINT8, M.INT8, M.INT16, M.INT32, M.INT64, M.BOOL, M.FLOAT16, M.DOUBLE = 1, 2, 3, 5, 6, 7, 9, 10, 11

-- AttributeProto.AttributeType: FLOAT = 1, INT = 2, STRING = 3, TENSOR = 4, FLOATS = 6, INTS = 7,
-- STRINGS = 8 (strings = 9: the RNN operator's activations).
local A_FLOAT, A_INT, A_STRING, A_TENSOR, A_FLOATS, A_INTS, A_STRINGS = 1, 2, 3, 4, 6, 7, 8

local function repeated_ints(field, list)
  local parts = {}
  for i, v in ipairs(list) do parts[i] = pb.int(field, v, true) end
  return concat(parts)
end

local function repeated_strings(field, list)
  local parts = {}
  for i, s in ipairs(list) do parts[i] = pb.bytes(field, s, true) end
  return concat(parts)
end

--- onnx_proto.tensor{name=, dims={...}, data_type=, raw=}: a TensorProto (dims = 1, data_type = 2,
--- name = 8, raw_data = 9): raw is the little-endian bytes of the row-major data.
function M.tensor(t)
  return repeated_ints(1, t.dims) .. pb.int(2, t.data_type, true) .. pb.bytes(8, t.name or '')
    .. pb.bytes(9, t.raw, true)
end

-- Note [Attribute kinds]: the kind of an attribute is spelled out by the converter ('f', 'i', 's',
-- 't', 'floats', 'ints') rather than guessed from the Lua value, since 1 may be an INT or a FLOAT.
--- onnx_proto.attribute(name, kind, value): an AttributeProto (name = 1, f = 2, i = 3, s = 4,
--- t = 5, floats = 7, ints = 8, type = 20).
function M.attribute(name, kind, v)
  local body
  if kind == 'f' then body = pb.float(2, v, true) .. pb.int(20, A_FLOAT, true)
  elseif kind == 'i' then body = pb.int(3, v, true) .. pb.int(20, A_INT, true)
  elseif kind == 's' then body = pb.bytes(4, v, true) .. pb.int(20, A_STRING, true)
  elseif kind == 't' then body = pb.message(5, M.tensor(v)) .. pb.int(20, A_TENSOR, true)
  elseif kind == 'floats' then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = pb.float(7, x, true) end
    body = concat(parts) .. pb.int(20, A_FLOATS, true)
  elseif kind == 'ints' then body = repeated_ints(8, v) .. pb.int(20, A_INTS, true)
  elseif kind == 'strings' then body = repeated_strings(9, v) .. pb.int(20, A_STRINGS, true)
  else error('onnx_proto.attribute: unknown kind ' .. tostring(kind), 2) end
  return pb.bytes(1, name, true) .. body
end

--- onnx_proto.node{inputs=, outputs=, name=, op_type=, attributes={bytes...}}: a NodeProto
--- (input = 1, output = 2, name = 3, op_type = 4, attribute = 5).
function M.node(n)
  local attrs = {}
  for i, a in ipairs(n.attributes or {}) do attrs[i] = pb.message(5, a) end
  return repeated_strings(1, n.inputs) .. repeated_strings(2, n.outputs) .. pb.bytes(3, n.name or '')
    .. pb.bytes(4, n.op_type, true) .. concat(attrs)
end

--- onnx_proto.value_info(name, elem_type, dims): a ValueInfoProto (name = 1, type = 2) of a
--- TypeProto (tensor_type = 1) of a TypeProto.Tensor (elem_type = 1, shape = 2) whose
--- TensorShapeProto (dim = 1) holds a Dimension per entry of dims (dim_value = 1 for a number,
--- dim_param = 2 for a string, neither for false: an unknown size).
function M.value_info(name, elem_type, dims)
  local ds = {}
  for i, d in ipairs(dims) do
    local body = ''
    if type(d) == 'number' then body = pb.int(1, d, true)
    elseif type(d) == 'string' then body = pb.bytes(2, d, true) end
    ds[i] = pb.message(1, body)
  end
  local tensor_type = pb.int(1, elem_type, true) .. pb.message(2, concat(ds))
  return pb.bytes(1, name, true) .. pb.message(2, pb.message(1, tensor_type))
end

--- onnx_proto.graph{name=, nodes=, initializers=, inputs=, outputs=, value_info=}: a GraphProto
--- (node = 1, name = 2, initializer = 5, input = 11, output = 12, value_info = 13); lists of
--- encoded messages.
function M.graph(g)
  local parts = {}
  local function add(field, list)
    for _, m in ipairs(list or {}) do parts[#parts + 1] = pb.message(field, m) end
  end
  add(1, g.nodes)
  parts[#parts + 1] = pb.bytes(2, g.name or '', true)
  add(5, g.initializers)
  add(11, g.inputs)
  add(12, g.outputs)
  add(13, g.value_info)
  return concat(parts)
end

--- onnx_proto.model{ir_version=, opset=, producer_name=, producer_version=, graph=}: a ModelProto
--- (ir_version = 1, producer_name = 2, producer_version = 3, graph = 7, opset_import = 8) importing
--- the default domain ('') at opset, an OperatorSetIdProto (domain = 1, version = 2).
function M.model(m)
  return pb.int(1, m.ir_version, true) .. pb.bytes(2, m.producer_name or '') .. pb.bytes(3, m.producer_version or '')
    .. pb.message(7, m.graph) .. pb.message(8, pb.bytes(1, '', true) .. pb.int(2, m.opset, true))
end

local LE = ffi.abi('le')
local CTYPE = { [M.FLOAT] = 'float', [M.DOUBLE] = 'double', [M.INT64] = 'int64_t', [M.INT32] = 'int32_t',
  [M.UINT8] = 'uint8_t', [M.INT8] = 'int8_t', [M.INT16] = 'int16_t' }

--- onnx_proto.pack(data_type, list): the little-endian bytes of a Lua list of numbers.
function M.pack(data_type, list)
  local ct = CTYPE[data_type]
  local buf = ffi.new(ct .. '[?]', math.max(#list, 1))
  for i, v in ipairs(list) do buf[i - 1] = v end
  local size = ffi.sizeof(ct)
  local s = ffi.string(buf, #list * size)
  if LE or size == 1 then return s end
  return (s:gsub(string.rep('.', size), string.reverse))
end

return M
