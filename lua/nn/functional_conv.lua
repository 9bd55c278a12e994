-- nn.functional's convolution and pooling functions: the differentiable torch functions
-- (lua/torch/conv.lua) under nn.functional, for code written against PyTorch's functional API.
-- Also lets .t7 files written with cudnn's modules load as their nn equivalents.
local lib = require 'torch.lib'
local describe = require('torch.types').describe
nn.functional = nn.functional or {}
local F = nn.functional
for _, name in ipairs({ 'conv1d', 'conv2d', 'conv3d', 'convTranspose1d', 'convTranspose2d', 'convTranspose3d',
                        'convWeight' }) do
  F[name] = torch[name]
end

--- nn.functional.avgPool2d(x, kernelSize [, stride = kernelSize] [, padding = 0] [, ceilMode = false]
--- [, countIncludePad = true] [, divisorOverride]): PyTorch's avg_pool2d of an N x C x H x W (or
--- C x H x W) tensor, torch.avgPool2d's values; a divisorOverride divides each window's sum by it
--- instead (Note [divisorOverride], functional_pool.lua).
--- Example: nn.functional.avgPool2d(torch.randn(1, 1, 4, 4), 2, 2, 0, false, true, 3)
function F.avgPool2d(x, kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride)
  if divisorOverride == nil then return torch.avgPool2d(x, kernelSize, stride, padding, ceilMode, countIncludePad) end
  return require('nn.functional_pool').avgPoolDivisor('avgPool2d', 2, x, kernelSize, stride, padding, ceilMode,
    divisorOverride)
end

-- {h, w} from a number or a pair, each an integer >= min.
local function pair(name, v, what, default, min)
  if v == nil then v = default end
  local t = type(v) == 'table' and v or { v, v }
  for i = 1, 2 do
    if type(t[i]) ~= 'number' or t[i] ~= math.floor(t[i]) or t[i] < min or #t ~= 2 then
      lib.fail(name, '%s must be an integer >= %d or a pair of them, got %s', what, min, describe(v))
    end
  end
  return t
end

--- nn.functional.maxPool2d(x, kernelSize [, stride = kernelSize] [, padding = 0] [, dilation = 1]
--- [, ceilMode = false] [, returnIndices = false]): PyTorch's max_pool2d of an N x C x H x W (or
--- C x H x W) tensor (sizes numbers or {h, w} pairs); with returnIndices also the 1-based
--- positions (h - 1) * W + w of the maxima in each plane. torch.maxPool2d is Torch7's order
--- (ceilMode 5th, no dilation, indices always returned).
--- Example: nn.functional.maxPool2d(torch.randn(1, 1, 5, 5), 3, 1, 1, 2)
function F.maxPool2d(x, kernelSize, stride, padding, dilation, ceilMode, returnIndices)
  local name = 'nn.functional.maxPool2d'
  if not torch.isTensor(x) then lib.fail(name, 'expected a tensor, got %s', describe(x)) end
  local k = pair(name, kernelSize, 'kernelSize', nil, 1)
  local st = pair(name, stride, 'stride', k, 1)
  local p = pair(name, padding, 'padding', 0, 0)
  local d = pair(name, dilation, 'dilation', 1, 1)
  if ceilMode ~= nil and type(ceilMode) ~= 'boolean' then
    lib.fail(name, 'ceilMode must be a boolean, got %s (dilation is the 5th argument, as in PyTorch)', describe(ceilMode))
  end
  local v, i
  if d[1] == 1 and d[2] == 1 then
    v, i = torch.maxPool2d(x, k, st, p, ceilMode == true)
  else
    -- The C pooling has no dilation: the module built from ops (autograd records it).
    local m = nn.SpatialDilatedMaxPooling(k[2], k[1], st[2], st[1], p[2], p[1], d[2], d[1]):type(x:type())
    if ceilMode then m:ceil() end
    v, i = m:forward(x), m.indices
  end
  if returnIndices then return v, i end
  return v
end

if torch.serialization and torch.serialization.registerClassAlias then
  for _, name in ipairs({ 'SpatialConvolution', 'SpatialFullConvolution', 'VolumetricConvolution',
                          'SpatialMaxPooling', 'SpatialAveragePooling' }) do
    torch.serialization.registerClassAlias('cudnn.' .. name, 'nn.' .. name)
  end
end

return F
