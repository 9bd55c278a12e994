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
    -- Note [Cumulative batch-norm statistics]: PyTorch's momentum = None (running statistics that
    -- are the plain average of every batch's, momentum 1 / num_batches_tracked at each training
    -- forward) cannot be written in Lua, where a nil option is the default 0.1: momentum = false
    -- asks for it. Such a module keeps num_batches_tracked (PyTorch's buffer, in its state dict
    -- after running_var); the others keep none (Note [State dict names], nn/state_dict.lua).
    local cumulative = o.momentum == false
    parent.__init(self, n, P.number(name, 'eps', o.eps, 1e-5),
      cumulative and 0.1 or P.number(name, 'momentum', o.momentum, 0.1), P.bool(name, 'affine', o.affine, true))
    if cumulative then
      self.cumulative = true
      self.num_batches_tracked = torch.zeros(1):view({})
      self._stateBuffers = { 'running_mean', 'running_var', 'num_batches_tracked' }
    end
    if not P.bool(name, 'trackRunningStats', o.trackRunningStats, true) then
      -- Note [Batch norms without running statistics]: PyTorch's trackRunningStats = false
      -- normalizes with the batch's statistics in training and evaluation alike and keeps no
      -- running_mean/running_var (its state dict holds weight and bias only). Here the parent runs
      -- in training mode for every call; its running buffers are scratch, left out of the state
      -- dict (an empty _stateBuffers on the instance).
      self.trackRunningStats = false
      self._stateBuffers = {}
    end
  end
  -- A training forward of a cumulative module counts the batch and averages it in with weight
  -- 1 / count (Note [Cumulative batch-norm statistics]).
  local function count_batch(self, input)
    if not (self.cumulative and self.train and self.trackRunningStats ~= false) then return end
    local n = self.num_batches_tracked
    if not torch.isTensor(n) then  -- a module saved before num_batches_tracked: counting from 0
      n = torch.zeros(1):view({}):typeAs(self.running_mean)
      self.num_batches_tracked = n
    end
    torch.noGrad(function() n:add(1) end)
    self.momentum = 1 / n:item()
    return true
  end
  -- The parent's method run as in training (Note [Batch norms without running statistics]).
  local function batch_stats(method)
    return function(self, ...)
      if self.trackRunningStats ~= false or self.train then return parent[method](self, ...) end
      self.train = true
      local ok, r = pcall(parent[method], self, ...)
      self.train = false
      if not ok then error(r, 0) end
      return r
    end
  end
  local update_output = batch_stats('updateOutput')
  cls.updateOutput = function(self, input)
    if not count_batch(self, input) then return update_output(self, input) end
    local ok, r = pcall(update_output, self, input)
    if not ok then  -- a refused input is no batch
      torch.noGrad(function() self.num_batches_tracked:add(-1) end)
      error(r, 0)
    end
    return r
  end
  cls.updateGradInput = batch_stats('updateGradInput')
  cls.accGradParameters = batch_stats('accGradParameters')
  --- m:reset(): weight 1, bias 0 and fresh running statistics (PyTorch's reset_parameters).
  --- Example: nn.BatchNorm2d(3):reset()
  cls.reset = function(self)
    parent.reset(self)
    if self.weight then self.weight:fill(1) end
    if torch.isTensor(self.num_batches_tracked) then self.num_batches_tracked:zero() end
    return self
  end
end
-- nn.BatchNorm1d(numFeatures [, eps = 1e-5, momentum = 0.1, affine = true, trackRunningStats = true]):
-- PyTorch's BatchNorm1d of N x C or N x C x L inputs. BatchNorm2d/3d: N x C x H x W, N x C x D x H x W.
-- momentum = false is PyTorch's momentum = None (Note [Cumulative batch-norm statistics]);
-- trackRunningStats = false uses the batch's statistics always (Note [Batch norms without running
-- statistics]).
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
    -- PyTorch's check (F.instance_norm's _verify_spatial_size): one value per channel has no
    -- variance to normalize by, and the running variance would take a 0 (Torch7's silently did)
    local batch_stats = self.train ~= false or not self.trackRunningStats
    if batch_stats and torch.isTensor(input) and input:nElement() > 0 then
      local spatial = 1
      for d = input:dim() - nd + 1, input:dim() do spatial = spatial * input:size(d) end
      if spatial == 1 then
        require('torch.lib').fail(name, 'expected more than 1 spatial element when training, got an input of size %s',
          table.concat(input:size():totable(), 'x'))
      end
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
    local g, c = P.int('nn.GroupNorm', 'numGroups', o.numGroups), P.int('nn.GroupNorm', 'numChannels', o.numChannels)
    -- checked here so that the error names this class (the parent's named nn.GroupNormalization)
    if g < 1 or c < 1 or c % g ~= 0 then
      require('torch.lib').fail('nn.GroupNorm', 'numChannels (%d) must be divisible by numGroups (%d), both positive', c, g)
    end
    parent.__init(self, g, c, P.number('nn.GroupNorm', 'eps', o.eps, 1e-5), P.bool('nn.GroupNorm', 'affine', o.affine, true))
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
  -- Note [Embedding index shapes]: PyTorch's Embedding takes indices of any shape (a 0-dim index
  -- too) and appends embeddingDim; Torch7's LookupTable takes vectors and N x n batches only. Other
  -- shapes are looked up flat here and the output viewed back (the backward reads them flat).
  local function other_shape(input) return torch.isTensor(input) and input:dim() ~= 1 and input:dim() ~= 2 end
  function cls:_indices(input)
    if other_shape(input) then return parent._indices(self, input:reshape(-1)) end
    return parent._indices(self, input)
  end
  function cls:updateOutput(input)
    if not other_shape(input) then return parent.updateOutput(self, input) end
    local idx = self:_indices(input)
    self:_renorm(idx)
    self._rows = self._rows or self.weight.new()
    torch.index(self._rows, self.weight, 1, idx)
    local size = input:size():totable()
    size[#size + 1] = self.weight:size(2)
    self.output = self._rows:view(torch.LongStorage(size))
    return self.output
  end
  --- nn.Embedding.fromPretrained(embeddings [, freeze = true] [, {freeze =, paddingIdx =, maxNorm =,
  --- normType =, scaleGradByFreq =, sparse =}]): PyTorch's Embedding.from_pretrained: an Embedding
  --- whose weight is a copy of the 2-D embeddings (its paddingIdx row kept, as PyTorch's), frozen
  --- (m:requiresGrad(false), Note [Freezing]) unless freeze = false.
  --- Example: nn.Embedding.fromPretrained(torch.randn(5, 3), {freeze = false, paddingIdx = 1})
  function cls.fromPretrained(embeddings, freeze, opts)
    if type(freeze) == 'table' and opts == nil then freeze, opts = nil, freeze end
    opts = opts or {}
    if type(opts) ~= 'table' then
      require('torch.lib').fail('nn.Embedding.fromPretrained', 'expected an options table, got %s', tostring(opts))
    end
    if not torch.isTensor(embeddings) or embeddings:dim() ~= 2 then
      require('torch.lib').fail('nn.Embedding.fromPretrained', 'expected a 2-D tensor of embeddings, got %s',
        nn.utils.describe(embeddings))
    end
    local o = {}
    for k, v in pairs(opts) do if k ~= 'freeze' then o[k] = v end end
    if freeze == nil then freeze = opts.freeze end
    freeze = P.bool('nn.Embedding.fromPretrained', 'freeze', freeze, true)
    local m = nn.Embedding(embeddings:size(1), embeddings:size(2), o)
    m = m:type(embeddings:type())
    torch.noGrad(function() m.weight:copy(embeddings) end)
    if freeze then m:requiresGrad(false) end
    return m
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
