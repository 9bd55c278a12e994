-- CNN training step: conv(1->32, 3x3, pad 1)-ReLU-maxpool 2-conv(32->64, 3x3, pad 1)-ReLU-maxpool 2-
-- View(3136)-Linear(3136->128)-ReLU-Linear(128->10) with CrossEntropyCriterion on a batch of 64
-- 28x28 images: forward, loss, backward and SGD update (Torch7 style), in samples/s against the
-- PyTorch twin (bench/cnn.py, same model with CrossEntropyLoss and torch.optim.SGD) run in the same
-- process tree, and the GFLOP/s of the two conv layers alone. Target: at least 2x PyTorch's samples/s.
-- Usage: tocha bench/cnn.lua [threads]
require 'nn'
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')
local threads = tonumber(arg and arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)

local model = nn.Sequential()
  :add(nn.SpatialConvolution(1, 32, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
  :add(nn.SpatialConvolution(32, 64, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
  :add(nn.View(3136)):add(nn.Linear(3136, 128)):add(nn.ReLU()):add(nn.Linear(128, 10))
-- The input needs no gradient (PyTorch does not compute it either): Torch7's idiom is a nil gradInput.
model.modules[1].gradInput = nil
local crit = nn.CrossEntropyCriterion()
local x = torch.randn(64, 1, 28, 28)
local y = torch.LongTensor(64):random(1, 10)

local function step()
  model:zeroGradParameters()
  local out = model:forward(x)
  crit:forward(out, y)
  model:backward(x, crit:backward(out, y))
  model:updateParameters(0.01)
end

-- Best mean time per call in ms (bench/harness.lua).
local function bench(fn, n) return H.best(fn, n, math.max(2, n / 2)) * 1e3 end

-- The conv layers alone, with the shapes they have in the model.
local c1, c2 = model.modules[1], model.modules[4]
local x2 = torch.randn(64, 32, 14, 14)
local g1, g2 = torch.randn(64, 32, 28, 28), torch.randn(64, 64, 14, 14)
c2:forward(x2)
local ours = {
  step = bench(step, 10),
  c1_fwd = bench(function() c1:updateOutput(x) end, 20),
  c1_bwd = bench(function() c1:accGradParameters(x, g1, 1) end, 20),
  c2_fwd = bench(function() c2:updateOutput(x2) end, 20),
  c2_bwd = bench(function() c2:updateGradInput(x2, g2) c2:accGradParameters(x2, g2, 1) end, 20),
}

local ref = H.reference('cnn.py', threads)

-- Multiply-adds x 2 of each pass (conv1's backward computes only the weight gradient: its input
-- needs none).
local flops = {
  c1_fwd = 2 * 64 * 32 * 28 * 28 * 1 * 9, c1_bwd = 2 * 64 * 32 * 28 * 28 * 1 * 9,
  c2_fwd = 2 * 64 * 64 * 14 * 14 * 32 * 9, c2_bwd = 2 * 2 * 64 * 64 * 14 * 14 * 32 * 9,
}

print(string.format('threads=%d OPENBLAS_CORETYPE=%s', threads, os.getenv('OPENBLAS_CORETYPE') or '(unset)'))
print(string.format('%-8s %12s %12s %9s %9s %8s', 'case', 'tocha ms', 'pytorch ms', 'tocha GF', 'torch GF', 'speedup'))
for _, k in ipairs({ 'step', 'c1_fwd', 'c1_bwd', 'c2_fwd', 'c2_bwd' }) do
  local r = ref[k]
  local gf = function(ms) return flops[k] and ms and string.format('%.1f', flops[k] / ms / 1e6) or '' end
  print(string.format('%-8s %12.3f %12s %9s %9s %8s', k, ours[k], r and string.format('%.3f', r) or 'n/a',
    gf(ours[k]), gf(r), r and string.format('%.2fx', r / ours[k]) or 'n/a'))
end
local conv_ms = ours.c1_fwd + ours.c1_bwd + ours.c2_fwd + ours.c2_bwd
local conv_flops = flops.c1_fwd + flops.c1_bwd + flops.c2_fwd + flops.c2_bwd
print(string.format('conv layers: %.1f GFLOP/s (tocha)%s', conv_flops / conv_ms / 1e6,
  ref.c1_fwd and string.format(', %.1f GFLOP/s (pytorch)',
    conv_flops / (ref.c1_fwd + ref.c1_bwd + ref.c2_fwd + ref.c2_bwd) / 1e6) or ''))
print(string.format('samples/s: tocha %.0f, pytorch %s; target: tocha >= 2x pytorch', 64e3 / ours.step,
  ref.step and string.format('%.0f (%.2fx)', 64e3 / ref.step, ref.step / ours.step) or 'n/a'))
