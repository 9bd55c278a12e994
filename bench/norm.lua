-- Normalization and dropout layers: forward+backward (Torch7 style) of SpatialBatchNormalization
-- (32x64x32x32), BatchNormalization (256x1024), LayerNormalization(512) on 256x512 and
-- Dropout(0.5) on 256x1024, and torch.batchNorm through autograd, all f32, against the PyTorch
-- twin (bench/norm.py) measured in the same run. Usage: tocha bench/norm.lua [threads]
require 'nn'
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return H.best(fn, n, 1) * 1e6 end

local function torch7(module, x)
  local g = torch.randn(x:size())
  return function()
    module:forward(x)
    module:backward(x, g)
  end
end

local xs = torch.randn(32, 64, 32, 32)
local eval_bn = nn.SpatialBatchNormalization(64)
eval_bn:evaluate()
local ours = {
  bn2d = bench(torch7(nn.SpatialBatchNormalization(64), xs), 10),
  bn2d_eval = bench(torch7(eval_bn, xs), 10),
  bn1d = bench(torch7(nn.BatchNormalization(1024), torch.randn(256, 1024)), 50),
  layernorm = bench(torch7(nn.LayerNormalization(512), torch.randn(256, 512)), 50),
  dropout = bench(torch7(nn.Dropout(0.5), torch.randn(256, 1024)), 50),
}
do
  local x = xs:clone():requiresGrad()
  local w, b = torch.rand(64):requiresGrad(), torch.zeros(64):requiresGrad()
  local rm, rv = torch.zeros(64), torch.ones(64)
  local g = torch.randn(xs:size())
  ours.bn2d_autograd = bench(function()
    local y = torch.batchNorm(x, rm, rv, w, b, true)
    y:backward(g)
  end, 10)
end

local ref = H.reference('norm.py', threads)

print(string.format('threads=%d', threads))
print(string.format('%-14s %12s %12s %8s', 'case', 'tocha us', 'pytorch us', 'ratio'))
for _, k in ipairs({ 'bn2d', 'bn2d_eval', 'bn2d_autograd', 'bn1d', 'layernorm', 'dropout' }) do
  local r = ref[k]
  print(string.format('%-14s %12.1f %12s %8s', k, ours[k], H.fmt(r, '%.1f'), H.fmt(r and ours[k] / r, '%.3f')))
end
