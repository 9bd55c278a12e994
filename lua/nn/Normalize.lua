-- nn.Normalize(p[, eps = 1e-10]): divides a vector (or each row of a batch) by its p-norm,
-- (sum |x|^p + eps)^(1/p); p = math.huge uses max |x| + eps.
local Normalize, parent = torch.class('nn.Normalize', 'nn.Module')

function Normalize:__init(p, eps)
  parent.__init(self)
  if type(p) ~= 'number' or not (p > 0) then
    error('[nn.Normalize] p must be a positive number (math.huge for the max norm), got ' .. tostring(p), torch._lib.user_level())
  end
  self.p = p
  self.eps = eps or 1e-10
end

local function rows(self, input)
  if torch.isTensor(input) and not nn.utils.isFloating(input) then  -- any float dtype, any device
    error('[' .. tostring(self) .. '] expected a floating-point tensor, got ' .. input:type(), torch._lib.user_level())
  end
  if not torch.isTensor(input) or input:dim() < 1 or input:dim() > 2 then
    error('[' .. tostring(self) .. '] expected a vector or a batch of vectors (2D), got '
      .. (torch.isTensor(input) and ('size ' .. table.concat(input:size():totable(), 'x')) or torch.type(input)), torch._lib.user_level())
  end
  return input:dim() == 1 and input:view(1, -1) or input
end

function Normalize:updateOutput(input)
  local x = rows(self, input)
  if self.p == math.huge then
    if x:size(2) == 0 then error('[' .. tostring(self) .. '] the max norm of an empty vector is undefined', torch._lib.user_level()) end
    self._indices = nn.utils.longBuffer(self._indices, x)
    self._norm = self._norm or x.new()
    torch.max(self._norm, self._indices, torch.abs(x), 2)
    self._norm:add(self.eps)
  else
    local a = torch.abs(x)
    self._normp = torch.pow(a, self.p):sum(2):add(self.eps)
    self._norm = torch.pow(self._normp, 1 / self.p)
  end
  self._output = self._output or x.new()
  torch.cdiv(self._output, x, self._norm:expandAs(x))
  self.output = self._output:view(input:size())
  return self.output
end

-- d/dx_j of x_i / N = delta_ij / N - x_i * dN/dx_j / N^2, with dN/dx_j = |x_j|^(p-2) x_j / N^(p-1)
-- (for the max norm: sign at the arg max). Written as Torch7 does, from the saved norms.
function Normalize:updateGradInput(input, gradOutput)
  local x = rows(self, input)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    error('[' .. tostring(self) .. '] gradOutput does not match the input of size '
      .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  local g = gradOutput:contiguous():view(x:size())
  local n, d = x:size(1), x:size(2)
  local gi, buffer, denom
  if self.p == math.huge then
    gi = torch.cmul(self._norm:expand(n, d), g)
    buffer = x.new(n, d):zero()
    buffer:scatter(2, self._indices, torch.gather(x, 2, self._indices):cdiv(self._norm))
    denom = torch.cmul(self._norm, self._norm)
  else
    gi = torch.cmul(self._normp:expand(n, d), g)
    if self.p == 2 then buffer = x:clone()
    elseif self.p % 2 == 0 then buffer = torch.pow(x, self.p - 2):cmul(x)
    elseif self.p < 2 then buffer = torch.abs(x):add(self.eps):pow(self.p - 2):cmul(x)
    else buffer = torch.abs(x):pow(self.p - 2):cmul(x) end
    denom = torch.cmul(self._normp, self._norm)
  end
  local cross = torch.cmul(x, g):sum(2)
  gi:add(-1, buffer:cmul(cross:expand(n, d))):cdiv(denom:expand(n, d))
  self.gradInput = gi:view(input:size())
  return self.gradInput
end

function Normalize:__tostring__()
  if self.p % 1 == 0 then return string.format('nn.Normalize(%d)', self.p) end
  return string.format('nn.Normalize(%f)', self.p)
end

return Normalize
