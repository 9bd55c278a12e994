-- nn.SpatialMaxUnpooling(poolingModule): the inverse of a 2D max pooling: each input value goes back
-- to the position its pooling module's `indices` recorded (1-based flat positions (h-1)*W + w in the
-- W-wide plane), the rest is zero; the output has the size of the pooling module's last input.
-- The code is written for n pooled dims (the class's _spec): nn.VolumetricMaxUnpooling is this
-- class with the 3D spec.
local F = require 'nn.functional_pool'
local SpatialMaxUnpooling, parent = torch.class('nn.SpatialMaxUnpooling', 'nn.Module')

-- The pooled dims' field names, outer dim first: the pooling module's last input size (recorded,
-- see below), the unpooling's output size, and the pooling window.
SpatialMaxUnpooling._spec = {
  name = 'nn.SpatialMaxUnpooling', layout = 'N x C x H x W', input = { 'iheight', 'iwidth' },
  output = { 'oheight', 'owidth' }, k = { 'kH', 'kW' }, d = { 'dH', 'dW' }, pad = { 'padH', 'padW' },
  dilation = { 'dilationH', 'dilationW' }, what = 'a max pooling module',
}

-- Note [Unpooling sizes]: flat indices only make sense in a plane of the pooling's input width, and
-- that size is not a function of the pooled size (floor mode drops up to d - 1 trailing cells), so
-- the unpooling needs the pooling module's last input size. Torch7 replaced the pooling module's
-- updateOutput with a closure recording iheight/iwidth; a checkpoint cannot hold a closure, so here
-- the updateOutput of the pooling module's class records them (wrapped once per class and spec:
-- for nn.SpatialMaxPooling, nn.SpatialDilatedMaxPooling and nn.VolumetricMaxPooling when nn loads,
-- for any other class when an unpooling is built or loaded on one of its modules). The kernel,
-- stride and padding check that the recorded size pools to the unpooling's input, so a stale size
-- is an error, not a scrambled result.
local wrapped = setmetatable({}, { __mode = 'k' })
function SpatialMaxUnpooling._recordInputSizes(class, spec)
  wrapped[class] = wrapped[class] or {}
  if wrapped[class][spec] or type(class) ~= 'table' or type(class.updateOutput) ~= 'function' then return end
  local forward, nd = class.updateOutput, #spec.input
  class.updateOutput = function(self, input)
    if torch.isTensor(input) and input:dim() >= nd then
      local n = input:dim()
      for i, f in ipairs(spec.input) do self[f] = input:size(n - nd + i) end
    end
    return forward(self, input)
  end
  wrapped[class][spec] = true
end
local record = SpatialMaxUnpooling._recordInputSizes

-- Loading an unpooling runs no constructor: wrap its pooling module's class then as well.
function SpatialMaxUnpooling._onLoad(class)
  local spec = class._spec
  torch.serialization.registerClassAlias(spec.name, spec.name, function(obj)
    if type(obj.pooling) == 'table' then record(getmetatable(obj.pooling), spec) end
  end)
end
SpatialMaxUnpooling._onLoad(SpatialMaxUnpooling)
for _, name in ipairs({ 'SpatialMaxPooling', 'SpatialDilatedMaxPooling' }) do
  pcall(require, 'nn.' .. name)
  if rawget(nn, name) then record(torch.getmetatable('nn.' .. name), SpatialMaxUnpooling._spec) end
end

function SpatialMaxUnpooling:__init(poolingModule)
  parent.__init(self)
  local spec = self._spec
  local ok = type(poolingModule) == 'table'
  local needed = {}
  for i = 1, #spec.k do needed[#needed + 1], needed[#needed + 2] = spec.k[i], spec.d[i] end
  for _, k in ipairs(needed) do ok = ok and type(poolingModule[k]) == 'number' end
  if not ok then
    F.init_error(spec.name, 'expected %s (with %s and indices), got %s', spec.what, table.concat(needed, ', '),
      torch.type(poolingModule))
  end
  self.pooling = poolingModule
  record(getmetatable(poolingModule), spec)
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
  local pool, spec = self.pooling, self._spec
  local nd, n = #spec.input, input:dim()
  record(getmetatable(pool), spec)
  self.indices = pool.indices
  for _, f in ipairs(spec.input) do
    if not pool[f] then
      F.fail(self, 'the pooling module has not recorded the size of its last input (%s): run its forward '
        .. 'before the unpooling (Note [Unpooling sizes])', table.concat(spec.input, ', '))
    end
  end
  local last, want, got = {}, {}, {}
  for i = 1, nd do
    self[spec.output[i]] = pool[spec.input[i]]
    last[i] = pool[spec.input[i]]
    want[i] = pooled(last[i], pool[spec.k[i]], pool[spec.d[i]], pool[spec.pad[i]] or 0, pool[spec.dilation[i]] or 1,
      pool.ceil_mode)
    got[i] = input:size(n - nd + i)
  end
  for i = 1, nd do
    if want[i] ~= got[i] then
      F.fail(self, "the pooling module's last input was %s, which pools to %s, not to the input's %s",
        table.concat(last, 'x'), table.concat(want, 'x'), table.concat(got, 'x'))
    end
  end
end

-- The input, indices and output seen as (planes x cells).
local function flat_views(self, input, output)
  local n, nd = input:dim(), #self._spec.input
  local cells, out_cells = 1, 1
  for i = 1, nd do
    cells = cells * input:size(n - nd + i)
    out_cells = out_cells * self[self._spec.output[i]]
  end
  local planes = cells > 0 and input:nElement() / cells or 0
  return input:reshape(planes, cells), self.indices:reshape(planes, cells), output:view(planes, out_cells)
end

function SpatialMaxUnpooling:updateOutput(input)
  local spec = self._spec
  local nd = #spec.input
  F.check_input(self, input, nd + 1, spec.layout)
  self:setParams(input)
  local idx = self.indices
  -- i64 indices (torch.LongTensor or torch.CudaLongTensor) on the input's device
  if not torch.isTensor(idx) or idx.p.dtype ~= 4 or idx:device() ~= input:device()
      or not idx:isSameSizeAs(input) then
    F.fail(self, "the pooling module's indices (%s) are not a LongTensor of the input's size %s on its device (its "
      .. 'last output)', torch.isTensor(idx) and torch.type(idx) .. ' of size ' .. F.size_str(idx) or F.size_str(idx),
      F.size_str(input))
  end
  local size, n = input:size(), input:dim()
  for i = 1, nd do size[n - nd + i] = self[spec.output[i]] end
  F.buffer(self, 'output', input):resize(size):zero()
  if input:nElement() > 0 then
    local x, i, y = flat_views(self, input, self.output)
    F.call(self, y.scatter, y, 2, i, x)
  end
  return self.output
end

function SpatialMaxUnpooling:updateGradInput(input, gradOutput)
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
function SpatialMaxUnpooling:clearState()
  self.indices = nil
  return parent.clearState(self)
end

function SpatialMaxUnpooling:__tostring__()
  return torch.type(self) .. ' associated to ' .. tostring(self.pooling)
end

return SpatialMaxUnpooling
