-- nn.PReLU([nOutputPlane]): x for x > 0, w * x otherwise, with a learnt slope w: one shared
-- slope (no argument) or one per channel (dim 2 of a batch, dim 1 of a vector; Torch7's THNN).
local S = require 'nn.support'
local PReLU, parent = torch.class('nn.PReLU', 'nn.Module')

--- nn.PReLU([nOutputPlane = 0 [, init = 0.25]]) or nn.PReLU({numParameters =, init =}) (PyTorch's
--- names): slopes start at init; 0 or 1 means one slope shared by all elements.
--- Example: nn.PReLU(3, 0.1):forward(torch.randn(2, 3))
-- Note [PReLU with one parameter]: PyTorch's PReLU(num_parameters = 1), its default, shares the
-- slope over every channel; Torch7's THNN refused nOutputPlane = 1 unless dim 2 had size 1, where
-- sharing gives the same result, so 1 is shared here too.
function PReLU:__init(nOutputPlane, init)
  parent.__init(self)
  local o = type(nOutputPlane) == 'table' and nOutputPlane or type(init) == 'table' and init or nil
  if o then
    for k in pairs(o) do
      if k ~= 'numParameters' and k ~= 'init' then
        error(string.format('[nn.PReLU] unknown option %s (expected numParameters, init)', tostring(k)), torch._lib.user_level())
      end
    end
    if o == nOutputPlane then nOutputPlane, init = o.numParameters, o.init
    elseif o.numParameters ~= nil or o.init == nil then
      error('[nn.PReLU] expected (numParameters, {init =}) or ({numParameters =, init =})', torch._lib.user_level())
    else init = o.init end
  end
  if nOutputPlane ~= nil and (type(nOutputPlane) ~= 'number' or nOutputPlane < 0
      or nOutputPlane ~= math.floor(nOutputPlane)) then
    error(string.format('[nn.PReLU] nOutputPlane must be a non-negative integer, got %s', tostring(nOutputPlane)), torch._lib.user_level())
  end
  if init ~= nil and type(init) ~= 'number' then
    error(string.format('[nn.PReLU] init must be a number, got %s', tostring(init)), torch._lib.user_level())
  end
  self.nOutputPlane = nOutputPlane or 0
  local n = self.nOutputPlane > 0 and self.nOutputPlane or 1
  self.weight = torch.Tensor(n):fill(init or 0.25)
  self.gradWeight = torch.Tensor(n):zero()
  nn.utils.linkGradients(self)
end

-- Accumulating the slope's gradient needs only input and gradOutput (coarse nodes may skip
-- updateGradInput; Note [Modules and autograd]).
PReLU._accGradIndependent = true

-- The slopes viewed to broadcast against input (one per channel), or the single shared slope.
function PReLU:_slopes(input)
  local n = self.nOutputPlane
  if n <= 1 then return self.weight end  -- Note [PReLU with one parameter]
  local cdim = input:dim() > 1 and 2 or 1
  if input:dim() < cdim or input:size(cdim) ~= n then
    error(string.format('[%s] expected %d input planes in dim %d, got %s', tostring(self), n, cdim,
      nn.utils.describe(input)), torch._lib.user_level())
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
  S.gradLike(torch.typename(self), gradOutput, input)
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
  S.gradLike(torch.typename(self), gradOutput, input)
  self._prod = torch.cmin(nn.utils.buffer(self._prod, input), input, 0):cmul(gradOutput)
  if self.nOutputPlane <= 1 then
    self.gradWeight:add(scale * self._prod:sum())
  elseif input:dim() == 1 then
    self.gradWeight:add(scale, self._prod)
  else
    local rest = 1  -- explicit sizes: a -1 cannot be resolved for an empty batch
    for d = 3, input:dim() do rest = rest * input:size(d) end
    local p = self._prod:view(input:size(1), self.nOutputPlane, rest)
    self.gradWeight:add(scale, p:sum(3):sum(1):view(self.nOutputPlane))
  end
end

function PReLU:__tostring__()
  return torch.typename(self)
end

return PReLU
