-- nn.functional's convolution and pooling functions: the differentiable torch functions
-- (lua/torch/conv.lua) under nn.functional, for code written against PyTorch's functional API.
-- Also lets .t7 files written with cudnn's modules load as their nn equivalents.
nn.functional = nn.functional or {}
local F = nn.functional
for _, name in ipairs({ 'conv1d', 'conv2d', 'conv3d', 'convTranspose1d', 'convTranspose2d', 'convTranspose3d',
                        'convWeight', 'maxPool2d', 'avgPool2d' }) do
  F[name] = torch[name]
end

if torch.serialization and torch.serialization.registerClassAlias then
  for _, name in ipairs({ 'SpatialConvolution', 'SpatialFullConvolution', 'VolumetricConvolution',
                          'SpatialMaxPooling', 'SpatialAveragePooling' }) do
    torch.serialization.registerClassAlias('cudnn.' .. name, 'nn.' .. name)
  end
end

return F
