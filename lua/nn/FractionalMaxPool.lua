-- nn.FractionalMaxPool2d/3d(kernelSize [, outputSize, outputRatio, returnIndices = false,
-- _randomSamples]): PyTorch's fractional max pooling modules on nn.functional.fractionalMaxPool2d/3d
-- (N x C x H x W or C x H x W; 3d: N x C x T x H x W or C x T x H x W). Give outputSize (a number or
-- one per dim) or outputRatio (in (0, 1)). With returnIndices forward gives {output, indices}
-- (Note [returnIndices on PyTorch-named pools], nn/pytorch_names_pool.lua); the 1-based indices are
-- in m.indices either way.
--
-- Note [Fractional pooling samples]: each forward draws N x C x nd uniforms (PyTorch's
-- _random_samples: W's then H's in 2d, T, H, W in 3d) unless _randomSamples was given, in which case
-- those are used every time (their N x C must match the input's). The samples of the last forward
-- are kept in m.samples, and the backward scatters gradOutput to m.indices, so Torch7's separate
-- backward and autograd both differentiate the pooling the forward drew.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'

for nd = 2, 3 do
  local name = 'nn.FractionalMaxPool' .. nd .. 'd'
  local cls, parent = torch.class(name, 'nn.Module')
  cls.__init = function(self, ...)
    parent.__init(self)
    local o = P.parse(name, { 'kernelSize', 'outputSize', 'outputRatio', 'returnIndices', '_randomSamples' }, ...)
    self.kernelSize = P.tuple(name, 'kernelSize', o.kernelSize, nd)
    if (o.outputSize == nil) == (o.outputRatio == nil) then
      lib.fail(name, 'give exactly one of outputSize and outputRatio')
    end
    if o.outputSize ~= nil then self.outputSize = P.tuple(name, 'outputSize', o.outputSize, nd) end
    if o.outputRatio ~= nil then
      local r = o.outputRatio
      if type(r) == 'number' then r = {} for d = 1, nd do r[d] = o.outputRatio end end
      if type(r) ~= 'table' or #r ~= nd then
        lib.fail(name, 'expected outputRatio as a number or a table of %d numbers, got %s', nd, nn.utils.describe(o.outputRatio))
      end
      for d = 1, nd do
        if type(r[d]) ~= 'number' or r[d] <= 0 or r[d] >= 1 then
          lib.fail(name, 'outputRatio must lie in (0, 1), got %s', tostring(r[d]))
        end
      end
      self.outputRatio = r
    end
    self.returnIndices = P.bool(name, 'returnIndices', o.returnIndices, false) or nil
    if o._randomSamples ~= nil then
      local s = o._randomSamples
      if not torch.isTensor(s) or s:dim() ~= 3 or s:size(3) ~= nd then
        lib.fail(name, '_randomSamples must be an N x C x %d tensor, got %s', nd, nn.utils.describe(s))
      end
      self._randomSamples = s
    end
    self.indices = torch.LongTensor()
  end

  cls.updateOutput = function(self, input)
    nn.utils.checkFloatInput(self, input)
    local f = nn.functional['fractionalMaxPool' .. nd .. 'd']
    local samples = self._randomSamples
    if samples == nil and (input:dim() == nd + 1 or input:dim() == nd + 2) then
      local b = input:dim() == nd + 2
      samples = torch.rand(b and input:size(1) or 1, input:size(b and 2 or 1), nd):typeAs(input)
    end
    local ok, y, idx = pcall(f, input, self.kernelSize, self.outputSize, self.outputRatio, true, samples)
    if not ok then error('[' .. name .. '] ' .. tostring(y):gsub('^[^\n]-:%d+: ', ''), torch._lib.user_level()) end
    self.samples, self.indices, self._values = samples, idx, y
    self.output = self.returnIndices and { y, idx } or y
    return self.output
  end

  cls.updateGradInput = function(self, input, gradOutput)
    if type(gradOutput) == 'table' and self.returnIndices then gradOutput = gradOutput[1] end
    local y = self._values
    if not torch.isTensor(gradOutput) or not y or not gradOutput:isSameSizeAs(y) then
      lib.fail(name, 'expected a gradOutput of the output\'s size, got %s', nn.utils.describe(gradOutput))
    end
    local cells, outCells = 1, 1
    for d = input:dim() - nd + 1, input:dim() do
      cells, outCells = cells * input:size(d), outCells * y:size(d)
    end
    local planes = input:nElement() / cells
    local gx = input.new():resizeAs(input):zero()
    gx:view(planes, cells):scatterAdd(2, self.indices:reshape(planes, outCells),
      gradOutput:contiguous():view(planes, outCells))
    self.gradInput = gx
    return gx
  end

  cls.clearState = function(self)
    self.indices = torch.LongTensor()
    self.samples, self._values = nil, nil
    return parent.clearState(self)
  end

  cls.__tostring__ = function(self)
    local out = self.outputSize and ('outputSize ' .. table.concat(self.outputSize, 'x'))
      or ('outputRatio ' .. table.concat(self.outputRatio, 'x'))
    return string.format('%s(kernelSize %s, %s)', name, table.concat(self.kernelSize, 'x'), out)
  end
end

return nn.FractionalMaxPool2d
