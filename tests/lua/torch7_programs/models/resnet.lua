-- Part of the fb.resnet.torch imitation (resnet_threads.lua), as its models/resnet.lua: the
-- CIFAR-style ResNet of depth 6n+2 (basic blocks: conv-BN-ReLU-conv-BN plus a shortcut, summed
-- by CAddTable through a ConcatTable), MSR-initialized, convolutions without bias. Loaded with
-- require('models/' .. opt.netType), a module name with a slash, as fb.resnet's main.lua did.
require 'nn'

local function createModel(opt)
  local depth, shortcutType, iChannels = opt.depth, opt.shortcutType, 16
  local Convolution, Avg, ReLU, SBatchNorm = nn.SpatialConvolution, nn.SpatialAveragePooling, nn.ReLU,
    nn.SpatialBatchNormalization
  local function shortcut(nInputPlane, nOutputPlane, stride)
    local useConv = shortcutType == 'C' or (shortcutType == 'B' and nInputPlane ~= nOutputPlane)
    if useConv then
      return nn.Sequential()
        :add(Convolution(nInputPlane, nOutputPlane, 1, 1, stride, stride))
        :add(SBatchNorm(nOutputPlane))
    elseif nInputPlane ~= nOutputPlane then
      -- strided, zero-padded identity shortcut
      return nn.Sequential()
        :add(nn.SpatialAveragePooling(1, 1, stride, stride))
        :add(nn.Concat(2):add(nn.Identity()):add(nn.MulConstant(0)))
    else
      return nn.Identity()
    end
  end
  local function basicblock(n, stride)
    local nInputPlane = iChannels
    iChannels = n
    local s = nn.Sequential()
    s:add(Convolution(nInputPlane, n, 3, 3, stride, stride, 1, 1))
    s:add(SBatchNorm(n))
    s:add(ReLU(true))
    s:add(Convolution(n, n, 3, 3, 1, 1, 1, 1))
    s:add(SBatchNorm(n))
    return nn.Sequential()
      :add(nn.ConcatTable():add(s):add(shortcut(nInputPlane, n, stride)))
      :add(nn.CAddTable(true))
      :add(ReLU(true))
  end
  local function layer(block, features, count, stride)
    local s = nn.Sequential()
    for i = 1, count do s:add(block(features, i == 1 and stride or 1)) end
    return s
  end
  local model = nn.Sequential()
  assert((depth - 2) % 6 == 0, 'depth should be one of 20, 32, 44, 56, 110, 1202')
  local n = (depth - 2) / 6
  print(' | ResNet-' .. depth .. ' CIFAR-style (16x16 inputs here)')
  model:add(Convolution(3, 16, 3, 3, 1, 1, 1, 1))
  model:add(SBatchNorm(16))
  model:add(ReLU(true))
  model:add(layer(basicblock, 16, n))
  model:add(layer(basicblock, 32, n, 2))
  model:add(layer(basicblock, 64, n, 2))
  model:add(Avg(4, 4, 1, 1))
  model:add(nn.View(64):setNumInputDims(3))
  model:add(nn.Linear(64, opt.nClasses))

  local function ConvInit(name)
    for k, v in pairs(model:findModules(name)) do
      local n = v.kW * v.kH * v.nOutputPlane
      v.weight:normal(0, math.sqrt(2 / n))
      -- cudnn >= 4 branch of fb.resnet: the batch norm after it makes the bias useless
      v.bias = nil
      v.gradBias = nil
    end
  end
  local function BNInit(name)
    for k, v in pairs(model:findModules(name)) do
      v.weight:fill(1)
      v.bias:zero()
    end
  end
  ConvInit('nn.SpatialConvolution')
  BNInit('nn.SpatialBatchNormalization')
  for k, v in pairs(model:findModules('nn.Linear')) do v.bias:zero() end
  model:type('torch.FloatTensor')
  model:get(1).gradInput = nil  -- the first layer needs no gradInput
  return model
end

return createModel
