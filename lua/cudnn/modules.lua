-- The cudnn.* layers that are their nn counterparts under another name: convolutions, pooling,
-- pointwise activations, batch normalization and cross-map LRN (cudnn.torch's constructors).
local cudnn = rawget(_G, 'cudnn')

-- A cudnn class over nn.<name>: its printed name says cudnn; init (optional) adapts cudnn's
-- constructor arguments to nn's.
cudnn._classes = cudnn._classes or {}
local function alias(name, init, nnName)
  local cls, parent = torch.class('cudnn.' .. name, 'nn.' .. (nnName or name))
  cudnn._classes[#cudnn._classes + 1] = name
  if init then
    cls.__init = function(self, ...) init(self, parent, ...) end
  end
  local tostr = parent.__tostring__
  if tostr then
    cls.__tostring__ = function(self)
      return (tostring(tostr(self)):gsub('^nn%.' .. (nnName or name), 'cudnn.' .. name, 1))
    end
  end
  return cls, parent
end
cudnn._alias = alias

for _, name in ipairs({ 'SpatialConvolution', 'SpatialFullConvolution', 'SpatialDilatedConvolution',
                        'VolumetricConvolution', 'VolumetricFullConvolution', 'VolumetricDilatedConvolution',
                        'SpatialMaxPooling', 'VolumetricMaxPooling', 'VolumetricAveragePooling',
                        'BatchNormalization', 'SpatialBatchNormalization', 'VolumetricBatchNormalization',
                        'SpatialCrossMapLRN', 'SpatialSoftMax', 'SpatialLogSoftMax' }) do
  alias(name)
end

-- cudnn.SpatialAveragePooling: its file form has cudnn's mode string instead of nn's fields.
local SAP, sapParent = alias('SpatialAveragePooling')
-- m:afterLoad(): a module from cudnn.torch's files gets nn's count_include_pad from its mode.
function SAP:afterLoad()
  if self.count_include_pad == nil and type(self.mode) == 'string' then
    self.count_include_pad = self.mode == 'CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING'
  end
  if self.divide == nil then self.divide = true end
  if sapParent.afterLoad then sapParent.afterLoad(self) end
end

-- cudnn.ReLU([inplace]): nn.ReLU; cudnn.torch's files hold no threshold/val, restored on load.
local ReLU, reluParent = alias('ReLU')
function ReLU:afterLoad()
  self.threshold, self.val = self.threshold or 0, self.val or 0
  self.inplace = self.inplace or false
  if reluParent.afterLoad then reluParent.afterLoad(self) end
end

-- cudnn.Tanh([inplace]) and cudnn.Sigmoid([inplace]): nn's run out of place; the flag is kept.
for _, name in ipairs({ 'Tanh', 'Sigmoid' }) do
  alias(name, function(self, parent, inplace)
    parent.__init(self)
    self.inplace = inplace or false
  end)
end

-- cudnn.ClippedReLU(ceiling[, inplace]): min(max(x, 0), ceiling), nn.HardTanh(0, ceiling).
alias('ClippedReLU', function(self, parent, ceiling, inplace)
  if type(ceiling) ~= 'number' or ceiling <= 0 then
    error(string.format('[cudnn.ClippedReLU] ceiling must be a positive number, got %s', tostring(ceiling)),
      torch._lib.user_level())
  end
  parent.__init(self, 0, ceiling, inplace)
  self.ceiling = ceiling
end, 'HardTanh')

return cudnn
