-- torch.onnx.export (PyTorch's, camelCase options): writes an ONNX ModelProto for a model built
-- from Tocha's nn modules. This file owns the options, the evaluation-mode run and the file; the
-- walk over the model (lua/torch/onnx_walk.lua), the converters (onnx_conv, onnx_layers, onnx_act,
-- onnx_rnn for the recurrent modules, onnx_spatial for resampling and channel rearrangements),
-- modules' own exports (onnx_custom), the graph (onnx_graph) and the protobuf bytes (onnx_proto)
-- load on the first export.
local torch = require 'torch.env'
local lib = require 'torch.lib'

local onnx = torch.onnx or {}
torch.onnx = onnx

local OPTIONS = { inputNames = true, outputNames = true, dynamicAxes = true, opsetVersion = true,
  doConstantFolding = true }
local function fail(fmt, ...) lib.fail('torch.onnx.export', fmt, ...) end

local function names(o, key)
  local v = o[key]
  if v == nil then return {} end
  if type(v) ~= 'table' then fail('%s must be a list of strings, got %s', key, type(v)) end
  for i, s in ipairs(v) do
    if type(s) ~= 'string' or s == '' then fail('%s[%d] must be a non-empty string, got %s', key, i, tostring(s)) end
  end
  return v
end

-- Note [dynamicAxes]: PyTorch's dict {name: [axes]} or {name: {axis: param}} with Tocha's 1-based
-- dims: {input = {1}} names the param "input_dim1", {input = {[1] = 'batch'}} names it "batch".
local function dynamic_axes(o)
  local v = o.dynamicAxes
  if v == nil then return {} end
  if type(v) ~= 'table' then fail('dynamicAxes must be a table {name = {dims}}, got %s', type(v)) end
  local out = {}
  for name, axes in pairs(v) do
    if type(name) ~= 'string' or type(axes) ~= 'table' then
      fail('dynamicAxes must map value names to tables of dims, got %s = %s', tostring(name), type(axes))
    end
    out[name] = {}
    for k, a in pairs(axes) do
      local dim, param = a, name .. '_dim' .. tostring(a)
      if type(a) == 'string' then dim, param = k, a end
      if type(dim) ~= 'number' or dim < 1 or dim ~= math.floor(dim) then
        fail('dynamicAxes.%s: dims are 1-based integers, got %s', name, tostring(dim))
      end
      out[name][dim] = param
    end
  end
  return out
end

local function parse(o)
  if o == nil then o = {} end
  if type(o) ~= 'table' then fail('expected an options table, got %s', type(o)) end
  for k in pairs(o) do
    if not OPTIONS[k] then fail('unknown option %s (expected inputNames, outputNames, dynamicAxes, opsetVersion, '
      .. 'doConstantFolding)', tostring(k)) end
  end
  local opset = o.opsetVersion == nil and 13 or o.opsetVersion
  if type(opset) ~= 'number' or opset < 13 or opset > 17 or opset ~= math.floor(opset) then
    fail('opsetVersion must be an integer from 13 to 17, got %s', tostring(opset))
  end
  local fold = o.doConstantFolding
  if fold ~= nil and type(fold) ~= 'boolean' then fail('doConstantFolding must be a boolean, got %s', type(fold)) end
  return { opset = opset, fold = fold ~= false, inputNames = names(o, 'inputNames'),
    outputNames = names(o, 'outputNames'), dyn = dynamic_axes(o) }
end

-- The list of tensors of a sample input or output (a tensor or a flat table of tensors).
local function tensors(x, what)
  if torch.isTensor(x) then return { x }, true end
  if type(x) ~= 'table' or #x == 0 then fail('expected %s as a tensor or a table of tensors, got %s', what, type(x)) end
  for i, t in ipairs(x) do
    if not torch.isTensor(t) then fail('%s %d is a %s, expected a tensor', what, i, type(t)) end
  end
  return x, false
end

local function io_names(given, n, base, what)
  if #given > n then fail('%d %s given for %d %ss', #given, what, n, base) end
  local out = {}
  for i = 1, n do out[i] = given[i] or (n == 1 and base or base .. '_' .. i) end
  return out
end

-- Builds the model bytes; runs with the model in evaluation mode (the caller restores it).
local function build(model, sample, o)
  local G = require('torch.onnx_graph').new(o)
  local W = require 'torch.onnx_walk'
  local P = require 'torch.onnx_proto'
  local ins, single = tensors(sample, 'sampleInput')
  local in_names = io_names(o.inputNames, #ins, 'input', 'inputNames')
  local values, inputs = {}, {}
  for i, t in ipairs(ins) do
    local dyn = o.dyn[in_names[i]] or {}
    for d in pairs(dyn) do
      if d > t:dim() then fail('dynamicAxes.%s: dim %d is out of range for a %dD input', in_names[i], d, t:dim()) end
    end
    values[i] = G:value(in_names[i], t, dyn)
    inputs[i] = P.value_info(in_names[i], values[i].elem, G:dimsOf(values[i]))
  end
  local out = W.emit(G, model, single and values[1] or values, { path = '', param = '', pos = 'model',
    where = torch.typename(model) .. ' (the model)' })
  local outs = out.name and { out } or out
  for i, v in ipairs(outs) do
    if not v.name then fail('output %d is a nested table, which is not exported', i) end
  end
  local out_names = io_names(o.outputNames, #outs, 'output', 'outputNames')
  for name in pairs(o.dyn) do
    local known = false
    for _, n in ipairs(in_names) do known = known or n == name end
    for _, n in ipairs(out_names) do known = known or n == name end
    if not known then fail('dynamicAxes names %q, which is neither an input nor an output', name) end
  end
  local outputs = {}
  for i, v in ipairs(outs) do
    local dims = G:dimsOf(v)
    for d, p in pairs(o.dyn[out_names[i]] or {}) do
      if d > #dims then fail('dynamicAxes.%s: dim %d is out of range for a %dD output', out_names[i], d, #dims) end
      dims[d] = p
    end
    outputs[i] = G:output(v, out_names[i], dims)
  end
  local graph = G:encode('main_graph', inputs, outputs)
  return P.model({ ir_version = o.opset <= 14 and 7 or 8, opset = o.opset, producer_name = 'tocha',
    producer_version = '', graph = graph })
end

--- torch.onnx.export(model, sampleInput, path [, {inputNames=, outputNames=, dynamicAxes=,
--- opsetVersion = 13, doConstantFolding = true}]): writes model (nn modules) as an ONNX file at path,
--- running it once on sampleInput (a tensor or a table of tensors) in evaluation mode to get the
--- shapes; the modules' train flags are restored afterwards. dynamicAxes = {name = {dims}} makes
--- those 1-based dims of an input or output symbolic; doConstantFolding folds batch norms into the
--- convolutions before them. Unsupported modules are an error naming the class and position.
--- Example: local p = os.tmpname(); torch.onnx.export(nn.Linear(2, 3), torch.randn(1, 2), p); os.remove(p)
function onnx.export(model, sampleInput, path, options)
  require 'nn'
  if not (type(model) == 'table' and model.forward and model.listModules) then
    fail('expected an nn module as the model, got %s', type(model))
  end
  if type(path) ~= 'string' or path == '' then fail('expected a file path, got %s', type(path)) end
  local o = parse(options)
  local mods = model:listModules()
  local modes = {}
  for i, m in ipairs(mods) do modes[i] = m.train end
  model:evaluate()
  local ok, bytes = pcall(build, model, sampleInput, o)
  if not ok and bytes == require('torch.onnx_walk').RETRY then -- Note [Checking custom exports once]
    o.checkAll = true
    ok, bytes = pcall(build, model, sampleInput, o)
    if ok then ok, bytes = false, '[torch.onnx.export] a module\'s onnxExport does not follow its forward' end
  end
  for i, m in ipairs(mods) do m.train = modes[i] end
  if not ok then error(bytes, 0) end
  local f, err = io.open(path, 'wb')
  if not f then fail('cannot open %s for writing: %s', path, tostring(err)) end
  f:write(bytes)
  f:close()
end

return onnx
