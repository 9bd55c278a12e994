-- nn.SpatialMaxUnpooling(poolingModule): the inverse of a 2D max pooling: each input value goes back
-- to the position its pooling module's `indices` recorded (1-based flat positions (h-1)*W + w in the
-- W-wide plane), the rest is zero; the output has the size of the pooling module's last input.
local F = require 'nn.functional_pool'
local SpatialMaxUnpooling, parent = torch.class('nn.SpatialMaxUnpooling', 'nn.Module')

-- Note [Unpooling sizes]: flat indices only make sense in a plane of the pooling's input width, and
-- that size is not a function of the pooled size (floor mode drops up to d - 1 trailing cells), so
-- the unpooling needs the pooling module's last input size. Torch7 replaced the pooling module's
-- updateOutput with a closure recording iheight/iwidth; a checkpoint cannot hold a closure, so here
-- the updateOutput of the pooling module's class records them (wrapped once per class: for
-- nn.SpatialMaxPooling and nn.SpatialDilatedMaxPooling when nn loads, for any other class when an
-- unpooling is built or loaded on one of its modules). The kernel, stride and padding check that
-- the recorded size pools to the unpooling's input, so a stale size is an error, not a scrambled
-- result.
local wrapped = setmetatable({}, { __mode = 'k' })
local function record_input_sizes(class)
  if wrapped[class] or type(class) ~= 'table' or type(class.updateOutput) ~= 'function' then return end
  local forward = class.updateOutput
  class.updateOutput = function(self, input)
    if torch.isTensor(input) and input:dim() >= 2 then
      self.iheight, self.iwidth = input:size(input:dim() - 1), input:size(input:dim())
    end
    return forward(self, input)
  end
  wrapped[class] = true
end
-- Loading an unpooling runs no constructor: wrap its pooling module's class then as well.
torch.serialization.registerClassAlias('nn.SpatialMaxUnpooling', 'nn.SpatialMaxUnpooling', function(obj)
  if type(obj.pooling) == 'table' then record_input_sizes(getmetatable(obj.pooling)) end
end)
for _, name in ipairs({ 'SpatialMaxPooling', 'SpatialDilatedMaxPooling' }) do
  pcall(require, 'nn.' .. name)
  if rawget(nn, name) then record_input_sizes(torch.getmetatable('nn.' .. name)) end
end

function SpatialMaxUnpooling:__init(poolingModule)
  parent.__init(self)
  local ok = type(poolingModule) == 'table'
  for _, k in ipairs({ 'kW', 'kH', 'dW', 'dH' }) do ok = ok and type(poolingModule[k]) == 'number' end
  if not ok then
    F.init_error('nn.SpatialMaxUnpooling', 'expected a max pooling module (with kW, kH, dW, dH and indices), got %s',
      torch.type(poolingModule))
  end
  self.pooling = poolingModule
  record_input_sizes(getmetatable(poolingModule))
end

-- The pooled size of `size` cells with kernel k, stride d, padding p and dilation l.
local function pooled(size, k, d, p, l, ceil)
  local span = size + 2 * p - (l * (k - 1) + 1)
  if span < 0 then return 0 end
  local o = (ceil and math.ceil(span / d) or math.floor(span / d)) + 1
  if ceil and (o - 1) * d >= size + p then o = o - 1 end
  return o
end

--- u:setParams(input): takes the indices and the output size (its last input's) from the pooling module.
function SpatialMaxUnpooling:setParams(input)
  local pool = self.pooling
  record_input_sizes(getmetatable(pool))
  self.indices = pool.indices
  if not (pool.iheight and pool.iwidth) then
    F.fail(self, 'the pooling module has not recorded the size of its last input (iheight, iwidth): run its forward '
      .. 'before the unpooling (Note [Unpooling sizes])')
  end
  self.oheight, self.owidth = pool.iheight, pool.iwidth
  local n = input:dim()
  local ph = pooled(pool.iheight, pool.kH, pool.dH, pool.padH or 0, pool.dilationH or 1, pool.ceil_mode)
  local pw = pooled(pool.iwidth, pool.kW, pool.dW, pool.padW or 0, pool.dilationW or 1, pool.ceil_mode)
  if ph ~= input:size(n - 1) or pw ~= input:size(n) then
    F.fail(self, "the pooling module's last input was %dx%d, which pools to %dx%d, not to the input's %dx%d",
      pool.iheight, pool.iwidth, ph, pw, input:size(n - 1), input:size(n))
  end
end

-- The input, indices and output seen as (planes x cells).
local function flat_views(self, input, output)
  local n = input:dim()
  local cells = input:size(n - 1) * input:size(n)
  local planes = cells > 0 and input:nElement() / cells or 0
  return input:reshape(planes, cells), self.indices:reshape(planes, cells),
    output:view(planes, self.oheight * self.owidth)
end

function SpatialMaxUnpooling:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  self:setParams(input)
  local idx = self.indices
  -- i64 indices (torch.LongTensor or torch.CudaLongTensor) on the input's device
  if not torch.isTensor(idx) or idx.p.dtype ~= 4 or idx:device() ~= input:device()
      or not idx:isSameSizeAs(input) then
    F.fail(self, "the pooling module's indices (%s) are not a LongTensor of the input's size %s on its device (its last output)",
      torch.isTensor(idx) and torch.type(idx) .. ' of size ' .. F.size_str(idx) or F.size_str(idx), F.size_str(input))
  end
  local size = input:size()
  size[input:dim() - 1], size[input:dim()] = self.oheight, self.owidth
  F.buffer(self, 'output', input):resize(size):zero()
  if input:nElement() > 0 then
    local x, i, y = flat_views(self, input, self.output)
    F.call(self, y.scatter, y, 2, i, x)
  end
  return self.output
end

function SpatialMaxUnpooling:updateGradInput(input, gradOutput)
  if not gradOutput:isSameSizeAs(self.output) then
    F.fail(self, 'gradOutput of size %s does not match the output of size %s', F.size_str(gradOutput),
      F.size_str(self.output))
  end
  F.buffer(self, 'gradInput', gradOutput):resizeAs(input)
  if input:nElement() > 0 then
    local _, i, g = flat_views(self, input, gradOutput:contiguous())
    F.call(self, torch.gather, self.gradInput:view(i:size()), g, 2, i)
  end
  return self.gradInput
end

-- The indices belong to the pooling module; setParams takes them again at the next forward.
function SpatialMaxUnpooling:clearState()
  self.indices = nil
  return parent.clearState(self)
end

function SpatialMaxUnpooling:__tostring__()
  return 'nn.SpatialMaxUnpooling associated to ' .. tostring(self.pooling)
end

return SpatialMaxUnpooling
