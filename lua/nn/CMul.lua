-- nn.CMul(d1, d2, ...) or nn.CMul(LongStorage): multiplies the input elementwise by a learnable
-- weight of that size: elementwise for an input of the same element count, broadcast along the
-- weight's size-1 dims for an input with as many dims, else over a leading batch dim (Torch7).
local S = require 'nn.support'
local CMul, parent = torch.class('nn.CMul', 'nn.Module')

function CMul:__init(...)
  parent.__init(self)
  local arg = { ... }
  local sizes = arg
  if #arg == 1 and torch.typename(arg[1]) == 'torch.LongStorage' then sizes = arg[1]:totable() end
  if #sizes == 0 then error('[nn.CMul] expected the weight size, e.g. nn.CMul(5) or nn.CMul(1, 3, 1, 1)', torch._lib.user_level()) end
  for i, v in ipairs(sizes) do S.argInt('nn.CMul', 'size ' .. i, v, 1) end
  self.size = torch.LongStorage(sizes)
  self.weight = torch.Tensor(self.size)
  self.gradWeight = torch.Tensor(self.size)
  self:reset()
end

local function name(self) return 'nn.CMul(' .. table.concat(self.size:totable(), 'x') .. ')' end

--- c:reset([stdv]): uniform(-stdv, stdv) weight, stdv = 1/sqrt(weight elements) by default.
function CMul:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:nElement())
  self.weight:uniform(-stdv, stdv)
  self.gradWeight:zero()
  nn.utils.linkGradients(self)
  return self
end

-- t (weight or gradWeight) viewed to line up with the input, and the input's matching size.
local function aligned(self, t, input)
  if not torch.isTensor(input) then S.fail(name(self), 'expected a tensor input, got %s', S.describe(input)) end
  local n = self.weight:nElement()
  if input:nElement() == n then return t:view(-1), torch.LongStorage({ n }) end
  if self.weight:dim() == input:dim() then
    for i = 1, input:dim() do
      if self.weight:size(i) ~= 1 and self.weight:size(i) ~= input:size(i) then
        S.fail(name(self), 'cannot broadcast the weight over an input of size %s', S.sizestr(input))
      end
    end
    return t, input:size()
  end
  if input:dim() < 1 or input:nElement() ~= input:size(1) * n then
    S.fail(name(self), 'expected %d elements per sample (or a broadcastable input), got %s', n, S.describe(input))
  end
  return t:view(1, n), torch.LongStorage({ input:size(1), n })
end

function CMul:updateOutput(input)
  local w, size = aligned(self, self.weight, input)
  self.output:resizeAs(input):copy(input)
  local out = self.output:view(size)
  out:cmul(w:expandAs(out))
  return self.output
end

function CMul:updateGradInput(input, gradOutput)
  local w, size = aligned(self, self.weight, input)
  S.gradLike(name(self), gradOutput, input)
  if torch.isGradEnabled() and (gradOutput:needsGrad() or self.weight:needsGrad()) then
    -- under createGraph (Note [Coarse nodes under createGraph]): an out-of-place product, so the
    -- gradient's graph reaches gradOutput and the weight; the in-place product on a view of the
    -- buffer was refused by autograd
    local go = gradOutput:contiguous():view(size)
    self.gradInput = torch.cmul(go, w:expandAs(go)):viewAs(input)
    return self.gradInput
  end
  self.gradInput:resizeAs(input):copy(gradOutput)
  local gi = self.gradInput:view(size)
  gi:cmul(w:expandAs(gi))
  return self.gradInput
end

function CMul:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local gw, size = aligned(self, self.gradWeight, input)
  S.gradLike(name(self), gradOutput, input)
  local p = torch.cmul(input:contiguous():view(size), gradOutput:contiguous():view(size))
  for i = 1, p:dim() do
    if gw:size(i) == 1 and p:size(i) ~= 1 then p = p:sum(i) end
  end
  -- into gradWeight itself rather than its aligned view: under createGraph the in-place add is
  -- recorded on the tensor autograd hands back (an add into a view of it was not followed)
  self.gradWeight:add(scale, p:viewAs(self.gradWeight))
end

return CMul
