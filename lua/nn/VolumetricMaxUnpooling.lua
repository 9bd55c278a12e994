-- nn.VolumetricMaxUnpooling(poolingModule): the inverse of a 3D max pooling (nn.VolumetricMaxPooling
-- or nn.VolumetricDilatedMaxPooling): each input value goes back to the position its pooling
-- module's `indices` recorded (1-based (t-1)*H*W + (h-1)*W + w in the T x H x W volume), the rest
-- is zero; the output has the size of the pooling module's last input. Torch7 also required the
-- pooling's kernel to equal its stride; any window works here (overlapping windows that share a
-- maximum write it once).
local F = require 'nn.functional_pool'
local VolumetricMaxUnpooling, parent = torch.class('nn.VolumetricMaxUnpooling', 'nn.Module')

-- The pooling module's last input size (itime, iheight, iwidth) is recorded by its class's
-- updateOutput, wrapped once per class, as nn.SpatialMaxUnpooling does it (Note [Unpooling sizes]);
-- nn.VolumetricDilatedMaxPooling records them itself.
local wrapped = setmetatable({}, { __mode = 'k' })
local function record_input_sizes(class)
  if wrapped[class] or type(class) ~= 'table' or type(class.updateOutput) ~= 'function' then return end
  local forward = class.updateOutput
  class.updateOutput = function(self, input)
    if torch.isTensor(input) and input:dim() >= 3 then
      local n = input:dim()
      self.itime, self.iheight, self.iwidth = input:size(n - 2), input:size(n - 1), input:size(n)
    end
    return forward(self, input)
  end
  wrapped[class] = true
end
-- Loading an unpooling runs no constructor: wrap its pooling module's class then as well.
torch.serialization.registerClassAlias('nn.VolumetricMaxUnpooling', 'nn.VolumetricMaxUnpooling', function(obj)
  if type(obj.pooling) == 'table' then record_input_sizes(getmetatable(obj.pooling)) end
end)
pcall(require, 'nn.VolumetricMaxPooling')
if rawget(nn, 'VolumetricMaxPooling') then record_input_sizes(torch.getmetatable('nn.VolumetricMaxPooling')) end

function VolumetricMaxUnpooling:__init(poolingModule)
  parent.__init(self)
  local ok = type(poolingModule) == 'table'
  for _, k in ipairs({ 'kT', 'kW', 'kH', 'dT', 'dW', 'dH' }) do ok = ok and type(poolingModule[k]) == 'number' end
  if not ok then
    F.init_error('nn.VolumetricMaxUnpooling', 'expected a 3D max pooling module (with kT, kW, kH, dT, dW, dH and '
      .. 'indices), got %s', torch.type(poolingModule))
  end
  self.pooling = poolingModule
  record_input_sizes(getmetatable(poolingModule))
end

-- The pooled size of `size` cells (kernel k, stride d, padding p, dilation l).
local function pooled(size, k, d, p, l, ceil)
  local span = size + 2 * p - (l * (k - 1) + 1)
  if span < 0 then return 0 end
  local o = (ceil and math.ceil(span / d) or math.floor(span / d)) + 1
  if ceil and (o - 1) * d >= size + p then o = o - 1 end
  return o
end

--- u:setParams(input): takes the indices, the output size (its last input's) and the window from the
--- pooling module (Torch7's fields: otime, oheight, owidth, dT, dH, dW, padT, padH, padW).
function VolumetricMaxUnpooling:setParams(input)
  local pool = self.pooling
  record_input_sizes(getmetatable(pool))
  self.indices = pool.indices
  if not (pool.itime and pool.iheight and pool.iwidth) then
    F.fail(self, 'the pooling module has not recorded the size of its last input (itime, iheight, iwidth): run its '
      .. 'forward before the unpooling')
  end
  self.otime, self.oheight, self.owidth = pool.itime, pool.iheight, pool.iwidth
  self.dT, self.dH, self.dW = pool.dT, pool.dH, pool.dW
  self.padT, self.padH, self.padW = pool.padT or 0, pool.padH or 0, pool.padW or 0
  local n = input:dim()
  local want = {
    pooled(pool.itime, pool.kT, pool.dT, self.padT, pool.dilationT or 1, pool.ceil_mode),
    pooled(pool.iheight, pool.kH, pool.dH, self.padH, pool.dilationH or 1, pool.ceil_mode),
    pooled(pool.iwidth, pool.kW, pool.dW, self.padW, pool.dilationW or 1, pool.ceil_mode) }
  if want[1] ~= input:size(n - 2) or want[2] ~= input:size(n - 1) or want[3] ~= input:size(n) then
    F.fail(self, "the pooling module's last input was %dx%dx%d, which pools to %dx%dx%d, not to the input's %dx%dx%d",
      pool.itime, pool.iheight, pool.iwidth, want[1], want[2], want[3], input:size(n - 2), input:size(n - 1),
      input:size(n))
  end
end

-- The input, indices and output (or gradOutput) seen as planes x cells.
local function flat_views(self, input, output)
  local n = input:dim()
  local cells = input:size(n - 2) * input:size(n - 1) * input:size(n)
  local planes = cells > 0 and input:nElement() / cells or 0
  return input:reshape(planes, cells), self.indices:reshape(planes, cells),
    output:view(planes, self.otime * self.oheight * self.owidth)
end

function VolumetricMaxUnpooling:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  self:setParams(input)
  local idx = self.indices
  if not torch.isTensor(idx) or idx.p.dtype ~= 4 or idx:device() ~= input:device() or not idx:isSameSizeAs(input) then
    F.fail(self, "the pooling module's indices (%s) are not a LongTensor of the input's size %s on its device (its "
      .. 'last output)', torch.isTensor(idx) and torch.type(idx) .. ' of size ' .. F.size_str(idx) or F.size_str(idx),
      F.size_str(input))
  end
  local size = input:size()
  local n = input:dim()
  size[n - 2], size[n - 1], size[n] = self.otime, self.oheight, self.owidth
  F.buffer(self, 'output', input):resize(size):zero()
  if input:nElement() > 0 then
    local x, i, y = flat_views(self, input, self.output)
    F.call(self, y.scatter, y, 2, i, x)
  end
  return self.output
end

function VolumetricMaxUnpooling:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
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
function VolumetricMaxUnpooling:clearState()
  self.indices = nil
  return parent.clearState(self)
end

function VolumetricMaxUnpooling:__tostring__()
  return 'nn.VolumetricMaxUnpooling associated to ' .. tostring(self.pooling)
end

return VolumetricMaxUnpooling
