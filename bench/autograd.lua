-- Autograd overhead: forward+backward of a tiny graph, y = (x*w + b):relu():sum() on 10
-- elements, and of a 3-layer MLP (784-256-128-10) at batch 1 and 128, against the PyTorch twin
-- (bench/autograd.py) measured in the same run. Usage: tocha bench/autograd.lua [threads]
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return H.best(fn, n) * 1e6 end

local x = torch.rand(10)
local w = torch.rand(10):requiresGrad()
local b = torch.rand(10):requiresGrad()
local function tiny()
  local y = (torch.cmul(x, w) + b):relu():sum()
  y:backward()
end

local W = { torch.randn(784, 256):mul(0.05):requiresGrad(), torch.randn(256, 128):mul(0.05):requiresGrad(),
            torch.randn(128, 10):mul(0.05):requiresGrad() }
local B = { torch.zeros(256):requiresGrad(), torch.zeros(128):requiresGrad(), torch.zeros(10):requiresGrad() }
local function mlp(input)
  return function()
    local h = input
    for i = 1, 3 do
      h = torch.addmm(B[i], h, W[i])
      if i < 3 then h = h:relu() end
    end
    local loss = torch.cmul(h, h):mean()
    loss:backward()
  end
end
local ours = {
  tiny = bench(tiny, 20000),
  mlp1 = bench(mlp(torch.rand(1, 784)), 2000),
  mlp128 = bench(mlp(torch.rand(128, 784)), 200),
}

local ref = H.reference('autograd.py', threads)

print(string.format('threads=%d OPENBLAS_CORETYPE=%s', threads, os.getenv('OPENBLAS_CORETYPE') or '(unset)'))
print(string.format('%-8s %12s %12s %8s', 'case', 'tocha us', 'pytorch us', 'ratio'))
for _, k in ipairs({ 'tiny', 'mlp1', 'mlp128' }) do
  local r = ref[k]
  print(string.format('%-8s %12.2f %12s %8s', k, ours[k], r and string.format('%.2f', r) or 'n/a',
    r and string.format('%.3f', ours[k] / r) or 'n/a'))
end
print('target: tiny ratio <= 0.25')
