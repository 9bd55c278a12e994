-- GPU benchmark (issue 9): sgemm and bf16 GEMM at 4096 and 8192, a full-tensor sum, a large
-- elementwise add, and the per-op launch overhead of a tiny op, against PyTorch's twin script
-- (bench/cuda.py) on the same GPU in the same run. Needs a CUDA device.
-- Usage: tocha bench/cuda.lua [build dir]   (prints "name  tocha  pytorch  ratio", ratio = pytorch/tocha
-- time, then the CUDA runtime's launch floor from build/bench/bench_launch_ref)
if not torch.cuda.isAvailable() then
  print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
  return
end
local props = torch.cuda.getDeviceProperties(0)
print(string.format('device: %s (sm_%d%d, %.0f GiB)', props.name, props.major, props.minor, props.totalMemory / 2 ^ 30))

local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')
local bench = H.best_cuda  -- ms per call

local ours = {}
local order = {}
local function add(name, ms) ours[name] = ms; order[#order + 1] = name end

-- The tiny ops: the launch overhead of one op, with and without a new result, and the host's
-- part alone (not waiting for the GPU): how much is ours and the driver's, and how much the
-- GPU's own pace between back-to-back kernels.
local function tiny_ops(suffix)
  local t1, t2, t3 = torch.CudaTensor(1):fill(1), torch.CudaTensor(1):fill(2), torch.CudaTensor(1)
  add('tiny_add_launch' .. suffix, bench(function() return t1 + t2 end, 20000))
  add('tiny_add_out' .. suffix, bench(function() t3:add(t1, t2) end, 20000))  -- the launch without an allocation
  add('tiny_add_launch_host' .. suffix, H.host_cuda(function() return t1 + t2 end))
  add('tiny_add_out_host' .. suffix, H.host_cuda(function() t3:add(t1, t2) end))
end
-- A child run with TOCHA_CUDA_DRIVER_LAUNCH=1 (Note [Driver launches]) prints only its tiny ops.
if os.getenv('TOCHA_BENCH_TINY_ONLY') then
  tiny_ops('_driver')
  -- the driver launches must compute what the runtime's do
  local t1, t2, t3 = torch.CudaTensor(1):fill(1), torch.CudaTensor(1):fill(2), torch.CudaTensor(1)
  t3:add(t1, t2)
  assert(t3[1] == 3 and (t1 + t2)[1] == 3, 'driver launches: 1 + 2 gave ' .. t3[1])
  for _, k in ipairs(order) do print(k, ours[k]) end
  return
end

for _, n in ipairs({ 4096, 8192 }) do
  local a, b = torch.CudaTensor(n, n):uniform(-1, 1), torch.CudaTensor(n, n):uniform(-1, 1)
  local c = torch.CudaTensor(n, n)
  add('sgemm' .. n, bench(function() c:mm(a, b) end, n == 4096 and 20 or 5))
  local ah, bh, ch = a:type('torch.CudaBFloat16Tensor'), b:type('torch.CudaBFloat16Tensor'), torch.CudaBFloat16Tensor(n, n)
  add('bf16gemm' .. n, bench(function() ch:mm(ah, bh) end, n == 4096 and 50 or 10))
  a, b, c, ah, bh, ch = nil, nil, nil, nil, nil, nil
  collectgarbage()
end
local x = torch.CudaTensor(2 ^ 26):fill(1)
local y = torch.CudaTensor(2 ^ 26):fill(2)
local z = torch.CudaTensor(2 ^ 26)
add('add_256MiB', bench(function() z:add(x, y) end, 20))
add('sum_256MiB', bench(function() return x:sum(1) end, 20))
x, y, z = nil, nil, nil
collectgarbage()
-- Batch norm of a first convolution's output, training mode, forward and backward
-- (Note [Batch norm across blocks]).
do
  require 'nn'
  local bn = nn.SpatialBatchNormalization(32):cuda()
  local input, grad = torch.CudaTensor(1024, 32, 28, 28):normal(), torch.CudaTensor(1024, 32, 28, 28):normal()
  add('batchnorm_1024x32x28x28', bench(function()
    bn:zeroGradParameters()
    bn:forward(input)
    bn:backward(input, grad)
  end, 20))
end
collectgarbage()
-- Layer norm of a transformer's activations and cross-entropy over 1000 classes, forward and
-- backward (Notes [Layer-norm parameter gradients across blocks], [Wide class rows]).
do
  local ln = nn.LayerNormalization(512):cuda()
  local input, grad = torch.CudaTensor(8192, 512):normal(), torch.CudaTensor(8192, 512):normal()
  add('layernorm_8192x512', bench(function()
    ln:zeroGradParameters()
    ln:forward(input)
    ln:backward(input, grad)
  end, 50))
  local ce = nn.CrossEntropyCriterion():cuda()
  local scores, target = torch.CudaTensor(256, 1000):normal(), torch.LongTensor(256):random(1, 1000):cuda()
  add('crossentropy_256x1000', bench(function()
    ce:forward(scores, target)
    ce:backward(scores, target)
  end, 200))
end
collectgarbage()
tiny_ops('')
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local build = arg and arg[1] or here .. '/../build'
local child = io.popen(string.format('TOCHA_BENCH_TINY_ONLY=1 TOCHA_CUDA_DRIVER_LAUNCH=1 %s/tocha %s/cuda.lua %s 2>&1',
                                     build, here, build))
for line in child:lines() do
  local k, v = line:match('^(tiny_%S+)%s+(%S+)$')
  if k and tonumber(v) then add(k, tonumber(v)) else io.write('driver-launch child: ', line, '\n') end
end
child:close()

local ref = {}
local py = os.getenv('PYTHON') or 'python3'
local p = io.popen(py .. ' ' .. here .. '/cuda.py 2>&1')
for line in p:lines() do
  local k, v = line:match('^(%S+)%s+(%S+)$')
  if k and tonumber(v) then ref[k] = tonumber(v) else io.write('pytorch: ', line, '\n') end
end
p:close()
print(string.format('%-28s %12s %12s %8s', 'benchmark', 'tocha ms', 'pytorch ms', 'ratio'))
for _, k in ipairs(order) do
  local r = ref[k]
  print(string.format('%-28s %12.4f %12s %8s', k, ours[k], r and string.format('%.4f', r) or '-',
                      r and string.format('%.2fx', r / ours[k]) or '-'))
end
-- The CUDA runtime's own cost of a launch (bench/launch_ref.cu), the floor under the tiny ops.
local exe = build .. '/bench/bench_launch_ref'
local lp = io.popen(exe .. ' 2>&1')
if lp then
  for line in lp:lines() do
    local k, v = line:match('^(launch_%S+)%s+(%S+)$')
    if k then
      print(string.format('%-28s %12.4f   (CUDA runtime alone; tiny_add_out spends %.4f ms above it)', k,
                          tonumber(v), ours.tiny_add_out - tonumber(v)))
    else
      print('bench_launch_ref: ' .. line)
    end
  end
  lp:close()
end
