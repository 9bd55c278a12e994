-- PyTorch's pooling and padding names as subclasses of Torch7's classes: nn.MaxPool1d/2d/3d,
-- AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d, ZeroPad2d, ReflectionPad2d,
-- ReplicationPad2d, with PyTorch's signatures (positionals or a trailing camelCase options table).
-- Note [1-D pooling on 2-D parents]: PyTorch's 1-D pools take C x L or N x C x L inputs, which
-- Torch7's Temporal* pools (frames x features) do not; the 1d classes extend the Spatial* pool with
-- a 1-row window and run it on the input viewed as C x 1 x L (N x C x 1 x L), so indices are the
-- 1-based positions along L. Sizes given as {h, w} follow PyTorch's order, the parents take W first.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
for _, f in ipairs({ 'SpatialDilatedMaxPooling', 'VolumetricDilatedMaxPooling', 'SpatialAveragePooling',
  'VolumetricAveragePooling', 'SpatialAdaptiveAveragePooling', 'SpatialAdaptiveMaxPooling', 'SpatialZeroPadding',
  'SpatialReflectionPadding', 'SpatialReplicationPadding' }) do
  require('nn.' .. f)
end

-- Runs a 2-D parent on a 1-D input viewed with a unit height (Note [1-D pooling on 2-D parents]).
local function lift_1d(cls, parent, name)
  local function lift(t) return t:unsqueeze(t:dim()) end
  function cls:updateOutput(input)
    if not torch.isTensor(input) or (input:dim() ~= 2 and input:dim() ~= 3) then
      lib.fail(name, 'expected a 2D (C x L) or 3D (N x C x L) input, got %s', nn.utils.describe(input))
    end
    self.output = self._output2d or self.output
    parent.updateOutput(self, lift(input))
    self._output2d = self.output
    self.output = self.output:select(self.output:dim() - 1, 1)
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    if not self.gradInput then return end
    local d = input:dim()
    local output = self.output
    self.output, self.gradInput = self._output2d or output, self._gradInput2d or self.gradInput
    parent.updateGradInput(self, lift(input), lift(gradOutput))
    self.output = output
    self._gradInput2d = self.gradInput
    self.gradInput = self.gradInput:select(d, 1)
    return self.gradInput
  end
end

-- Note [returnIndices on PyTorch-named pools]: PyTorch's module returns the tuple (output, indices);
-- here forward returns the table {output, indices} (m.output is that table, so containers pass it
-- on, as nn.ConcatTable's outputs), indices the parent's m.indices: a LongTensor of the output's
-- size holding PyTorch's flat position of each maximum in its input plane + 1 (Note [Max-pooling
-- indices]), what nn.functional.maxUnpool2d(output, indices, kernelSize...) and nn.SpatialMaxUnpooling take.
-- The gradient with respect to the indices is none: Torch7's backward takes {gradOutput, anything}
-- or gradOutput alone, and gives the input's gradient.
local function return_indices(cls, lifted)
  local out, gin = cls.updateOutput, cls.updateGradInput
  function cls:updateOutput(input)
    if not self.returnIndices then return out(self, input) end
    if type(self.output) == 'table' then self.output = self._values or torch.Tensor() end
    local y = out(self, input)
    local idx = self.indices
    if lifted then idx = idx:select(idx:dim() - 1, 1) end
    self._values = y
    self.output = { y, idx }
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    if not self.returnIndices then return gin(self, input, gradOutput) end
    if type(gradOutput) == 'table' then gradOutput = gradOutput[1] end
    local o = self.output
    self.output = self._values
    local ok, r = pcall(gin, self, input, gradOutput)
    self.output = o
    if not ok then error(r, 0) end
    return r
  end
end

local function check_pad(name, k, p)
  for d = 1, #k do
    if p[d] > k[d] / 2 then lib.fail(name, 'padding %d must be at most half the kernel size %d', p[d], k[d]) end
  end
end

-- nn.MaxPool1d/2d/3d(kernelSize [, stride = kernelSize, padding = 0, dilation = 1, returnIndices =
-- false, ceilMode = false]): PyTorch's max pools; with returnIndices forward gives {output, indices}
-- (Note [returnIndices on PyTorch-named pools]); the 1-based indices are in m.indices either way.
for nd, parent_name in ipairs({ 'nn.SpatialDilatedMaxPooling', 'nn.SpatialDilatedMaxPooling',
  'nn.VolumetricDilatedMaxPooling' }) do
  local name = 'nn.MaxPool' .. nd .. 'd'
  local cls, parent = torch.class(name, parent_name)
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'kernelSize', 'stride', 'padding', 'dilation', 'returnIndices', 'ceilMode' }, ...)
    local k = P.tuple(name, 'kernelSize', o.kernelSize, nd)
    local s = P.tuple(name, 'stride', o.stride, nd, k)
    local p = P.tuple(name, 'padding', o.padding, nd, 0, 0)
    local d = P.tuple(name, 'dilation', o.dilation, nd, 1)
    check_pad(name, k, p)
    if nd == 1 then
      parent.__init(self, k[1], 1, s[1], 1, p[1], 0, d[1], 1)
    elseif nd == 2 then
      parent.__init(self, k[2], k[1], s[2], s[1], p[2], p[1], d[2], d[1])
    else
      parent.__init(self, k[1], k[3], k[2], s[1], s[3], s[2], p[1], p[3], p[2], d[1], d[3], d[2])
    end
    if P.bool(name, 'ceilMode', o.ceilMode, false) then self:ceil() end
    self.returnIndices = P.bool(name, 'returnIndices', o.returnIndices, false) or nil
  end
  if nd == 1 then lift_1d(cls, parent, name) end
  return_indices(cls, nd == 1)
end

-- nn.AvgPool1d/2d/3d(kernelSize [, stride = kernelSize, padding = 0, ceilMode = false,
-- countIncludePad = true, divisorOverride]): PyTorch's average pools. With a divisorOverride (2d
-- and 3d, as PyTorch) each window's sum is divided by it: the module then runs nn.functional's
-- pooling (Note [divisorOverride], functional_pool.lua), its backward through autograd.
for nd, parent_name in ipairs({ 'nn.SpatialAveragePooling', 'nn.SpatialAveragePooling',
  'nn.VolumetricAveragePooling' }) do
  local name = 'nn.AvgPool' .. nd .. 'd'
  local cls, parent = torch.class(name, parent_name)
  cls.__init = function(self, ...)
    local names = { 'kernelSize', 'stride', 'padding', 'ceilMode', 'countIncludePad' }
    if nd > 1 then names[6] = 'divisorOverride' end
    local o = P.parse(name, names, ...)
    local k = P.tuple(name, 'kernelSize', o.kernelSize, nd)
    local s = P.tuple(name, 'stride', o.stride, nd, k)
    local p = P.tuple(name, 'padding', o.padding, nd, 0, 0)
    check_pad(name, k, p)
    if o.divisorOverride ~= nil then
      local d = o.divisorOverride
      if type(d) ~= 'number' or d ~= math.floor(d) or d == 0 then
        lib.fail(name, 'divisorOverride must be a nonzero integer, got %s', nn.utils.describe(d))
      end
      self.divisorOverride, self._window = d, { k, s, p }
    end
    if nd == 1 then
      parent.__init(self, k[1], 1, s[1], 1, p[1], 0)
    elseif nd == 2 then
      parent.__init(self, k[2], k[1], s[2], s[1], p[2], p[1])
    else
      parent.__init(self, k[1], k[3], k[2], s[1], s[3], s[2], p[1], p[3], p[2])
    end
    if P.bool(name, 'ceilMode', o.ceilMode, false) then self:ceil() end
    if not P.bool(name, 'countIncludePad', o.countIncludePad, true) then self:setCountExcludePad() end
  end
  if nd == 1 then lift_1d(cls, parent, name) end
  if nd > 1 then
    local op = 'avgPool' .. nd .. 'd'
    local function pooled(self, x)
      local w = self._window
      return require('nn.functional_pool').avgPoolDivisor(op, nd, x, w[1], w[2], w[3], self.ceil_mode,
        self.divisorOverride)
    end
    function cls:updateOutput(input)
      if self.divisorOverride == nil then return parent.updateOutput(self, input) end
      self.output = torch.noGrad(function() return pooled(self, input) end)
      return self.output
    end
    function cls:updateGradInput(input, gradOutput)
      if self.divisorOverride == nil then return parent.updateGradInput(self, input, gradOutput) end
      local x = input:detach():requiresGrad()
      self.gradInput = torch.enableGrad(function()
        return torch.autograd.grad({ pooled(self, x) }, { x }, { gradOutput })[1]
      end)
      return self.gradInput
    end
  end
end

-- Note [None in adaptive output sizes]: PyTorch's AdaptiveXPool2d((None, 7)) keeps the input's
-- size in the None dims. In Lua {nil, 7} (or false for nil) does that: the parent's H/W of a kept
-- dim are set from each input before its forward and backward.
local function adaptive_size(name, v)
  if type(v) ~= 'table' or torch.isTensor(v) or (v[1] ~= nil and v[1] ~= false and v[2] ~= nil and v[2] ~= false) then
    return P.tuple(name, 'outputSize', v, 2), nil
  end
  for k in pairs(v) do
    if k ~= 1 and k ~= 2 then lib.fail(name, 'expected outputSize as {h, w} (nil keeps a size), got a key %s', tostring(k)) end
  end
  local keep, t = {}, {}
  for d = 1, 2 do
    if v[d] == nil or v[d] == false then keep[d], t[d] = true, 1 else t[d] = v[d] end
  end
  return P.tuple(name, 'outputSize', t, 2), keep
end

local function keep_sizes(cls)
  local out, gin = cls.updateOutput, cls.updateGradInput
  local function set(self, input)
    local k = self._keepSize
    if k and torch.isTensor(input) and input:dim() >= 2 then
      if k[1] then self.H = input:size(input:dim() - 1) end
      if k[2] then self.W = input:size(input:dim()) end
    end
  end
  function cls:updateOutput(input) set(self, input) return out(self, input) end
  function cls:updateGradInput(input, gradOutput) set(self, input) return gin(self, input, gradOutput) end
end

-- nn.AdaptiveAvgPool1d/2d(outputSize) and nn.AdaptiveMaxPool1d/2d(outputSize [, returnIndices =
-- false]): PyTorch's adaptive pools; outputSize a number or {h, w}, where a nil (or false) entry
-- keeps that dim's input size (Note [None in adaptive output sizes]); with returnIndices forward
-- gives {output, indices} (Note [returnIndices on PyTorch-named pools]).
for _, kind in ipairs({ 'Avg', 'Max' }) do
  for nd = 1, 2 do
    local name = 'nn.Adaptive' .. kind .. 'Pool' .. nd .. 'd'
    local cls, parent = torch.class(name, 'nn.SpatialAdaptive' .. (kind == 'Avg' and 'Average' or 'Max') .. 'Pooling')
    cls.__init = function(self, ...)
      local o = P.parse(name, kind == 'Max' and { 'outputSize', 'returnIndices' } or { 'outputSize' }, ...)
      local s, keep
      if nd == 1 then s = P.tuple(name, 'outputSize', o.outputSize, nd) else s, keep = adaptive_size(name, o.outputSize) end
      if nd == 1 then parent.__init(self, s[1], 1) else parent.__init(self, s[2], s[1]) end
      self._keepSize = keep
      if kind == 'Max' then self.returnIndices = P.bool(name, 'returnIndices', o.returnIndices, false) or nil end
    end
    if nd == 1 then lift_1d(cls, parent, name) else keep_sizes(cls) end
    if kind == 'Max' then return_indices(cls, nd == 1) end
  end
end

-- nn.ZeroPad2d(padding), nn.ReflectionPad2d(padding), nn.ReplicationPad2d(padding): PyTorch's 2-D
-- pads; padding a number or {left, right, top, bottom} (PyTorch's order, which is Torch7's).
for _, spec in ipairs({ { 'ZeroPad2d', 'Zero' }, { 'ReflectionPad2d', 'Reflection' },
  { 'ReplicationPad2d', 'Replication' } }) do
  local name = 'nn.' .. spec[1]
  local cls, parent = torch.class(name, 'nn.Spatial' .. spec[2] .. 'Padding')
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'padding' }, ...)
    local p = P.tuple(name, 'padding', o.padding, 4, nil, spec[2] == 'Zero' and -math.huge or 0)
    parent.__init(self, p[1], p[2], p[3], p[4])
  end
end

return nn.MaxPool2d
