-- The rest of Torch7's nn.utils (nn/utils.lua in torch/nn): recursiveType, recursiveCopy,
-- addSingletonDimension, contiguousView and clear, which user modules written for Torch7 call.
require 'nn.utils'
local utils = nn.utils
local fail = require('torch.lib').fail

local function is_module(v)
  return type(v) == 'table' and not torch.isTensor(v) and (torch.isTypeOf(v, 'nn.Module') or torch.isTypeOf(v, 'nn.Criterion'))
end

--- nn.utils.recursiveType(param, typeName[, tensorCache]): param (a tensor, a module or criterion,
--- or nested tables of them) converted to typeName; tensors sharing a storage still share one
--- (through tensorCache, which m:type() passes along); modules convert themselves. Returns param.
--- Example: nn.utils.recursiveType({torch.FloatTensor(2)}, 'torch.DoubleTensor')
function utils.recursiveType(param, typeName, tensorCache)
  if type(typeName) ~= 'string' then fail('nn.utils.recursiveType', 'expected a type name, got %s', utils.describe(typeName)) end
  tensorCache = tensorCache or {}
  if torch.isTensor(param) then
    local holder = { param }
    utils.convertTensors(holder, typeName, tensorCache)
    return holder[1]
  elseif is_module(param) then
    param:type(typeName, tensorCache)
  elseif type(param) == 'table' then
    for k, v in pairs(param) do param[k] = utils.recursiveType(v, typeName, tensorCache) end
  end
  return param
end

--- nn.utils.recursiveCopy(t1, t2): t1 made a copy of t2 (tensors or nested tables of them), t1's
--- tensors resized like t2's and of t2's types; returns t1, t2 (Torch7).
--- Example: local a = nn.utils.recursiveCopy(nil, {torch.ones(2)})
function utils.recursiveCopy(t1, t2)
  if type(t2) == 'table' and not torch.isTensor(t2) then
    t1 = (type(t1) == 'table' and not torch.isTensor(t1)) and t1 or {}
    for k in pairs(t2) do t1[k], t2[k] = utils.recursiveCopy(t1[k], t2[k]) end
  elseif torch.isTensor(t2) then
    t1 = (torch.isTensor(t1) and t1:type() == t2:type()) and t1 or t2.new()
    t1:resizeAs(t2):copy(t2)
  else
    fail('nn.utils.recursiveCopy', 'expected tensors or tables, got %s and %s', utils.describe(t1), utils.describe(t2))
  end
  return t1, t2
end

--- nn.utils.addSingletonDimension([out,] t[, dim = 1]): t viewed with a new dimension of size 1
--- at dim (1 <= dim <= t:dim() + 1), sharing t's storage; into out when given (Torch7).
--- Example: nn.utils.addSingletonDimension(torch.ones(2, 3), 2):size()
function utils.addSingletonDimension(...)
  local out, t, dim
  local a, b, c = ...
  if torch.isTensor(a) and torch.isTensor(b) then out, t, dim = a, b, c else t, dim = a, b end
  if not torch.isTensor(t) then fail('nn.utils.addSingletonDimension', 'expected a tensor, got %s', utils.describe(t)) end
  dim = dim or 1
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim < 1 or dim > t:dim() + 1 then
    fail('nn.utils.addSingletonDimension', 'dim must be an integer in 1..%d, got %s', t:dim() + 1, tostring(dim))
  end
  local size, stride = {}, {}
  for i = 1, t:dim() do size[i], stride[i] = t:size(i), t:stride(i) end
  table.insert(size, dim, 1)
  table.insert(stride, dim, dim <= t:dim() and t:stride(dim) * t:size(dim) or 1)
  out = out or t.new()
  return out:set(t:storage(), t:storageOffset(), torch.LongStorage(size), torch.LongStorage(stride))
end

--- nn.utils.contiguousView(output, input, ...): input viewed with the sizes given (a
--- torch.LongStorage or numbers), through a contiguous copy into output when input is not
--- contiguous; returns the view (Torch7).
--- Example: nn.utils.contiguousView(nil, torch.ones(2, 3):t(), 6)
function utils.contiguousView(output, input, ...)
  if not torch.isTensor(input) then fail('nn.utils.contiguousView', 'expected a tensor input, got %s', utils.describe(input)) end
  output = output or input.new()
  if input:isContiguous() then
    output:view(input, ...)
  else
    output:resize(input:size()):copy(input)
    output:view(output, ...)
  end
  return output
end

--- nn.utils.clear(self, name1, name2, ...) (or a table of names): empties the module's tensor
--- fields of those names (tables of tensors become empty tables), as a clearState does; returns self.
--- Example: local m = nn.Linear(2, 3); nn.utils.clear(m, 'output', 'gradInput')
function utils.clear(self, ...)
  local names = { ... }
  if type(names[1]) == 'table' then names = names[1] end
  for _, k in ipairs(names) do
    local v = self[k]
    if torch.isTensor(v) then self[k] = v.new()
    elseif type(v) == 'table' then self[k] = {}
    else self[k] = nil end
  end
  return self
end

--- nn.utils.writeFieldsExcept(module, file, transient): a class's write(file) that saves every
--- field but the keys of `transient` (state tied to this process: communicators, hooks); used
--- by DataParallelTable and DistributedDataParallel with readFields below.
--- Example: -- function M:write(file) nn.utils.writeFieldsExcept(self, file, { _comm = true }) end
function utils.writeFieldsExcept(module, file, transient)
  local fields = {}
  for k, v in pairs(module) do
    if not transient[k] then fields[k] = v end
  end
  file:writeObject(fields)
end

--- nn.utils.readFields(module, file, name): the read(file) counterpart of writeFieldsExcept.
--- Example: -- function M:read(file) nn.utils.readFields(self, file, 'nn.M') self:_setup() end
function utils.readFields(module, file, name)
  local fields = file:readObject()
  if type(fields) ~= 'table' then fail(name, 'expected a table of fields in the file, got %s', type(fields)) end
  for k, v in pairs(fields) do module[k] = v end
end

return utils
