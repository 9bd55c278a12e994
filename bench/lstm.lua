-- nn.LSTM forward+backward (seqLen 35, batch 20, input 200, hidden 200; 1 and 2 layers, and 2
-- bidirectional ones) against PyTorch's nn.LSTM on CPU (bench/lstm.py, run in the same process
-- tree), through loss:backward() (autograd) and through Torch7's model:backward, plus inference.
-- Usage: tocha bench/lstm.lua [threads]
require 'nn'
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)
local T, B, I, H = 35, 20, 200, 200

local Harness = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return Harness.best(fn, n, 3) * 1e3 end

local x = torch.randn(T, B, I)
local g = torch.randn(T, B, H)
local ours = {}
for _, layers in ipairs({ 1, 2 }) do
  local m = nn.LSTM(I, H, layers)
  ours['lstm' .. layers] = bench(function()
    m:zeroGradParameters()
    m:forward(x):backward(g)
  end, 10)
  ours['lstm' .. layers .. '_torch7'] = bench(function()
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, g)
  end, 10)
  ours['lstm' .. layers .. '_fwd'] = bench(function() torch.noGrad(m.forward, m, x) end, 10)
end

-- Bidirectional, 2 layers (the reverse direction runs the fused layer on the flipped sequence).
local g2 = torch.randn(T, B, 2 * H)
local bi = nn.LSTM(I, H, { numLayers = 2, bidirectional = true })
ours.bilstm2 = bench(function()
  bi:zeroGradParameters()
  bi:forward(x):backward(g2)
end, 10)
ours.bilstm2_torch7 = bench(function()
  bi:zeroGradParameters()
  bi:forward(x)
  bi:backward(x, g2)
end, 10)
ours.bilstm2_fwd = bench(function() torch.noGrad(bi.forward, bi, x) end, 10)

local ref = Harness.reference('lstm.py', threads)

print(string.format('threads=%d  LSTM seqLen %d, batch %d, input %d, hidden %d', threads, T, B, I, H))
print(string.format('%-14s %10s %10s %9s', 'case', 'tocha ms', 'pytorch ms', 'speedup'))
for _, k in ipairs({ 'lstm1', 'lstm1_torch7', 'lstm1_fwd', 'lstm2', 'lstm2_torch7', 'lstm2_fwd', 'bilstm2',
                    'bilstm2_torch7', 'bilstm2_fwd' }) do
  local r = ref[k] or ref[k:gsub('_torch7', '')]
  print(string.format('%-14s %10.2f %10s %9s', k, ours[k], r and string.format('%.2f', r) or 'n/a',
    r and string.format('%.2fx', r / ours[k]) or 'n/a'))
end
print('forward+backward (lstmN: loss:backward(); _torch7: model:backward) and inference (_fwd);')
print('bilstm2: 2 layers, bidirectional')
print('speedup = pytorch time / tocha time; target >= 1.5x')
