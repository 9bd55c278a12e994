-- A reader of ONNX files for tests/lua/test_onnx*.lua, sharing no code with the writer: the
-- generic protobuf decoder of helpers/tfevents.lua and onnx.proto's field numbers, giving
-- {ir_version, opsets, graph = {nodes, inits, inputs, outputs, value_info}} with tensors as Tocha
-- tensors (raw_data copied byte for byte).
local ffi = require 'ffi'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local R = dofile(dir .. '/tfevents.lua')
local decode = R.decode
local M = { decode = decode }

local function str(m, f) return m[f] and m[f][1] or nil end
local function int(m, f)
  local v = m[f] and m[f][1]
  if v and v >= 2 ^ 63 then error('negative int64 in field ' .. f .. ': the writer should not emit one', 2) end
  return v
end
local function list(m, f) return m[f] or {} end

-- TensorProto.DataType -> Tocha tensor constructor.
local CTOR = { [1] = torch.FloatTensor, [11] = torch.DoubleTensor, [7] = torch.LongTensor, [6] = torch.IntTensor }
local SIZE = { [1] = 4, [11] = 8, [7] = 8, [6] = 4 }

-- TensorProto (dims 1, data_type 2, name 8, raw_data 9) -> name, tensor, dims (a 0-D tensor is 1 x).
function M.tensor(bytes)
  local t = decode(bytes)
  local dims = list(t, 1)
  local dt = int(t, 2)
  local raw = str(t, 9) or ''
  local n = 1
  for _, d in ipairs(dims) do n = n * d end
  assert(CTOR[dt], 'unexpected data_type ' .. tostring(dt))
  assert(#raw == n * SIZE[dt], string.format('raw_data has %d bytes for %d elements', #raw, n))
  local x = CTOR[dt](n)
  if n > 0 then ffi.copy(x:data(), raw, #raw) end
  if #dims > 0 then x = x:view(torch.LongStorage(dims)) end
  return str(t, 8), x, dims, dt
end

-- AttributeProto (name 1, f 2, i 3, s 4, t 5, floats 7, ints 8, type 20) -> name, value, type.
function M.attribute(bytes)
  local a = decode(bytes)
  local ty = int(a, 20)
  local v
  if ty == 1 then v = R.as_float(a[2][1])
  elseif ty == 2 then v = int(a, 3)
  elseif ty == 3 then v = str(a, 4)
  elseif ty == 4 then v = select(2, M.tensor(a[5][1]))
  elseif ty == 6 then v = {} for i, s in ipairs(list(a, 7)) do v[i] = R.as_float(s) end
  elseif ty == 7 then
    v = {}
    for i, x in ipairs(list(a, 8)) do assert(x < 2 ^ 63, 'negative int') v[i] = x end
  else error('unexpected attribute type ' .. tostring(ty)) end
  return str(a, 1), v, ty
end

-- ValueInfoProto (name 1, type 2) -> {name, elem, dims}; dims: numbers, param strings, or false.
function M.value_info(bytes)
  local v = decode(bytes)
  local tp = decode(v[2][1])            -- TypeProto: tensor_type = 1
  local tt = decode(tp[1][1])           -- TypeProto.Tensor: elem_type = 1, shape = 2
  local dims = {}
  local shape = tt[2] and decode(tt[2][1]) or {}
  for i, d in ipairs(list(shape, 1)) do -- TensorShapeProto.dim = 1: dim_value = 1, dim_param = 2
    local dm = decode(d)
    dims[i] = dm[1] and dm[1][1] or (dm[2] and dm[2][1]) or false
  end
  return { name = str(v, 1), elem = int(tt, 1), dims = dims }
end

-- NodeProto (input 1, output 2, name 3, op_type 4, attribute 5) -> {op, inputs, outputs, name, attrs}.
function M.node(bytes)
  local n = decode(bytes)
  local attrs, order = {}, {}
  for _, a in ipairs(list(n, 5)) do
    local name, v = M.attribute(a)
    attrs[name] = v
    order[#order + 1] = name
  end
  return { op = str(n, 4), inputs = list(n, 1), outputs = list(n, 2), name = str(n, 3), attrs = attrs,
    attrOrder = order }
end

-- ModelProto (ir_version 1, producer_name 2, graph 7, opset_import 8) and its GraphProto (node 1,
-- name 2, initializer 5, input 11, output 12, value_info 13).
function M.read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  local m = decode(s)
  local out = { ir_version = int(m, 1), producer = str(m, 2), opsets = {} }
  for _, o in ipairs(list(m, 8)) do
    local od = decode(o)                -- OperatorSetIdProto: domain = 1, version = 2
    out.opsets[#out.opsets + 1] = { domain = str(od, 1) or '', version = int(od, 2) }
  end
  local g = decode(m[7][1])
  local graph = { name = str(g, 2), nodes = {}, inits = {}, initOrder = {}, inputs = {}, outputs = {}, value_info = {} }
  for _, n in ipairs(list(g, 1)) do graph.nodes[#graph.nodes + 1] = M.node(n) end
  for _, t in ipairs(list(g, 5)) do
    local name, x = M.tensor(t)
    graph.inits[name] = x
    graph.initOrder[#graph.initOrder + 1] = name
  end
  for _, v in ipairs(list(g, 11)) do graph.inputs[#graph.inputs + 1] = M.value_info(v) end
  for _, v in ipairs(list(g, 12)) do graph.outputs[#graph.outputs + 1] = M.value_info(v) end
  for _, v in ipairs(list(g, 13)) do
    local vi = M.value_info(v)
    graph.value_info[vi.name] = vi
  end
  out.graph = graph
  return out
end

-- The op types of a graph's nodes, in order.
function M.ops(model)
  local out = {}
  for i, n in ipairs(model.graph.nodes) do out[i] = n.op end
  return out
end

return M
