-- GPU training steps (issue 9): one SGD step of the nn issue's MLP (784-512-256-10, batch 4096, in
-- Torch7 and autograd styles) and CNN (conv-ReLU-pool x2, Linear-ReLU-Linear, batch 1024) on CUDA,
-- against the same models in PyTorch eager (bench/cuda_train.py) on the same GPU in the same run.
-- Target: at least 1.0x PyTorch's samples/s. Prints "name ms/step samples/s pytorch-ms ratio"; the
-- *_bm rows run the CNN with torch.backends.cudnn.benchmark on (PyTorch's twin setting on its side),
-- the *_graph rows with torch.backends.cudnn.graphAPI on (against PyTorch's default step), the
-- *_cudnn rows with the first convolution on cuDNN instead of our thin-filter kernels.
-- Usage: tocha bench/cuda_train.lua [build dir, default ../build]
require 'nn'
if not torch.cuda.isAvailable() then
  print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
  return
end

local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return H.best_cuda(fn, n, 3) end  -- ms per step

local cases = dofile(H.dir() .. '/cuda_models.lua')(H)
-- The child of the *_cudnn rows below: the CNN steps alone, printed as "name ms".
if os.getenv('TOCHA_BENCH_CNN_ONLY') then
  for _, c in ipairs(cases) do
    if c.model == 'cnn' then print(c.name .. ' ' .. bench(c.step, c.steps)) end
  end
  return
end
for _, c in ipairs(cases) do c.ms = bench(c.step, c.steps) end
-- Reruns the CNN cases with torch.backends.cudnn[key] on, as rows <case><suffix> compared with
-- PyTorch's row <ref>_step.
local function cnn_rows(key, suffix, ref)
  local was = torch.backends.cudnn[key]
  torch.backends.cudnn[key] = true
  for i = 1, #cases do
    local c = cases[i]
    if c.model == 'cnn' and c.step then
      cases[#cases + 1] = { name = c.name .. suffix, model = ref, batch = c.batch, ms = bench(c.step, c.steps) }
    end
  end
  torch.backends.cudnn[key] = was
end
-- With cuDNN benchmarking on both sides (Note [cuDNN benchmark]): the first steps (the warm-up)
-- time the algorithms, the timed ones use the fastest.
cnn_rows('benchmark', '_bm', 'cnn_bm')
-- Through cuDNN's graph API and its engine heuristics (Note [cuDNN engines]), PyTorch's own path:
-- the *_graph rows decide whether that becomes our default.
cnn_rows('graphAPI', '_graph', 'cnn')
-- The CNN with every convolution on cuDNN (TOCHA_CUDA_THIN_CONV=0, read at start-up, so in a
-- child process): the *_cudnn rows against the default rows tell what the thin-filter kernels of
-- the first layer gain (Note [Thin-filter convolutions]).
local here = H.dir()
local build = arg and arg[1] or here .. '/../build'
local child = io.popen(string.format('TOCHA_BENCH_CNN_ONLY=1 TOCHA_CUDA_THIN_CONV=0 %s/tocha %s/cuda_train.lua 2>&1', build, here))
for line in child:lines() do
  local k, v = line:match('^(cnn_%S+) (%S+)$')
  if k and tonumber(v) then cases[#cases + 1] = { name = k .. '_cudnn', model = 'cnn', batch = 1024, ms = tonumber(v) }
  else io.write('cudnn-only child: ', line, '\n') end
end
child:close()

local ref = {}
local p = io.popen((os.getenv('PYTHON') or 'python3') .. ' ' .. H.dir() .. '/cuda_train.py 2>&1')
for line in p:lines() do
  local k, v = line:match('^(%S+)%s+([%d.]+)$')
  if k then ref[k] = tonumber(v) else io.write('pytorch: ', line, '\n') end
end
p:close()
print(string.format('%-18s %10s %12s %12s %8s', 'step', 'ms/step', 'samples/s', 'pytorch ms', 'ratio'))
for _, c in ipairs(cases) do
  local r = ref[c.model .. '_step']
  print(string.format('%-18s %10.3f %12.0f %12s %8s', c.name, c.ms, c.batch / c.ms * 1e3,
    r and string.format('%.3f', r) or '-', r and string.format('%.2fx', r / c.ms) or '-'))
end
print('ratio = our samples/s over PyTorch eager\'s (SGD step with CrossEntropyLoss); the issue asks >= 1.0.')
