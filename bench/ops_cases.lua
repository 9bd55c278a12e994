-- The cases of bench/ops.lua: a list of { id =, make =, nograd = }, where make() builds the inputs
-- and returns the function to time (nograd: timed with grad mode off, as torch.no_grad() in
-- bench/ops.py). Ids are op.size[.dim][.form]; form alloc returns a new result, into writes an
-- existing one, inplace changes its input. Dims are 1-based here (last = 2, first = 1) and
-- reductions keep the reduced dim, Torch7's way; bench/ops.py builds the same ids with 0-based
-- dims, keepdim=True and Bool masks where ours are Byte.
local C = {}
local function case(id, make, nograd) C[#C + 1] = { id = id, make = make, nograd = nograd } end
local randn = torch.randn
-- case of f(x) with x = init(n, m) (default randn)
local function on(id, n, m, f, init)
  case(id, function() local x = (init or randn)(n, m); return function() return f(x) end end)
end
local function near1(n, m) return torch.Tensor(n, m):uniform(0.999, 1.001) end
local function mask(n, m) return randn(n, m):gt(0) end
local function list8(n, m) local t = {}; for j = 1, 8 do t[j] = randn(n, m) end; return t end

for _, n in ipairs({ 256, 2048 }) do
  local L = n .. 'x' .. n
  -- reductions along a dim, last (2) then first (1)
  for _, d in ipairs({ 2, 1 }) do
    local tag = L .. '.' .. (d == 2 and 'last' or 'first')
    on('max(dim).' .. tag .. '.alloc', n, n, function(x) return x:max(d) end)
    case('max(dim).' .. tag .. '.into', function()
      local x, v, i = randn(n, n), torch.Tensor(), torch.LongTensor()
      return function() torch.max(v, i, x, d) end
    end)
    on('min(dim).' .. tag .. '.alloc', n, n, function(x) return x:min(d) end)
    on('mean(dim).' .. tag .. '.alloc', n, n, function(x) return x:mean(d) end)
    case('mean(dim).' .. tag .. '.into', function()
      local x, r = randn(n, n), torch.Tensor(); return function() torch.mean(r, x, d) end
    end)
    on('var(dim).' .. tag .. '.alloc', n, n, function(x) return x:var(d) end)
    on('std(dim).' .. tag .. '.alloc', n, n, function(x) return x:std(d) end)
    on('norm2(dim).' .. tag .. '.alloc', n, n, function(x) return x:norm(2, d) end)
    on('prod(dim).' .. tag .. '.alloc', n, n, function(x) return x:prod(d) end, near1)
    on('logsumexp(dim).' .. tag .. '.alloc', n, n, function(x) return torch.logsumexp(x, d) end)
    on('cumsum(dim).' .. tag .. '.alloc', n, n, function(x) return torch.cumsum(x, d) end)
    case('cumsum(dim).' .. tag .. '.into', function()
      local x, r = randn(n, n), torch.Tensor(); return function() torch.cumsum(r, x, d) end
    end)
    on('cumprod(dim).' .. tag .. '.alloc', n, n, function(x) return torch.cumprod(x, d) end, near1)
  end
  -- sorting family along the last dim; topk's dir = true: the largest, sorted
  on('sort.' .. L .. '.alloc', n, n, function(x) return x:sort(2) end)
  case('sort.' .. L .. '.into', function()
    local x, v, i = randn(n, n), torch.Tensor(), torch.LongTensor(); return function() torch.sort(v, i, x, 2) end
  end)
  for _, k in ipairs({ 5, 100 }) do
    on('topk' .. k .. '.' .. L .. '.alloc', n, n, function(x) return x:topk(k, 2, true, true) end)
  end
  on('kthvalue(k=10).' .. L .. '.alloc', n, n, function(x) return x:kthvalue(10, 2) end)
  on('median(dim).' .. L .. '.alloc', n, n, function(x) return x:median(2) end)
  -- comparisons and masks (ByteTensor masks)
  local function two(id, f)
    case(id, function() local a, b = randn(n, n), randn(n, n); return function() return f(a, b) end end)
  end
  two('gt(t,t).' .. L .. '.alloc', torch.gt)
  case('gt(t,t).' .. L .. '.into', function()
    local a, b, r = randn(n, n), randn(n, n), torch.ByteTensor(n, n); return function() torch.gt(r, a, b) end
  end)
  on('gt(t,0).' .. L .. '.alloc', n, n, function(a) return torch.gt(a, 0) end)
  two('lt(t,t).' .. L .. '.alloc', torch.lt)
  two('eq(t,t).' .. L .. '.alloc', torch.eq)
  case('where.' .. L .. '.alloc', function()
    local m, a, b = mask(n, n), randn(n, n), randn(n, n); return function() return torch.where(m, a, b) end
  end)
  case('maskedFill.' .. L .. '.inplace', function()
    local m, a = mask(n, n), randn(n, n); return function() a:maskedFill(m, 0) end
  end)
  case('maskedSelect.' .. L .. '.alloc', function()
    local m, a = mask(n, n), randn(n, n); return function() return a:maskedSelect(m) end
  end)
  case('maskedSelect.' .. L .. '.into', function()
    local m, a, r = mask(n, n), randn(n, n), torch.Tensor(); return function() torch.maskedSelect(r, a, m) end
  end)
  on('nonzero.' .. L .. '.alloc', n, n, function(m) return torch.nonzero(m) end, mask)
  local function bytes(v) return function() return torch.ByteTensor(n, n):fill(v) end end
  on('any(full,none-set).' .. L, n, n, function(m) return m:any() end, bytes(0))
  on('all(full,all-set).' .. L, n, n, function(m) return m:all() end, bytes(1))
  -- copies: cat/stack of 8 pieces, repeat, expand, narrow, flip
  local p = n / 8
  on('cat8(dim1).' .. L .. '.alloc', p, n, function(t) return torch.cat(t, 1) end, list8)
  case('cat8(dim1).' .. L .. '.into', function()
    local t, r = list8(p, n), torch.Tensor(); return function() torch.cat(r, t, 1) end
  end)
  on('cat8(dim2).' .. L .. '.alloc', n, p, function(t) return torch.cat(t, 2) end, list8)
  on('stack8(dim1).' .. L .. '.alloc', p, n, function(t) return torch.stack(t, 1) end, list8)
  on('repeat(2,2).' .. L .. '.alloc', n / 2, n / 2, function(x) return x:repeatTensor(2, 2) end)
  on('expand(1,n)+contig.' .. L, 1, n, function(x) return x:expand(n, n):contiguous() end)
  on('expand(n,1)+contig.' .. L, n, 1, function(x) return x:expand(n, n):contiguous() end)
  case('narrow(dim2)+copy.' .. L .. '.into', function()
    local x, r = randn(n, 2 * n), torch.Tensor(n, n); return function() r:copy(x:narrow(2, n / 2 + 1, n)) end
  end)
  on('flip(dim2).' .. L, n, n, function(x) return torch.flip(x, { 2 }) end)
  -- dtype conversions from float (long: of randn * 100) and from byte
  for _, c in ipairs({ { 'double', 'DoubleTensor' }, { 'half', 'HalfTensor' }, { 'bf16', 'BFloat16Tensor' },
                       { 'long', 'LongTensor' } }) do
    local init = c[1] == 'long' and function() return randn(n, n):mul(100) end or randn
    local method = c[1] == 'bf16' and 'bfloat16' or c[1]
    on('float->' .. c[1] .. '.' .. L .. '.alloc', n, n, function(x) return x[method](x) end, init)
    case('float->' .. c[1] .. '.' .. L .. '.into', function()
      local x, r = init(n, n), torch[c[2]](n, n); return function() r:copy(x) end
    end)
  end
  local function random_bytes() return torch.ByteTensor(n, n):random(0, 255) end
  on('byte->float.' .. L .. '.alloc', n, n, function(x) return x:float() end, random_bytes)
  case('byte->float.' .. L .. '.into', function()
    local x, r = random_bytes(), torch.Tensor(n, n); return function() r:copy(x) end
  end)
  -- random fills
  local function empty() return torch.Tensor(n, n) end
  on('uniform_.' .. L .. '.inplace', n, n, function(x) x:uniform() end, empty)
  on('normal_.' .. L .. '.inplace', n, n, function(x) x:normal() end, empty)
  case('randn.' .. L .. '.alloc', function() return function() return randn(n, n) end end)
  on('bernoulli_(0.5).' .. L .. '.inplace', n, n, function(x) x:bernoulli(0.5) end, empty)
  -- activations
  for _, f in ipairs({ 'sigmoid', 'tanh' }) do
    on(f .. '.' .. L .. '.alloc', n, n, torch[f])
    case(f .. '.' .. L .. '.into', function()
      local x, r = randn(n, n), torch.Tensor(n, n); return function() r[f](r, x) end
    end)
  end
  on('relu.' .. L .. '.alloc', n, n, torch.relu)
  on('cmax(x,0)~clamp(min=0).' .. L .. '.alloc', n, n, function(x) return torch.cmax(x, 0) end)
  case('cmax(x,0)~clamp(min=0).' .. L .. '.into', function()
    local x, r = randn(n, n), torch.Tensor(n, n); return function() torch.cmax(r, x, 0) end
  end)
  on('clamp(0,inf).' .. L .. '.alloc', n, n, function(x) return torch.clamp(x, 0, math.huge) end)
  on('logSoftmax(dim2).' .. L .. '.alloc', n, n, function(x) return torch.logSoftmax(x, 2) end)
end

-- small, typical sizes
on('logSoftmax(dim2).64x1000.alloc', 64, 1000, function(x) return torch.logSoftmax(x, 2) end)
on('logSoftmax(dim2).64x10.alloc', 64, 10, function(x) return torch.logSoftmax(x, 2) end)
on('max(dim).64x10.last.alloc', 64, 10, function(x) return x:max(2) end)
on('max(dim).64x1000.last.alloc', 64, 1000, function(x) return x:max(2) end)
on('topk5.64x10.alloc', 64, 10, function(x) return x:topk(5, 2, true, true) end)
on('topk5.64x1000.alloc', 64, 1000, function(x) return x:topk(5, 2, true, true) end)
on('sort.64x10.alloc', 64, 10, function(x) return x:sort(2) end)
case('eq(long).64.alloc', function()
  local a, b = torch.LongTensor(64):random(1, 10), torch.LongTensor(64):random(1, 10)
  return function() return torch.eq(a, b) end
end)
on('sigmoid.64x10.alloc', 64, 10, torch.sigmoid)
on('cumsum(dim).64x10.last.alloc', 64, 10, function(x) return torch.cumsum(x, 2) end)
on('mean(dim).64x10.last.alloc', 64, 10, function(x) return x:mean(2) end)

-- matmuls
for _, m in ipairs({ 64, 128 }) do
  local L = m .. 'x' .. m
  case('mm.' .. L .. '.alloc', function()
    local a, b = randn(m, m), randn(m, m); return function() return torch.mm(a, b) end
  end)
  case('mm.' .. L .. '.into', function()
    local a, b, r = randn(m, m), randn(m, m), torch.Tensor(m, m); return function() torch.mm(r, a, b) end
  end)
end
case('bmm.32x64x64.alloc', function()
  local a, b = randn(32, 64, 64), randn(32, 64, 64); return function() return torch.bmm(a, b) end
end)
case('bmm.32x64x64.into', function()
  local a, b, r = randn(32, 64, 64), randn(32, 64, 64), torch.Tensor(32, 64, 64)
  return function() torch.bmm(r, a, b) end
end)
case('addmm(linear).128x784x256.alloc', function()
  local x, w, bias = randn(128, 784), randn(256, 784), randn(256)
  return function() return torch.addmm(bias, x, w:t()) end
end)
case('addmm(linear).128x784x256.into', function()
  local x, w, bias, r = randn(128, 784), randn(256, 784), randn(256), torch.Tensor(128, 256)
  return function() torch.addmm(r, bias, x, w:t()) end
end)

-- convolution and pooling, grad mode off. nn is required only here, just before these last cases:
-- loading it grows the Lua heap, which slows the allocating cases above.
-- TemporalConvolution takes (N, T, C); its PyTorch twin is conv1d on (N, C, T)
case('TemporalConvolution(64->64,k5).32x128x64', function()
  require 'nn'
  local m, x = nn.TemporalConvolution(64, 64, 5, 1), randn(32, 128, 64)
  return function() return m:forward(x) end
end, true)
case('conv1d(64->64,k5).32x64x128', function()
  local x, w, b = randn(32, 64, 128), randn(64, 64, 5), randn(64); return function() return torch.conv1d(x, w, b) end
end, true)
case('SpatialAveragePooling(2x2s2).64x32x28x28', function()
  require 'nn'
  local m, x = nn.SpatialAveragePooling(2, 2, 2, 2), randn(64, 32, 28, 28)
  return function() return m:forward(x) end
end, true)
case('SpatialAveragePooling(3x3s1p1).64x32x28x28', function()
  require 'nn'
  local m, x = nn.SpatialAveragePooling(3, 3, 1, 1, 1, 1), randn(64, 32, 28, 28)
  return function() return m:forward(x) end
end, true)


-- PyTorch's functions of the second round (docs/pytorch_functions.md) at 256x256; reductions drop
-- the dim here, as in PyTorch
local N = 256
local function long_in(n, m) return torch.LongTensor(n, m):random(1, 1000) end
on('amax(dim).256x256.last.alloc', N, N, function(x) return torch.amax(x, 2) end)
on('amax(dim).256x256.first.alloc', N, N, function(x) return torch.amax(x, 1) end)
on('nansum(dim).256x256.last.alloc', N, N, function(x) return torch.nansum(x, 2) end)
on('logcumsumexp(dim).256x256.last.alloc', N, N, function(x) return torch.logcumsumexp(x, 2) end)
on('cummax(dim).256x256.last.alloc', N, N, function(x) return torch.cummax(x, 2) end)
on('quantile(0.5,dim).256x256.last.alloc', N, N, function(x) return torch.quantile(x, 0.5, 2) end)
for _, f in ipairs({ 'hypot', 'logaddexp', 'xlogy' }) do
  case(f .. '.256x256.alloc', function()
    local a, b = torch.rand(N, N), torch.rand(N, N); return function() return torch[f](a, b) end
  end)
end
for _, f in ipairs({ 'bitwiseAnd', 'gcd' }) do
  case(f .. '(long).256x256.alloc', function()
    local a, b = long_in(N, N), long_in(N, N); return function() return torch[f](a, b) end
  end)
end
case('scatterReduce(amax).256x256.alloc', function()
  local x, src, idx = randn(N, N), randn(N, N), torch.LongTensor(N, N):random(1, N)
  return function() return torch.scatterReduce(x, 2, idx, src, 'amax') end
end)
case('isin.65536in1000.alloc', function()
  local a, b = long_in(256, 256), torch.LongTensor(1000):random(1, 2000)
  return function() return torch.isin(a, b) end
end)
case('cdist(p2).256x64,256x64.alloc', function()
  local a, b = randn(N, 64), randn(N, 64); return function() return torch.cdist(a, b) end
end)
on('repeatInterleave(3,dim1).256x256.alloc', N, N, function(x) return torch.repeatInterleave(x, 3, 1) end)
for _, f in ipairs({ 'svd', 'eigh', 'cholesky', 'matrixExp' }) do
  case('linalg.' .. f .. '.64x64', function()
    local a = randn(64, 64)
    local spd = torch.mm(a, a:t()):add(64, torch.eye(64))
    return function() return torch.linalg[f](spd) end
  end, true)
end
case('linalg.solve.8x32x32,8x32x4', function()
  local a, b = randn(8, 32, 32):add(torch.eye(32):mul(32):view(1, 32, 32)), randn(8, 32, 4)
  return function() return torch.linalg.solve(a, b) end
end, true)
case('linalg.solveTriangular.512x512,512x4', function()
  local a, b = torch.triu(randn(512, 512)):add(torch.eye(512):mul(512)), randn(512, 4)
  return function() return torch.linalg.solveTriangular(a, b, { upper = true }) end
end, true)
case('kron.32x32,32x32.alloc', function()
  local a, b = randn(32, 32), randn(32, 32); return function() return torch.kron(a, b) end
end)

return C
