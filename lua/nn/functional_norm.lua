-- nn.functional's normalizations (layerNorm, groupNorm, instanceNorm, batchNorm,
-- localResponseNorm) and channel rearrangements (pixelShuffle, pixelUnshuffle, channelShuffle), made
-- of recorded torch ops so that they are differentiable; the nn modules of the same names call them.
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail

-- w viewed to broadcast along dim 2 of an n-D tensor (a per-channel vector).
local function per_channel(w, n)
  local shape = torch.LongStorage(n):fill(1)
  shape[2] = w:nElement()
  return w:view(shape)
end

local function affine(y, w, b)
  if w ~= nil then y = torch.cmul(y, per_channel(w, y:dim())) end
  if b ~= nil then y = torch.add(y, per_channel(b, y:dim())) end
  return y
end

local function channel_params(op, x, w, b)
  for _, t in ipairs({ { w, 'weight' }, { b, 'bias' } }) do
    if t[1] ~= nil then
      A.float(op, t[1], 'a ' .. t[2])
      if t[1]:nElement() ~= x:size(2) then
        fail(op, '%s has %d elements but the input has %d channels', t[2], t[1]:nElement(), x:size(2))
      end
    end
  end
end

--- nn.functional.layerNorm(x, normalizedShape [, weight] [, bias] [, eps = 1e-5]): normalizes over
--- the trailing dims given by normalizedShape (a number, a table or a LongStorage), which must
--- match x's last dims; weight and bias have that shape.
function F.layerNorm(x, shape, w, b, eps)
  A.float('layerNorm', x)
  if type(shape) == 'number' then shape = { shape }
  elseif torch.typename(shape) == 'torch.LongStorage' then shape = shape:totable()
  elseif type(shape) ~= 'table' then fail('layerNorm', 'expected normalizedShape as a number or a table, got %s', type(shape)) end
  local k, n = #shape, x:dim()
  local ok = k >= 1 and k <= n
  for i = 1, k do ok = ok and x:size(n - k + i) == shape[i] end
  if not ok then
    fail('layerNorm', 'normalizedShape %s does not match the last dims of an input of size %s',
      table.concat(shape, 'x'), A.shape(x))
  end
  return torch.layerNorm(x, k, w, b, A.number('layerNorm', eps, 'eps', 1e-5))
end

--- nn.functional.groupNorm(x, numGroups [, weight] [, bias] [, eps = 1e-5]): x (N x C x ...) with
--- its C channels split into numGroups groups, each normalized over its channels and positions;
--- weight and bias are per channel.
function F.groupNorm(x, g, w, b, eps)
  A.float('groupNorm', x)
  g = A.int('groupNorm', g, 'numGroups')
  if x:dim() < 2 then fail('groupNorm', 'expected an N x C x ... input, got size %s', A.shape(x)) end
  if g < 1 or x:size(2) % g ~= 0 then
    fail('groupNorm', 'numGroups %d does not divide the %d channels', g, x:size(2))
  end
  channel_params('groupNorm', x, w, b)
  local per_group = x:nElement() / math.max(x:size(1) * g, 1)  -- not -1: an empty batch cannot infer it
  local y = torch.layerNorm(x:contiguous():view(x:size(1), g, per_group), 1, nil, nil,
    A.number('groupNorm', eps, 'eps', 1e-5)):view(x:size())
  return affine(y, w, b)
end

--- nn.functional.instanceNorm(x [, {runningMean=, runningVar=, weight=, bias=, useInputStats = true,
--- momentum = 0.1, eps = 1e-5}]): each channel of each sample of x (N x C x ...) normalized over
--- its positions (biased variance). With useInputStats and running statistics given, these are
--- updated in place with the batch mean of the instance statistics (unbiased variance), as
--- PyTorch does; without useInputStats the running statistics normalize instead.
local inorm_opts = { runningMean = true, runningVar = true, weight = true, bias = true, useInputStats = true,
                     momentum = true, eps = true }
function F.instanceNorm(x, o)
  local op = 'instanceNorm'
  A.float(op, x)
  o = A.opts(op, o, inorm_opts)
  if x:dim() < 3 then fail(op, 'expected an N x C x ... input with at least one position dim, got size %s', A.shape(x)) end
  local w, b, rm, rv = o.weight, o.bias, o.runningMean, o.runningVar
  channel_params(op, x, w, b)
  if (rm == nil) ~= (rv == nil) then fail(op, 'runningMean and runningVar go together') end
  local eps, mom = A.number(op, o.eps, 'eps', 1e-5), A.number(op, o.momentum, 'momentum', 0.1)
  local use = A.bool(op, o.useInputStats, 'useInputStats', true)
  local N, C = x:size(1), x:size(2)
  if rm ~= nil then
    for _, t in ipairs({ rm, rv }) do
      A.float(op, t, 'running statistics')
      if t:nElement() ~= C then fail(op, 'running statistics have %d elements for %d channels', t:nElement(), C) end
    end
  end
  local L = 1  -- the positions per channel (view(N, C, -1) cannot infer it for an empty batch)
  for d = 3, x:dim() do L = L * x:size(d) end
  local y
  if use then
    -- Note [Instance statistics need 2 positions]: PyTorch's instance_norm refuses a single position
    -- per channel when it normalizes with the input's statistics: the variance is 0, so every output
    -- was silently 0 (and the running variance took a biased 0, there being no unbiased one)
    if L == 1 then
      fail(op, 'expected more than 1 spatial element when using the input statistics, got an input of size %s',
        A.shape(x))
    end
    local flat = x:contiguous():view(N, C, L)
    y = torch.layerNorm(flat, 1, nil, nil, eps):view(x:size())
    -- an empty batch leaves the running statistics as they are (PyTorch's turn NaN: a mean of nothing)
    if rm ~= nil and N > 0 and L > 0 then
      torch.noGrad(function()
        local d = flat:detach()
        local mean = d:mean(3):view(N, C)
        local var = d:var(3, false):view(N, C)  -- unbiased (Torch7's flag: true is biased)
        rm:mul(1 - mom):add(mom, mean:mean(1):view(rm:size()):typeAs(rm))
        rv:mul(1 - mom):add(mom, var:mean(1):view(rv:size()):typeAs(rv))
      end)
    end
  else
    if rm == nil then fail(op, 'useInputStats = false needs runningMean and runningVar') end
    local m = per_channel(rm:typeAs(x), x:dim())
    local s = per_channel(torch.add(rv:typeAs(x), eps):rsqrt(), x:dim())
    y = torch.cmul(torch.csub(x, m:expandAs(x)), s:expandAs(x))
  end
  return affine(y, w, b)
end

--- nn.functional.batchNorm(x, runningMean, runningVar [, weight] [, bias] [, training = false]
--- [, momentum = 0.1] [, eps = 1e-5]): torch.batchNorm (PyTorch's argument order).
function F.batchNorm(x, rm, rv, w, b, training, momentum, eps)
  return torch.batchNorm(A.float('batchNorm', x), rm, rv, w, b, training, momentum, eps)
end

--- nn.functional.localResponseNorm(x, size [, alpha = 1e-4] [, beta = 0.75] [, k = 1]): each
--- element of x (N x C x ...) divided by (k + alpha / size * sum of squares over the `size`
--- channels around it)^beta; the window spans c - floor(size / 2) .. c + floor((size - 1) / 2),
--- zero beyond the edges (PyTorch's LocalResponseNorm, Torch7's SpatialCrossMapLRN).
function F.localResponseNorm(x, size, alpha, beta, k)
  local op = 'localResponseNorm'
  A.float(op, x)
  size = A.requiredInt(op, size, 'size')
  if size < 1 then fail(op, 'size must be positive, got %d', size) end
  alpha, beta, k = A.number(op, alpha, 'alpha', 1e-4), A.number(op, beta, 'beta', 0.75), A.number(op, k, 'k', 1)
  if x:dim() < 3 then fail(op, 'expected an N x C x ... input with at least one position dim, got size %s', A.shape(x)) end
  local C = x:size(2)
  local sq = torch.cmul(x, x)
  -- the window reaches at most C - 1 channels either way: a larger size only pads more zeros (and
  -- size = 1e9 padded 5e8 zero channels and looped 1e9 times); alpha / size keeps the full size
  local before, after = math.min(math.floor(size / 2), C - 1), math.min(math.floor((size - 1) / 2), C - 1)
  local width = before + after + 1
  local parts = {}
  local zsize = x:size()
  if before > 0 then zsize[2] = before parts[#parts + 1] = x.new(zsize):zero() end
  parts[#parts + 1] = sq
  if after > 0 then zsize[2] = after parts[#parts + 1] = x.new(zsize):zero() end
  local padded = #parts > 1 and torch.cat(parts, 2) or sq
  local acc = padded:narrow(2, 1, C)
  for i = 2, width do acc = torch.add(acc, padded:narrow(2, i, C)) end
  local div = torch.pow(torch.add(torch.mul(acc, alpha / size), k), beta)
  return torch.cdiv(x, div)
end

--- nn.functional.pixelShuffle(x, r): rearranges a (* x C*r*r x H x W) tensor (at least 3 dims, any
--- leading dims, as PyTorch) into (* x C x H*r x W*r): output[c][h*r + i][w*r + j] =
--- input[c*r*r + i*r + j][h][w] (0-based).
--- Example: nn.functional.pixelShuffle(torch.randn(1, 8, 2, 3), 2):size()
function F.pixelShuffle(x, r)
  local op = 'pixelShuffle'
  A.tensor(op, x, 'an input')
  if x:dim() < 3 then
    fail(op, 'expected a 3D or 4D (or more dims: * x C*r*r x H x W) tensor, got %s',
      x:dim() == 0 and 'a 0-dim tensor' or 'size ' .. A.shape(x))
  end
  r = A.requiredInt(op, r, 'the upscale factor')
  if r < 1 then fail(op, 'upscale factor %d must be positive', r) end
  local n = x:dim()
  local c = x:size(n - 2)
  if c % (r * r) ~= 0 then fail(op, 'input of size %s has %d channels, not a multiple of %d', A.shape(x), c, r * r) end
  local h, w = x:size(n - 1), x:size(n)
  local b = 1  -- the leading dims, flattened (Note [Pixel shuffles of any rank])
  for d = 1, n - 3 do b = b * x:size(d) end
  local y = x:reshape(b, c / (r * r), r, r, h, w):permute(1, 2, 5, 3, 6, 4):contiguous()
  local size = x:size()
  size[n - 2], size[n - 1], size[n] = c / (r * r), h * r, w * r
  return y:view(size)
end

-- Note [Pixel shuffles of any rank]: PyTorch's pixel_shuffle/pixel_unshuffle take (* x C x H x W)
-- with any leading dims (at least 3 dims in all); 5-D inputs (N x T x C x H x W video) raised an
-- error here. The leading dims are flattened into one batch and restored.
--- nn.functional.pixelUnshuffle(x, r): the inverse of pixelShuffle: (* x C x H*r x W*r) (at least 3
--- dims) into (* x C*r*r x H x W): output[c*r*r + i*r + j][h][w] = input[c][h*r + i][w*r + j]
--- (0-based).
--- Example: nn.functional.pixelUnshuffle(torch.randn(1, 2, 4, 6), 2):size()
function F.pixelUnshuffle(x, r)
  local op = 'pixelUnshuffle'
  A.tensor(op, x, 'an input')
  if x:dim() < 3 then
    fail(op, 'expected a 3D or 4D (or more dims: * x C x H*r x W*r) tensor, got size %s', A.shape(x))
  end
  r = A.requiredInt(op, r, 'the downscale factor')
  if r < 1 then fail(op, 'downscale factor %d must be positive', r) end
  local n = x:dim()
  local c, h, w = x:size(n - 2), x:size(n - 1), x:size(n)
  if h % r ~= 0 or w % r ~= 0 then fail(op, 'input of size %s: height and width must be multiples of %d', A.shape(x), r) end
  local b = 1
  for d = 1, n - 3 do b = b * x:size(d) end
  local y = x:reshape(b, c, h / r, r, w / r, r):permute(1, 2, 4, 6, 3, 5):contiguous()
  local size = x:size()
  size[n - 2], size[n - 1], size[n] = c * r * r, h / r, w / r
  return y:view(size)
end

--- nn.functional.channelShuffle(x, groups): x (N x C x ...) with its channels, seen as a groups x
--- C/groups matrix, transposed (ShuffleNet): output channel j*groups + g = input g*(C/groups) + j.
function F.channelShuffle(x, g)
  local op = 'channelShuffle'
  A.tensor(op, x, 'an input')
  if x:dim() < 3 then fail(op, 'expected an N x C x ... tensor with at least 3 dims, got size %s', A.shape(x)) end
  g = A.requiredInt(op, g, 'groups')
  local C = x:size(2)
  if g < 1 or C % g ~= 0 then fail(op, 'groups %d does not divide the %d channels', g, C) end
  local rest = 1  -- the positions per channel (not nElement / (N * C): NaN for an empty batch)
  for i = 3, x:dim() do rest = rest * x:size(i) end
  return x:reshape(x:size(1), g, C / g, rest):transpose(2, 3):contiguous():view(x:size())
end

return F
