-- nn.PReLU([nOutputPlane]): x for x > 0, w * x otherwise, with a learnt slope w: one shared
-- slope (no argument) or one per channel (dim 2 of a batch, dim 1 of a vector; Torch7's THNN).
local PReLU, parent = torch.class('nn.PReLU', 'nn.Module')

--- nn.PReLU([nOutputPlane=0]): slopes start at 0.25; 0 means one slope shared by all elements.
function PReLU:__init(nOutputPlane)
  parent.__init(self)
  if nOutputPlane ~= nil and (type(nOutputPlane) ~= 'number' or nOutputPlane < 0) then
    error(string.format('[nn.PReLU] nOutputPlane must be a non-negative number, got %s', tostring(nOutputPlane)), 2)
  end
  self.nOutputPlane = nOutputPlane or 0
  local n = self.nOutputPlane > 0 and self.nOutputPlane or 1
  self.weight = torch.Tensor(n):fill(0.25)
  self.gradWeight = torch.Tensor(n):zero()
  nn.utils.linkGradients(self)
end

-- Accumulating the slope's gradient needs only input and gradOutput (coarse nodes may skip
-- updateGradInput; Note [Modules and autograd]).
PReLU._accGradIndependent = true

-- The slopes viewed to broadcast against input (one per channel), or the single shared slope.
function PReLU:_slopes(input)
  local n = self.nOutputPlane
  if n == 0 then return self.weight end
  local cdim = input:dim() > 1 and 2 or 1
  if input:dim() < cdim or input:size(cdim) ~= n then
    error(string.format('[%s] expected %d input planes in dim %d, got %s', tostring(self), n, cdim,
      nn.utils.describe(input)), 0)
  end
  local shape = {}
  for d = 1, input:dim() do shape[d] = d == cdim and n or 1 end
  return self.weight:view(unpack(shape))
end

function PReLU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local w = self:_slopes(input)
  self._neg = torch.cmin(nn.utils.buffer(self._neg, input), input, 0)
  self.output = torch.relu(self.output, input)
  self.output:addcmul(self._neg, w)
  return self.output
end

-- gradInput = gradOutput where x > 0, w * gradOutput elsewhere.
function PReLU:updateGradInput(input, gradOutput)
  local w = self:_slopes(input)
  self._pos = torch.gt(nn.utils.maskBuffer(self._pos, input), input, 0)
  self._scale = nn.utils.buffer(self._scale, input)
  self._scale:resizeAs(input):copy(self._pos)                -- 1 where x > 0
  self._scale:addcmul(-1, self._scale, w):add(w)             -- 1 + (1 - 1) w, or w
  self.gradInput = torch.cmul(self.gradInput, gradOutput, self._scale)
  return self.gradInput
end

-- d/dw = sum of gradOutput * min(x, 0) over everything but the channel dim.
function PReLU:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  self:_slopes(input)
  self._prod = torch.cmin(nn.utils.buffer(self._prod, input), input, 0):cmul(gradOutput)
  if self.nOutputPlane == 0 then
    self.gradWeight:add(scale * self._prod:sum())
  elseif input:dim() == 1 then
    self.gradWeight:add(scale, self._prod)
  else
    local p = self._prod:view(input:size(1), self.nOutputPlane, -1)
    self.gradWeight:add(scale, p:sum(3):sum(1):view(self.nOutputPlane))
  end
end

function PReLU:__tostring__()
  return torch.typename(self)
end

return PReLU
