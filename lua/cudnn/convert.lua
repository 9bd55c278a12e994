-- cudnn.convert(net, dst[, exclude]): swaps the classes of a network's layers between nn and cudnn
-- (cudnn.torch's convert.lua), keeping every field, parameters included.
local cudnn = rawget(_G, 'cudnn')

-- The layers cudnn.torch converted (its layer_list).
local layers = {
  'BatchNormalization', 'SpatialBatchNormalization', 'SpatialConvolution', 'SpatialCrossMapLRN',
  'SpatialFullConvolution', 'SpatialMaxPooling', 'SpatialAveragePooling', 'ReLU', 'Tanh', 'Sigmoid',
  'SoftMax', 'LogSoftMax', 'VolumetricBatchNormalization', 'VolumetricConvolution', 'VolumetricMaxPooling',
  'VolumetricAveragePooling',
}
local convertible = {}
for _, v in ipairs(layers) do convertible[v] = true end

-- A module of class dst_prefix..name with x's fields (the same tensors).
local function retype(x, dstPrefix, name)
  local y = {}
  for k, v in pairs(x) do y[k] = v end
  torch.setmetatable(y, dstPrefix .. name)
  if dstPrefix == 'cudnn.' and (name == 'Tanh' or name == 'Sigmoid') then y.inplace = y.inplace or false end
  return y
end

--- cudnn.convert(net, dst[, exclude]): net with each convertible layer (convolutions, pooling,
--- batch normalization, cross-map LRN, ReLU, Tanh, Sigmoid, SoftMax, LogSoftMax) turned into
--- dst's class (dst is cudnn or nn); nn.SpatialConvolutionMM becomes a SpatialConvolution of dst.
--- Layers for which exclude(layer) is true stay as they are (their children are still visited).
--- The parameters are shared with the layers replaced; net itself is returned (replaced when it is
--- a converted layer). nngraph's gModule is refused, as in cudnn.torch.
--- Example: require 'cudnn'; local net = cudnn.convert(nn.Sequential():add(nn.SpatialConvolution(1, 2, 3, 3)):add(nn.ReLU()), cudnn)
function cudnn.convert(net, dst, exclude)
  if not torch.isTypeOf(net, 'nn.Module') then
    error(string.format('[cudnn.convert] expected an nn.Module, got %s', torch.typename(net) or type(net)),
      torch._lib.user_level())
  end
  if dst ~= cudnn and dst ~= nn then
    error('[cudnn.convert] the destination must be the cudnn or the nn package table, got ' ..
      tostring(dst), torch._lib.user_level())
  end
  if exclude ~= nil and type(exclude) ~= 'function' then
    error('[cudnn.convert] the exclusion argument must be a function(module) -> boolean, got ' .. type(exclude),
      torch._lib.user_level())
  end
  local srcPrefix = dst == nn and 'cudnn.' or 'nn.'
  local dstPrefix = dst == nn and 'nn.' or 'cudnn.'
  return net:replace(function(x)
    if torch.typename(x) == 'nn.gModule' then
      error('[cudnn.convert] does not work with nngraph (nn.gModule), as in cudnn.torch', torch._lib.user_level())
    end
    if exclude and exclude(x) then return x end
    local t = torch.typename(x)
    if t == 'nn.SpatialConvolutionMM' then return retype(x, dstPrefix, 'SpatialConvolution') end
    if t == 'inn.SpatialCrossResponseNormalization' then return retype(x, dstPrefix, 'SpatialCrossMapLRN') end
    local name = t and t:sub(1, #srcPrefix) == srcPrefix and t:sub(#srcPrefix + 1)
    if name and convertible[name] then return retype(x, dstPrefix, name) end
    return x
  end)
end

return cudnn
