-- The graph torch.onnx.export builds while it walks a model: values (a name, the sample run's
-- shape, the element type and which dims vary), nodes named after the module path as PyTorch names
-- them ("/1/Conv", output "/1/Conv_output_0"), initializers copied to the host, and the encoding of
-- the whole as a GraphProto (lua/torch/onnx_proto.lua).
local ffi = require 'ffi'
local lib = require 'torch.lib'
local P = require 'torch.onnx_proto'

local Graph = {}
Graph.__index = Graph
local M = {}

local TYPES = { FloatTensor = P.FLOAT, DoubleTensor = P.DOUBLE, LongTensor = P.INT64, IntTensor = P.INT32,
  ShortTensor = P.INT16, ByteTensor = P.UINT8, CharTensor = P.INT8, HalfTensor = P.FLOAT16, BoolTensor = P.BOOL }
local SIZES = { [P.FLOAT] = 4, [P.DOUBLE] = 8, [P.INT64] = 8, [P.INT32] = 4, [P.INT16] = 2, [P.UINT8] = 1, [P.INT8] = 1,
  [P.FLOAT16] = 2, [P.BOOL] = 1 }

--- onnx_graph.elemType(t): the ONNX TensorProto.DataType of tensor t (CUDA ones as their host type).
function M.elemType(t)
  local k = torch.type(t):match('^torch%.(%a+)$') or ''
  if k == 'CudaTensor' then k = 'FloatTensor' end
  k = k:gsub('^Cuda', '')
  local dt = TYPES[k]
  if not dt then lib.fail('torch.onnx.export', 'tensors of type %s cannot be exported', torch.type(t)) end
  return dt
end

--- onnx_graph.new(export): an empty graph; export holds the parsed options (opset, folding).
function M.new(export)
  return setmetatable({ opts = export, nodes = {}, inits = {}, initNames = {}, values = {}, counts = {},
    consumers = {}, producer = {}, uid = 0 }, Graph)
end

local function dims_of(t)
  local d = {}
  for i = 1, t:dim() do d[i] = t:size(i) end
  return d
end
--- g:dims(t): the sizes of tensor t as a Lua list.
function Graph:dims(t) return dims_of(t) end

-- Note [Initializers on the host]: weights of a CUDA model are copied to the host (t:cpu()) and
-- made contiguous before their bytes are taken; half tensors keep their 16-bit bytes.
local function raw_of(t)
  if t:isCuda() then t = t:cpu() end
  t = t:contiguous()
  local dt = M.elemType(t)
  local n = t:nElement()
  if n == 0 then return dt, '' end
  local s = ffi.string(t:data(), n * SIZES[dt])
  if not ffi.abi('le') and SIZES[dt] > 1 then
    s = s:gsub(string.rep('.', SIZES[dt]), string.reverse)
  end
  return dt, s
end

--- g:value(name, t[, dyn]): a new value named name with the sample tensor t (dyn: dim -> param).
function Graph:value(name, t, dyn)
  if self.values[name] then lib.fail('torch.onnx.export', 'the name %q is used twice', name) end
  local v = { name = name, t = t, shape = dims_of(t), elem = M.elemType(t), dyn = dyn or {} }
  self.values[name] = v
  self.values[#self.values + 1] = v
  return v
end

-- Note [Unique names]: ONNX names one namespace (SSA): an initializer named like a graph input
-- would become that input's default value, and a name given twice makes onnx.checker refuse the
-- file. Initializers and constants take a free name (a suffix _N when taken); an output name that
-- is already an input's, a weight's or another output's is an error (it was written as a second
-- producer of that name).
local function free(self, name)
  while self.initNames[name] or self.values[name] do
    self.uid = self.uid + 1
    name = string.format('%s_%d', name, self.uid)
  end
  self.initNames[name] = true
  return name
end

--- g:init(name, t): an initializer holding tensor t (a host copy); returns its name.
function Graph:init(name, t)
  name = free(self, name)
  local dt, raw = raw_of(t)
  self.inits[#self.inits + 1] = P.tensor({ name = name, dims = dims_of(t), data_type = dt, raw = raw })
  return name
end

--- g:constInts(path, list): an INT64 initializer of a Lua list (shapes, pads, axes).
function Graph:constInts(path, list)
  self.uid = self.uid + 1
  local name = free(self, string.format('%s/Constant_%d', path, self.uid))
  self.inits[#self.inits + 1] = P.tensor({ name = name, dims = { #list }, data_type = P.INT64,
    raw = P.pack(P.INT64, list) })
  return name
end

--- g:constScalar(path, x, elem): a scalar (0-D) initializer of element type elem.
function Graph:constScalar(path, x, elem)
  if elem ~= P.FLOAT and elem ~= P.DOUBLE and elem ~= P.INT64 and elem ~= P.INT32 then
    lib.fail('torch.onnx.export', 'constants of ONNX type %d are not exported (convert the model to float)', elem)
  end
  self.uid = self.uid + 1
  local name = free(self, string.format('%s/Constant_%d', path, self.uid))
  self.inits[#self.inits + 1] = P.tensor({ name = name, dims = {}, data_type = elem, raw = P.pack(elem, { x }) })
  return name
end

--- g:node(path, op, inputs, attrs[, t, dyn]): adds a node (inputs: names or values; attrs: list of
--- {name, kind, value}); with t, returns the output value (sample tensor t, varying dims dyn),
--- else the output's name, for a node inside a module's decomposition.
function Graph:node(path, op, inputs, attrs, t, dyn)
  local key = path .. '/' .. op
  local k = self.counts[key] or 0
  self.counts[key] = k + 1
  local nname = k == 0 and key or string.format('%s_%d', key, k)
  local out = nname .. '_output_0'
  local ins = {}
  for i, x in ipairs(inputs) do
    ins[i] = type(x) == 'table' and x.name or x
    self.consumers[ins[i]] = (self.consumers[ins[i]] or 0) + 1
  end
  local enc = {}
  for i, a in ipairs(attrs or {}) do enc[i] = P.attribute(a[1], a[2], a[3]) end
  local n = { name = nname, op_type = op, inputs = ins, outputs = { out }, attributes = enc, attrs = attrs }
  self.nodes[#self.nodes + 1] = n
  self.producer[out] = n
  if t then return self:value(out, t, dyn) end
  return out
end

--- g:output(v, name, dims): makes value v a graph output called name, shaped dims (renaming the
--- node that produces it, or adding an Identity when v is an input, shared or already an output).
function Graph:output(v, name, dims)
  local n = self.producer[v.name]
  local other = self.values[name]
  if self.initNames[name] or (other and (other ~= v or not n or v.isOutput)) then -- Note [Unique names]
    lib.fail('torch.onnx.export', 'outputNames: %q is already the name of %s', name,
      self.initNames[name] and 'a weight or constant of the graph' or 'an input or another output')
  end
  if other then -- v is a node's output already called name
  elseif n and not self.consumers[v.name] and not v.isOutput then
    n.outputs[1] = name
    self.values[v.name] = nil
    v.name = name
  else
    self.consumers[v.name] = (self.consumers[v.name] or 0) + 1
    self.nodes[#self.nodes + 1] = { name = '/Identity_' .. name, op_type = 'Identity', inputs = { v.name },
      outputs = { name }, attributes = {} }
  end
  self.values[name] = v
  v.isOutput = true
  return P.value_info(name, v.elem, dims)
end

--- g:dimsOf(v): v's shape as ValueInfo dims: numbers, or the param name of a varying dim.
function Graph:dimsOf(v)
  local d = {}
  for i, s in ipairs(v.shape) do
    local p = v.dyn[i]
    if p == nil then d[i] = s else d[i] = p end
  end
  return d
end

--- g:encode(name, inputs, outputs): the GraphProto bytes (inputs, outputs: encoded ValueInfos);
--- value_info lists every value a node produces that is not a graph output.
function Graph:encode(name, inputs, outputs)
  local nodes, vi = {}, {}
  local outs = {}
  for _, n in ipairs(self.nodes) do
    nodes[#nodes + 1] = P.node(n)
    for _, o in ipairs(n.outputs) do outs[o] = true end
  end
  for _, v in ipairs(self.values) do
    if outs[v.name] and self.values[v.name] == v and not v.isOutput then
      vi[#vi + 1] = P.value_info(v.name, v.elem, self:dimsOf(v))
    end
  end
  return P.graph({ name = name, nodes = nodes, initializers = self.inits, inputs = inputs, outputs = outputs,
    value_info = vi })
end

return M
