-- nn.CAdd(d1, d2, ...) or nn.CAdd(LongStorage): adds a learnable bias of that size. An input of the
-- same element count gets it elementwise; an input of the same number of dims gets it broadcast
-- along the bias's size-1 dims; otherwise the first input dim is a batch (Torch7).
local S = require 'nn.support'
local CAdd, parent = torch.class('nn.CAdd', 'nn.Module')

function CAdd:__init(...)
  parent.__init(self)
  local arg = { ... }
  local sizes = arg
  if #arg == 1 and torch.typename(arg[1]) == 'torch.LongStorage' then sizes = arg[1]:totable() end
  if #sizes == 0 then error('[nn.CAdd] expected the bias size, e.g. nn.CAdd(5) or nn.CAdd(1, 3, 1, 1)', torch._lib.user_level()) end
  for i, v in ipairs(sizes) do S.argInt('nn.CAdd', 'size ' .. i, v, 1) end
  self.size = torch.LongStorage(sizes)
  self.bias = torch.Tensor(self.size)
  self.gradBias = torch.Tensor(self.size)
  self:reset()
end

local function name(self) return 'nn.CAdd(' .. table.concat(self.size:totable(), 'x') .. ')' end

--- c:reset([stdv]): uniform(-stdv, stdv) bias, stdv = 1/sqrt(bias elements) by default.
function CAdd:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.bias:nElement())
  self.bias:uniform(-stdv, stdv)
  self.gradBias:zero()
  nn.utils.linkGradients(self)
  return self
end

-- The bias viewed so that it expands to `like` (a view of the input), and `like`.
local function aligned(self, t, input)
  S.tensor(name(self), input)
  local n = self.bias:nElement()
  if input:nElement() == n then return t:view(-1), input:contiguous():view(-1), 'flat' end
  if self.bias:dim() == input:dim() then
    for i = 1, input:dim() do
      if self.bias:size(i) ~= 1 and self.bias:size(i) ~= input:size(i) then
        S.fail(name(self), 'cannot broadcast the bias over an input of size %s', S.sizestr(input))
      end
    end
    return t, input, 'broadcast'
  end
  if input:dim() < 1 or input:nElement() ~= input:size(1) * n then
    S.fail(name(self), 'expected %d elements per sample (or a broadcastable input), got %s', n, S.describe(input))
  end
  return t:view(1, n), input:contiguous():view(input:size(1), n), 'batch'
end

function CAdd:updateOutput(input)
  local b, x = aligned(self, self.bias, input)
  self.output:resizeAs(input):copy(input)
  local out = self.output:view(x:size())
  out:add(b:expandAs(out))
  return self.output
end

function CAdd:updateGradInput(input, gradOutput)
  S.gradLike(name(self), gradOutput, input)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  return self.gradInput
end

function CAdd:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  S.gradLike(name(self), gradOutput, input)
  local gb, x = aligned(self, self.gradBias, input)
  local g = gradOutput:contiguous():view(x:size())
  -- Sum the gradient over every dim along which the bias was broadcast.
  for i = 1, g:dim() do
    if gb:size(i) == 1 and g:size(i) ~= 1 then g = g:sum(i) end
  end
  gb:add(scale, g)
end

return CAdd
