-- nn.functional.fractionalMaxPool2d/3d (and their *WithIndices forms): PyTorch 1.13's fractional
-- max pooling (Graham, 2014) from recorded gather/max ops, so it is differentiable on any device.
local A = require 'nn.functional_args'
local F = nn.functional
local fail = A.fail

-- Note [Fractional pooling windows]: PyTorch's generate_intervals, vectorized over the planes: for
-- sample u in [0, 1) and alpha = (in - k) / (out - 1), window i starts at
-- trunc((i + u) alpha) - trunc(u alpha) (0-based), the last one at in - k. It is computed in the
-- samples' dtype, as PyTorch computes it in the input's scalar type. Returns planes x out (0-based).
local function starts(u, inSize, outSize, k)
  local P = u:size(1)
  local s = torch.LongTensor(P, outSize)
  if outSize > 1 then
    local alpha = (inSize - k) / (outSize - 1)
    local i = u.new(1, outSize - 1):copy(torch.range(0, outSize - 2):view(1, -1))
    local a = torch.mul(torch.add(i:expand(P, outSize - 1), u:view(P, 1):expand(P, outSize - 1)), alpha):floor()
    local b = torch.mul(u, alpha):floor():view(P, 1):expand(P, outSize - 1)
    s:narrow(2, 1, outSize - 1):copy(torch.csub(a, b))
  end
  s:select(2, outSize):fill(inSize - k)
  return s
end

local function sizes(name, v, n, what, min)
  if v == nil then return nil end
  local t = type(v) == 'table' and v or {}
  if type(v) == 'number' then for i = 1, n do t[i] = v end end
  if #t ~= n then fail(name, '%s must be a number or %d numbers, got %s', what, n, tostring(v)) end
  for i = 1, n do
    if type(t[i]) ~= 'number' or t[i] < min then fail(name, '%s must be numbers >= %g', what, min) end
  end
  return t
end

local function fractional(name, n, x, kernelSize, outputSize, outputRatio, returnIndices, samples)
  A.float(name, x, 'an input')
  if x:dim() ~= n + 1 and x:dim() ~= n + 2 then
    fail(name, 'expected a %d-D (C x spatial) or %d-D (N x C x spatial) input, got size %s', n + 1, n + 2, A.shape(x))
  end
  local k = sizes(name, kernelSize, n, 'kernelSize', 1)
  if not k then fail(name, 'kernelSize is required') end
  local batched = x:dim() == n + 2
  local X = batched and x or x:view(torch.LongStorage({ 1, unpack(x:size():totable()) }))
  local N, C = X:size(1), X:size(2)
  local ins = {}
  for i = 1, n do ins[i] = X:size(2 + i) end
  local o = sizes(name, outputSize, n, 'outputSize', 1)
  local ratio = sizes(name, outputRatio, n, 'outputRatio', 0)
  if (o == nil) == (ratio == nil) then fail(name, 'give exactly one of outputSize and outputRatio') end
  if ratio then
    o = {}
    for i = 1, n do
      if ratio[i] <= 0 or ratio[i] >= 1 then fail(name, 'outputRatio must be in (0, 1), got %g', ratio[i]) end
      o[i] = math.floor(ins[i] * ratio[i])
    end
  end
  for i = 1, n do
    if o[i] % 1 ~= 0 or k[i] % 1 ~= 0 then fail(name, 'kernelSize and outputSize must be integers') end
    if o[i] + k[i] - 1 > ins[i] then
      fail(name, 'outputSize %d + kernelSize %d - 1 is too large for an input size %d (dim %d)', o[i], k[i], ins[i], i)
    end
  end
  if samples == nil then
    samples = torch.rand(N, C, n):typeAs(X)
  else
    A.float(name, samples, 'randomSamples')
    if samples:dim() ~= 3 or samples:size(1) ~= N or samples:size(2) ~= C or samples:size(3) ~= n then
      fail(name, 'randomSamples must be %d x %d x %d, got %s', N, C, n, A.shape(samples))
    end
  end
  local P = N * C
  -- the window starts are small index tables, computed on the CPU
  local u = samples:to('cpu'):double():reshape(P, n)
  if x.p.dtype == 0 then u = u:float() end
  -- the sample of each dim: PyTorch uses sample 1 for W and 2 for H in 2-D, T, H, W in order in 3-D
  local order = n == 2 and { 2, 1 } or { 1, 2, 3 }
  local y, pos = X, nil
  local dev = x:device()
  local strides, acc = {}, 1
  for i = n, 1, -1 do strides[i] = acc acc = acc * ins[i] end
  local idxs = {}
  for i = 1, n do
    local st = starts(u:select(2, order[i]):contiguous(), ins[i], o[i], k[i])  -- P x o
    local offs = torch.range(0, k[i] - 1):long():view(1, 1, k[i]):expand(P, o[i], k[i])
    local w = torch.add(st:view(P, o[i], 1):expand(P, o[i], k[i]), offs)
    idxs[i] = w:view(N, C, o[i] * k[i])
  end
  -- gather dim by dim: after step i, spatial dim i has o_i * k_i entries
  for i = 1, n do
    local cur = y:size():totable()
    local shape = { N, C }
    for j = 1, n do shape[2 + j] = (j == i) and o[i] * k[i] or 1 end
    cur[2 + i] = o[i] * k[i]
    local gi = idxs[i]:view(torch.LongStorage(shape)):expand(torch.LongStorage(cur)):to(dev)
    y = y:gather(2 + i, gi:contiguous():add(1))
  end
  -- N x C x (o1 k1) x ... -> N x C x o1 x ... x on x (k1 ... kn)
  local split = { N, C }
  for i = 1, n do split[#split + 1] = o[i] split[#split + 1] = k[i] end
  local perm = { 1, 2 }
  for i = 1, n do perm[#perm + 1] = 2 + 2 * i - 1 end
  for i = 1, n do perm[#perm + 1] = 2 + 2 * i end
  local win = 1
  for i = 1, n do win = win * k[i] end
  local final = { N, C }
  for i = 1, n do final[2 + i] = o[i] end
  final[n + 3] = win
  local cols = y:view(torch.LongStorage(split)):permute(unpack(perm)):reshape(torch.LongStorage(final))
  local v, arg = torch.max(cols, n + 3)
  local outShape = { unpack(final, 1, n + 2) }
  v = v:view(torch.LongStorage(outShape))
  if not batched then v = v:select(1, 1) end
  if not returnIndices then return v end
  -- flat input positions of every window element, arranged as cols, read at the argmax
  local flat
  for i = 1, n do
    local shape = { N, C }
    for j = 1, n do shape[2 * j + 1] = (j == i) and o[i] or 1 shape[2 * j + 2] = (j == i) and k[i] or 1 end
    local t = torch.mul(idxs[i]:view(torch.LongStorage(shape)), strides[i])
    flat = flat and torch.add(flat, t:expand(torch.LongStorage(split))) or t:expand(torch.LongStorage(split))
  end
  flat = flat:contiguous():permute(unpack(perm)):reshape(torch.LongStorage(final)):add(1)
  local argShape = { unpack(final) }
  argShape[n + 3] = 1
  local ind = flat:to(dev):gather(n + 3, arg:view(torch.LongStorage(argShape))):view(torch.LongStorage(outShape))
  if not batched then ind = ind:select(1, 1) end
  return v, ind
end

--- nn.functional.fractionalMaxPool2d(x, kernelSize [, outputSize] [, outputRatio]
--- [, returnIndices = false] [, randomSamples]): fractional max pooling of an N x C x H x W (or
--- C x H x W) tensor: pseudo-random windows of kernelSize whose starts are spread by one sample in
--- [0, 1) per plane and dim (randomSamples, N x C x 2, PyTorch's _random_samples: [..][1] for W,
--- [..][2] for H; drawn uniformly when absent). Give outputSize ({oh, ow} or a number) or
--- outputRatio (in (0, 1): floor(size * ratio)). With returnIndices also the 1-based flat positions.
--- Example: nn.functional.fractionalMaxPool2d(torch.randn(1, 2, 8, 8), 2, {4, 4})
function F.fractionalMaxPool2d(x, kernelSize, outputSize, outputRatio, returnIndices, randomSamples)
  return fractional('nn.functional.fractionalMaxPool2d', 2, x, kernelSize, outputSize, outputRatio, returnIndices,
    randomSamples)
end
--- nn.functional.fractionalMaxPool3d(x, kernelSize [, outputSize] [, outputRatio]
--- [, returnIndices = false] [, randomSamples]): fractionalMaxPool2d for N x C x T x H x W (or
--- C x T x H x W) tensors; randomSamples N x C x 3 (T, H, W).
--- Example: nn.functional.fractionalMaxPool3d(torch.randn(1, 1, 6, 6, 6), 2, 3)
function F.fractionalMaxPool3d(x, kernelSize, outputSize, outputRatio, returnIndices, randomSamples)
  return fractional('nn.functional.fractionalMaxPool3d', 3, x, kernelSize, outputSize, outputRatio, returnIndices,
    randomSamples)
end
--- nn.functional.fractionalMaxPool2dWithIndices(x, kernelSize [, outputSize] [, outputRatio]
--- [, randomSamples]): fractionalMaxPool2d's output and 1-based indices.
--- Example: local y, i = nn.functional.fractionalMaxPool2dWithIndices(torch.randn(1, 1, 8, 8), 2, 4)
function F.fractionalMaxPool2dWithIndices(x, k, o, r, s) return F.fractionalMaxPool2d(x, k, o, r, true, s) end
--- nn.functional.fractionalMaxPool3dWithIndices(x, kernelSize [, outputSize] [, outputRatio]
--- [, randomSamples]): fractionalMaxPool3d's output and 1-based indices.
--- Example: local y, i = nn.functional.fractionalMaxPool3dWithIndices(torch.randn(1, 1, 6, 6, 6), 2, 3)
function F.fractionalMaxPool3dWithIndices(x, k, o, r, s) return F.fractionalMaxPool3d(x, k, o, r, true, s) end

return F
