-- nn.MixtureTable([dim]): a mixture of experts, {gater, experts} -> sum_i gater[i] * expert_i
-- (Torch7). gater is a vector of n weights or a batch (B x n); experts is a table of n tensors of
-- one size (batched like the gater) or one tensor holding the n experts along dim (default: 1
-- for a vector gater, 2 for a batch). Built from differentiable ops, so both Torch7's backward
-- and autograd give {gradGater, gradExperts} with the experts' shape.
local S = require 'nn.support'
local MixtureTable, parent = torch.class('nn.MixtureTable', 'nn.Module')

function MixtureTable:__init(dim)
  parent.__init(self)
  if dim ~= nil then S.argInt('nn.MixtureTable', 'dim', dim, 1) end
  self.dim = dim
  self.gradInput = {}
end

local function name(self)
  return self.dim and string.format('nn.MixtureTable(%d)', self.dim) or 'nn.MixtureTable'
end

local function is_list(x) return type(x) == 'table' and not torch.isTensor(x) and getmetatable(x) == nil end

-- The experts as one tensor with the n experts along dim (a table is stacked there).
local function experts_tensor(self, n, gater, experts, batch)
  local nm = name(self)
  local B = batch and gater:size(1)
  if is_list(experts) then
    S.tensors(nm, experts, nil, 1)
    if #experts ~= n then S.fail(nm, 'the gater has %d weights per sample but there are %d experts', n, #experts) end
    S.sameSizes(nm, experts)
    local e1 = experts[1]
    for i = 1, n do
      if experts[i]:type() ~= gater:type() then
        S.fail(nm, 'expert %d is %s but the gater is %s', i, S.describe(experts[i]), S.describe(gater))
      end
    end
    if batch and (e1:dim() < 1 or e1:size(1) ~= B) then
      S.fail(nm, 'the gater is a batch of %d but the experts are of size %s', B, S.sizestr(e1))
    end
    -- Torch7 ignores dim for a table of experts: the weights always follow the batch dim.
    local dim = batch and 2 or 1
    return torch.stack(experts, dim), dim
  end
  if not torch.isTensor(experts) then
    S.fail(nm, 'expected the experts as a tensor or a table of tensors, got %s', S.describe(experts))
  end
  local dim = self.dim or (batch and 2 or 1)
  if experts:type() ~= gater:type() then
    S.fail(nm, 'the experts are %s but the gater is %s', S.describe(experts), S.describe(gater))
  end
  if batch and dim == 1 then S.fail(nm, 'dim 1 is the batch dim of a batch gater (B x n); the experts need another') end
  if experts:dim() < 2 or experts:dim() < dim or experts:size(dim) ~= n or (batch and experts:size(1) ~= B) then
    S.fail(nm, 'expected experts with %s%d experts along dim %d, got %s', batch and string.format('%d samples along dim 1 and ', B) or '',
      n, dim, S.describe(experts))
  end
  return experts, dim
end

function MixtureTable:updateOutput(input)
  local nm = name(self)
  if not is_list(input) or #input ~= 2 then S.fail(nm, 'expected {gater, experts}, got %s', S.describe(input)) end
  local gater = input[1]
  if not nn.utils.isFloating(gater) or (gater:dim() ~= 1 and gater:dim() ~= 2) then
    S.fail(nm, 'expected the gater as a floating-point vector (n) or batch (B x n), got %s', S.describe(gater))
  end
  local batch = gater:dim() == 2
  local n = gater:size(batch and 2 or 1)
  local E, dim = experts_tensor(self, n, gater, input[2], batch)
  -- gater viewed with singleton dims everywhere but the batch dim and dim, expanded over E
  local shape = {}
  for k = 1, E:dim() do shape[k] = 1 end
  if batch then shape[1] = gater:size(1) end
  shape[dim] = n
  local g = gater:contiguous():view(torch.LongStorage(shape)):expandAs(E)
  self.output = torch.cmul(g, E):sum(dim):select(dim, 1)
  return self.output
end

return MixtureTable
