-- nn.Unflatten(dim, sizes): PyTorch's nn.Unflatten: dim (1-based, negative from the end) of the
-- input viewed as the sizes given (a table or LongStorage; one size may be -1, inferred).
local Unflatten, parent = torch.class('nn.Unflatten', 'nn.Module')
local A = require 'nn.functional_args'

function Unflatten:__init(dim, sizes)
  parent.__init(self)
  self.dim = A.int('nn.Unflatten', dim, 'dim')
  if torch.typename(sizes) == 'torch.LongStorage' then sizes = sizes:totable() end
  if type(sizes) ~= 'table' or #sizes == 0 then
    A.fail('nn.Unflatten', 'expected sizes as a table of numbers, got %s', nn.utils.describe(sizes))
  end
  local free = 0
  for _, v in ipairs(sizes) do
    A.int('nn.Unflatten', v, 'a size')
    if v == -1 then free = free + 1 elseif v < 0 then A.fail('nn.Unflatten', 'sizes must be positive or -1, got %d', v) end
  end
  if free > 1 then A.fail('nn.Unflatten', 'only one size may be -1') end
  self.sizes = sizes
end

function Unflatten:updateOutput(input)
  if not torch.isTensor(input) then A.fail(tostring(self), 'expected a tensor, got %s', nn.utils.describe(input)) end
  local n = input:dim()
  local d = self.dim < 0 and self.dim + n + 1 or self.dim
  if d < 1 or d > n then A.fail(tostring(self), 'dim %d out of range for an input of size %s', self.dim, A.shape(input)) end
  local known, free = 1, nil
  for i, v in ipairs(self.sizes) do if v == -1 then free = i else known = known * v end end
  local m = input:size(d)
  local sizes = { unpack(self.sizes) }
  if free then
    if m % known ~= 0 then A.fail(tostring(self), 'dim %d of size %d cannot be split into %s', self.dim, m, table.concat(self.sizes, 'x')) end
    sizes[free] = m / known
  elseif known ~= m then
    A.fail(tostring(self), 'dim %d of size %d cannot be unflattened into %s', self.dim, m, table.concat(self.sizes, 'x'))
  end
  local size = {}
  for i = 1, n do
    if i == d then for _, v in ipairs(sizes) do size[#size + 1] = v end else size[#size + 1] = input:size(i) end
  end
  self.output = input:reshape(torch.LongStorage(size))
  return self.output
end

function Unflatten:__tostring__()
  return string.format('nn.Unflatten(%d, %s)', self.dim, table.concat(self.sizes, 'x'))
end

return Unflatten
