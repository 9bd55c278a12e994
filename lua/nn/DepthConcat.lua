-- nn.DepthConcat(dim): nn.Concat for children whose outputs differ in size along the other dims
-- (Inception branches with different spatial sizes): each output is centred in a zero-padded
-- window of the largest size, then the windows are concatenated along dim (Torch7).
require 'nn.Concat'
local S = require 'nn.support'
local DepthConcat, parent = torch.class('nn.DepthConcat', 'nn.Concat')

--- nn.DepthConcat(dim): applies every child to the input and concatenates their outputs along dim
--- (negative counts from the end), zero-padding smaller outputs around the centre (an odd excess
--- puts the extra zero after, as Torch7's floor((max - size) / 2) + 1 start does).
--- Example: nn.DepthConcat(2):add(nn.SpatialConvolution(3, 4, 1, 1)):add(nn.SpatialConvolution(3, 2, 3, 3))
function DepthConcat:__init(dimension)
  nn.Container.__init(self)
  self.dimension = S.argInt('nn.DepthConcat', 'dimension', dimension)
  if dimension == 0 then error('[nn.DepthConcat] dimension 0 is out of range (dims are 1-based)', torch._lib.user_level()) end
end

local function name(self) return string.format('nn.DepthConcat(%d)', self.dimension) end

-- The concatenation dim and the output's size (sum along dim, maximum along the others).
local function layout(self, outs)
  local first = outs[1]
  if not torch.isTensor(first) then S.fail(name(self), 'module 1 returned %s, expected a tensor', S.describe(first)) end
  local d = S.dim(name(self), self.dimension, first)
  local sizes = first:size():totable()
  for i = 2, #outs do
    local o = outs[i]
    if not torch.isTensor(o) or o:dim() ~= first:dim() then
      S.fail(name(self), 'module %d returned %s but module 1 returned size %s: they must have the same number of dims',
        i, S.describe(o), S.sizestr(first))
    end
    for k = 1, #sizes do
      if k == d then sizes[k] = sizes[k] + o:size(k) else sizes[k] = math.max(sizes[k], o:size(k)) end
    end
  end
  return d, sizes
end

-- Zeros before o along dim k in the padded output.
local function before(sizes, o, k) return math.floor((sizes[k] - o:size(k)) / 2) end

-- The window of t (shaped like the output) that holds child output o, which starts at offset.
local function window(t, o, d, sizes, offset)
  local w = t:narrow(d, offset, o:size(d))
  for k = 1, #sizes do
    if k ~= d and sizes[k] ~= o:size(k) then w = w:narrow(k, before(sizes, o, k) + 1, o:size(k)) end
  end
  return w
end

function DepthConcat:updateOutput(input)
  if #self.modules == 0 then S.fail(name(self), 'has no modules') end
  local outs = {}
  for i, m in ipairs(self.modules) do outs[i] = self:rethrowErrors(m, i, 'forward', input) end
  local d, sizes = layout(self, outs)
  self._dim = d
  if S.recording(outs) then
    -- Under autograd: each output zero-padded by a recorded op, then concatenated.
    local padded = {}
    for i, o in ipairs(outs) do
      local pads, any = {}, false
      for k = o:dim(), 1, -1 do
        local b, a = 0, 0
        if k ~= d then b = before(sizes, o, k) a = sizes[k] - o:size(k) - b end
        pads[#pads + 1], pads[#pads + 2] = b, a
        any = any or b > 0 or a > 0
      end
      padded[i] = any and nn.functional.pad(o, pads) or o
    end
    self.output = torch.cat(padded, d)
    return self.output
  end
  if not torch.isTensor(self.output) or self.output:needsGrad() or self.output:type() ~= outs[1]:type() then
    self.output = outs[1].new()
  end
  self.output:resize(torch.LongStorage(sizes)):zero()
  local offset = 1
  for _, o in ipairs(outs) do
    window(self.output, o, d, sizes, offset):copy(o)
    offset = offset + o:size(d)
  end
  return self.output
end

-- Runs method on each child with its window of gradOutput; sums the children's gradInputs.
local function backward(self, method, input, gradOutput, scale)
  local outs = {}
  for i, m in ipairs(self.modules) do outs[i] = m.output end
  local d, sizes = layout(self, outs)
  S.gradLike(name(self), gradOutput, sizes)
  local pieces, offset = {}, 1
  for i, o in ipairs(outs) do
    pieces[i] = window(gradOutput, o, d, sizes, offset)
    offset = offset + o:size(d)
  end
  return self:_childrenBackward(method, input, pieces, scale)
end
-- Concat's updateGradInput/backward/accGradParameters/accUpdateGradParameters call this
DepthConcat._branchBackward = backward

return DepthConcat
