-- PyTorch's normalization, embedding and channel-dropout names as subclasses of Torch7's classes:
-- nn.BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, Embedding, Dropout2d/3d, with
-- PyTorch's signatures (positionals or a trailing camelCase options table) and defaults.
-- Note [PyTorch-named norms]: BatchNorm*d start with weight 1 (PyTorch's), not Torch7's uniform
-- draw; Dropout2d/3d scale by 1/(1 - p) while training (PyTorch's inverted dropout), not Torch7's
-- (1 - p) at evaluation; Embedding's paddingIdx is 1-based (Tocha's indices) and its row starts at
-- zero, as PyTorch's. Options Tocha's parents cannot honour raise an error naming the class.
local P = require 'nn.pytorch_names_args'
require 'nn.BatchNormalization'
require 'nn.SpatialBatchNormalization'
require 'nn.VolumetricBatchNormalization'
require 'nn.InstanceNormalization'
require 'nn.LayerNormalization'
require 'nn.GroupNormalization'
require 'nn.LookupTable'
require 'nn.SpatialDropout'
require 'nn.VolumetricDropout'

local function batch_norm(name, parent_name)
  local cls, parent = torch.class(name, parent_name)
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'numFeatures', 'eps', 'momentum', 'affine', 'trackRunningStats' }, ...)
    local n = P.int(name, 'numFeatures', o.numFeatures)
    P.unsupported(name, 'trackRunningStats', o.trackRunningStats, true)
    parent.__init(self, n, P.number(name, 'eps', o.eps, 1e-5), P.number(name, 'momentum', o.momentum, 0.1),
      P.bool(name, 'affine', o.affine, true))
  end
  --- m:reset(): weight 1, bias 0 and fresh running statistics (PyTorch's reset_parameters).
  --- Example: nn.BatchNorm2d(3):reset()
  cls.reset = function(self)
    parent.reset(self)
    if self.weight then self.weight:fill(1) end
    return self
  end
end
-- nn.BatchNorm1d(numFeatures [, eps = 1e-5, momentum = 0.1, affine = true, trackRunningStats = true]):
-- PyTorch's BatchNorm1d of N x C or N x C x L inputs. BatchNorm2d/3d: N x C x H x W, N x C x D x H x W.
batch_norm('nn.BatchNorm1d', 'nn.BatchNormalization')
batch_norm('nn.BatchNorm2d', 'nn.SpatialBatchNormalization')
batch_norm('nn.BatchNorm3d', 'nn.VolumetricBatchNormalization')

-- nn.InstanceNorm1d/2d/3d(numFeatures [, eps = 1e-5, momentum = 0.1, affine = false,
-- trackRunningStats = false]): PyTorch's instance norms; the dimension is checked (C x L or N x C x L
-- for 1d, one more dim per d).
for nd = 1, 3 do
  local name = 'nn.InstanceNorm' .. nd .. 'd'
  local cls, parent = torch.class(name, 'nn.InstanceNormalization')
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'numFeatures', 'eps', 'momentum', 'affine', 'trackRunningStats' }, ...)
    parent.__init(self, P.int(name, 'numFeatures', o.numFeatures), P.number(name, 'eps', o.eps, 1e-5),
      P.number(name, 'momentum', o.momentum, 0.1), P.bool(name, 'affine', o.affine, false),
      P.bool(name, 'trackRunningStats', o.trackRunningStats, false))
  end
  cls.updateOutput = function(self, input)
    if torch.isTensor(input) and input:dim() ~= nd + 1 and input:dim() ~= nd + 2 then
      require('torch.lib').fail(name, 'expected a %dD or %dD input, got %s', nd + 1, nd + 2,
        nn.utils.describe(input))
    end
    return parent.updateOutput(self, input)
  end
  cls.__tostring__ = function(self) return (parent.__tostring__(self):gsub('^nn%.InstanceNormalization', name, 1)) end
end

-- nn.LayerNorm(normalizedShape [, eps = 1e-5, elementwiseAffine = true]): PyTorch's LayerNorm.
do
  local cls, parent = torch.class('nn.LayerNorm', 'nn.LayerNormalization')
  function cls:__init(...)
    local o = P.parse('nn.LayerNorm', { 'normalizedShape', 'eps', 'elementwiseAffine' }, ...)
    parent.__init(self, o.normalizedShape, P.number('nn.LayerNorm', 'eps', o.eps, 1e-5),
      P.bool('nn.LayerNorm', 'elementwiseAffine', o.elementwiseAffine, true))
  end
end

-- nn.GroupNorm(numGroups, numChannels [, eps = 1e-5, affine = true]): PyTorch's GroupNorm.
do
  local cls, parent = torch.class('nn.GroupNorm', 'nn.GroupNormalization')
  function cls:__init(...)
    local o = P.parse('nn.GroupNorm', { 'numGroups', 'numChannels', 'eps', 'affine' }, ...)
    parent.__init(self, P.int('nn.GroupNorm', 'numGroups', o.numGroups),
      P.int('nn.GroupNorm', 'numChannels', o.numChannels), P.number('nn.GroupNorm', 'eps', o.eps, 1e-5),
      P.bool('nn.GroupNorm', 'affine', o.affine, true))
  end
end

-- nn.Embedding(numEmbeddings, embeddingDim [, paddingIdx, maxNorm, normType = 2, scaleGradByFreq =
-- false, sparse = false]): PyTorch's Embedding on 1-based indices; weight N(0, 1), the paddingIdx row
-- zero and without gradient. sparse = true gives the weight a sparse COO gradient (Note [Sparse
-- embedding gradients], nn/LookupTable.lua).
do
  local name = 'nn.Embedding'
  local cls, parent = torch.class(name, 'nn.LookupTable')
  function cls:__init(...)
    local o = P.parse(name, { 'numEmbeddings', 'embeddingDim', 'paddingIdx', 'maxNorm', 'normType',
      'scaleGradByFreq', 'sparse', '_weight' }, ...)
    local n = P.int(name, 'numEmbeddings', o.numEmbeddings)
    local pad = o.paddingIdx
    if pad ~= nil then
      pad = P.int(name, 'paddingIdx', pad, nil, -n)
      if pad == 0 or pad > n then
        require('torch.lib').fail(name, 'paddingIdx must be in 1..%d or -%d..-1 (1-based), got %d', n, n, pad)
      end
      if pad < 0 then pad = pad + n + 1 end
    end
    local sparse = P.bool(name, 'sparse', o.sparse, false)
    parent.__init(self, n, P.int(name, 'embeddingDim', o.embeddingDim), pad, o.maxNorm,
      P.number(name, 'normType', o.normType, 2))
    if sparse then self:setSparse(true) end
    self.paddingIdx = pad
    if pad then self.weight[pad]:zero() end
    if P.bool(name, 'scaleGradByFreq', o.scaleGradByFreq, false) then self:scaleGradByFreq() end
    if o._weight ~= nil then
      if not torch.isTensor(o._weight) or o._weight:dim() ~= 2 or o._weight:size(1) ~= n
          or o._weight:size(2) ~= self.weight:size(2) then
        require('torch.lib').fail(name, 'expected _weight of size %dx%d, got %s', n, self.weight:size(2),
          nn.utils.describe(o._weight))
      end
      self.weight:copy(o._weight)
    end
  end
  --- m:reset([stdv = 1]): weight N(0, stdv^2) with the paddingIdx row zero (PyTorch's).
  --- Example: nn.Embedding(10, 3, {paddingIdx = 1}):reset()
  function cls:reset(stdv)
    parent.reset(self, stdv)
    if self.paddingIdx then self.weight[self.paddingIdx]:zero() end
    return self
  end
end

-- nn.Dropout2d(p = 0.5 [, inplace = false]) and nn.Dropout3d: PyTorch's channel dropout (whole
-- feature maps zeroed with probability p, the rest scaled by 1/(1 - p) while training).
for _, spec in ipairs({ { 'nn.Dropout2d', 'nn.SpatialDropout' }, { 'nn.Dropout3d', 'nn.VolumetricDropout' } }) do
  local name = spec[1]
  local cls, parent = torch.class(name, spec[2])
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'p', 'inplace' }, ...)
    P.bool(name, 'inplace', o.inplace, false)
    parent.__init(self, P.number(name, 'p', o.p, 0.5), false, true)
  end
end

return nn.BatchNorm2d
