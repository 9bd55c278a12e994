-- nn.SpatialDilatedMaxPooling(kW, kH [, dW = kW, dH = kH] [, padW = 0, padH = 0] [, dilationW = 1,
-- dilationH = 1]): Torch7's max pooling of C x H x W or N x C x H x W inputs over windows whose taps
-- lie dilation cells apart; :ceil()/:floor() as nn.SpatialMaxPooling. m.indices follows Note
-- [Max-pooling indices] (1-based (h-1)*W + w), so nn.SpatialMaxUnpooling takes them. The C pooling
-- ops have no dilation: this file also owns the n-d dilated max pooling built from existing ops
-- (SpatialDilatedMaxPooling._pool), which nn.VolumetricDilatedMaxPooling shares.
require 'nn.SpatialMaxPooling'
local S = require 'nn.support'
local unpack = table.unpack or unpack
local F = require 'nn.functional_pool'
local SpatialDilatedMaxPooling, parent = torch.class('nn.SpatialDilatedMaxPooling', 'nn.SpatialMaxPooling')

-- Constructor checks (errors at the user's line, which F.init_error finds): integers, at least min.
local function ints(name, names, values, min)
  for i = 1, #names do  -- not ipairs(values): it stops at a missing (nil) size
    local v = values[i]
    if not S.isint(v) or v < min then
      F.init_error(name, '%s must be an integer >= %d, got %s', names[i], min, type(v) == 'number' and tostring(v)
        or S.describe(v))
    end
  end
end
SpatialDilatedMaxPooling._checkInts = ints

function SpatialDilatedMaxPooling:__init(kW, kH, dW, dH, padW, padH, dilationW, dilationH)
  local name = 'nn.SpatialDilatedMaxPooling'
  dW, dH, padW, padH = dW or kW, dH or kH, padW or 0, padH or 0
  ints(name, { 'kW', 'kH', 'dW', 'dH' }, { kW, kH, dW, dH }, 1)
  ints(name, { 'padW', 'padH' }, { padW, padH }, 0)
  ints(name, { 'dilationW', 'dilationH' }, { dilationW or 1, dilationH or 1 }, 1)
  if padW > kW / 2 or padH > kH / 2 then
    F.init_error(name, 'padding %d,%d must be at most half the kernel %dx%d', padW, padH, kW, kH)
  end
  parent.__init(self, kW, kH, dW, dH, padW, padH)
  self.dilationW = dilationW or 1
  self.dilationH = dilationH or 1
end

-- The pooled size of `size` cells (Note [Pooling output size] with the dilated window's span
-- l * (k - 1) + 1); 0 when the window does not fit.
local function pooled(size, k, d, p, l, ceil)
  local span = size + 2 * p - (l * (k - 1) + 1)
  if span < 0 then return 0 end
  local o = (ceil and math.ceil(span / d) or math.floor(span / d)) + 1
  if ceil and (o - 1) * d >= size + p then o = o - 1 end  -- the last window would start in the right padding
  return o
end

-- A CPU LongTensor copied to the device of `like`.
local function on_device(t, like)
  if like:device() == t:device() then return t end
  local r = nn.utils.longBuffer(nil, like)
  return r:resize(t:size()):copy(t)
end

--- SpatialDilatedMaxPooling._pool(m, input, k, d, p, l, ceil): max pooling of input's last #k dims
--- (k, d, p, l: kernel, stride, padding, dilation per pooled dim, outer dim first) into m.output and
--- m.indices (1-based flat positions in the pooled volume, e.g. (t-1)*H*W + (h-1)*W + w).
-- Note [Dilated max pooling from taps]: the input is padded with -inf and each kernel tap is a
-- strided view (narrow + unfold) of the output's shape; a running maximum over the taps in window
-- order with Torch7's rule (take v when v > max or v is NaN) gives the first maximum, or the last
-- NaN, exactly as the C max poolings do. The running index starts at each window's first tap
-- inside the input (what the C kernels start from), so a window of -inf still names an input cell;
-- padding (-inf) never wins. A window that holds only padding (possible with dilation) is an error:
-- Torch7 returned an index outside the plane there.
function SpatialDilatedMaxPooling._pool(m, input, k, d, p, l, ceil)
  local nd = #k
  local first = input:dim() - nd
  local osize, pads, o = input:size(), {}, {}
  -- CPU LongTensors of size 1 x .. x o_1 x .. x o_nd: the flat index of each window's tap 0 and of
  -- its first tap inside the input
  local base, first_tap
  local plane = 1
  for i = nd, 1, -1 do
    local size = input:size(first + i)
    o[i] = pooled(size, k[i], d[i], p[i], l[i], ceil)
    if o[i] < 1 then
      F.fail(m, 'input of size %s is too small: its dim %d (%d, padding %d) is shorter than the dilated kernel %d',
        F.size_str(input), first + i, size, p[i], l[i] * (k[i] - 1) + 1)
    end
    osize[first + i] = o[i]
    -- F.pad's order (last dim first); ceil mode may need more than p[i] cells on the right
    pads[2 * (nd - i) + 1] = p[i]
    pads[2 * (nd - i) + 2] = math.max(0, (o[i] - 1) * d[i] + l[i] * (k[i] - 1) + 1 - size - p[i])
    local starts, valid = torch.LongTensor(o[i]), torch.LongTensor(o[i])
    for j = 1, o[i] do  -- one pass over this dim's windows (not over tensor elements)
      local s = (j - 1) * d[i] - p[i]
      local c = s < 0 and s + math.ceil(-s / l[i]) * l[i] or s
      if c >= size or c > s + l[i] * (k[i] - 1) then
        F.fail(m, 'window %d along dim %d of an input of size %s holds only padding', j, first + i, F.size_str(input))
      end
      starts[j], valid[j] = s * plane, c * plane
    end
    local shape = {}  -- broadcasts against the output
    for q = 1, input:dim() do shape[q] = q == first + i and o[i] or 1 end
    local sv, vv = starts:view(unpack(shape)), valid:view(unpack(shape))
    base = base and base + sv or sv + 1
    first_tap = first_tap and first_tap + vv or vv + 1
    plane = plane * size
  end
  local x = input
  for _, q in ipairs(pads) do
    if q > 0 then x = F.pad(nil, input, pads, 0, -math.huge) break end
  end
  base, first_tap = on_device(base, input), on_device(first_tap, input)
  local best, index = x.new(osize):fill(-math.huge), first_tap:expand(osize)
  local nan = torch.ne(input, input):any()  -- the NaN rule costs two passes per tap: only when needed
  local tap = {}
  for i = 1, nd do tap[i] = 0 end
  while true do
    local v, offset, stride = x, 0, 1
    for i = nd, 1, -1 do offset = offset + tap[i] * l[i] * stride; stride = stride * input:size(first + i) end
    for i = 1, nd do v = v:narrow(first + i, tap[i] * l[i] + 1, (o[i] - 1) * d[i] + 1):unfold(first + i, 1, d[i]) end
    for _ = 1, nd do v = v:select(v:dim(), 1) end
    local take = torch.gt(v, best)
    if nan then take = torch.logicalOr(take, torch.ne(v, v)) end
    best = torch.where(take, v, best)
    index = torch.where(take, base + offset, index)
    -- next tap, last dim fastest (window order)
    local i = nd
    while i >= 1 and tap[i] == k[i] - 1 do tap[i] = 0; i = i - 1 end
    if i < 1 then break end
    tap[i] = tap[i] + 1
  end
  F.buffer(m, 'output', input):resize(osize):copy(best)
  m.indices = nn.utils.longBuffer(m.indices, input)
  m.indices:resize(osize):copy(index)
  return m.output
end

--- SpatialDilatedMaxPooling._backward(m, input, gradOutput, nd): the gradient of _pool, gradOutput
--- added where m.indices point.
function SpatialDilatedMaxPooling._backward(m, input, gradOutput, nd)
  if not m.gradInput then return end
  S.gradLike(tostring(m), gradOutput, m.output)
  F.call(m, F.maxPoolBackward, F.buffer(m, 'gradInput', gradOutput), gradOutput, m.indices, input, nd)
  return m.gradInput
end

-- A floating tensor (-inf pads it).
function SpatialDilatedMaxPooling._checkFloating(m, input)
  if not nn.utils.isFloating(input) then
    F.fail(m, 'expected a floating-point tensor input, got %s', S.describe(input))
  end
end

-- Without dilation the C max pooling computes the same thing (values, indices, gradients), faster.
local function undilated(self) return (self.dilationW or 1) == 1 and (self.dilationH or 1) == 1 end

function SpatialDilatedMaxPooling:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  SpatialDilatedMaxPooling._checkFloating(self, input)
  -- recorded for nn.SpatialMaxUnpooling, as Torch7 did
  self.iheight, self.iwidth = input:size(input:dim() - 1), input:size(input:dim())
  if undilated(self) then return parent.updateOutput(self, input) end
  return SpatialDilatedMaxPooling._pool(self, input, { self.kH, self.kW }, { self.dH, self.dW },
    { self.padH or 0, self.padW or 0 }, { self.dilationH or 1, self.dilationW or 1 }, self.ceil_mode)
end

function SpatialDilatedMaxPooling:updateGradInput(input, gradOutput)
  if undilated(self) then
    S.gradLike(tostring(self), gradOutput, self.output)
    return parent.updateGradInput(self, input, gradOutput)
  end
  return SpatialDilatedMaxPooling._backward(self, input, gradOutput, 2)
end

function SpatialDilatedMaxPooling:__tostring__()
  local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
  if (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then s = s .. ', ' .. self.padW .. ',' .. self.padH end
  return s .. ', ' .. (self.dilationW or 1) .. ',' .. (self.dilationH or 1) .. ')'
end

return SpatialDilatedMaxPooling
