-- nn.functional.maxUnpool2d with PyTorch's arguments (maxUnpool1d/3d are in
-- functional_more2.lua), on the argument checks of lua/nn/functional_pool.lua.
local lib = require 'torch.lib'
local types = require 'torch.types'
local P = require 'nn.functional_pool'
local fail, describe = lib.fail, types.describe
local ints, rank_arg, tensor_arg = P.args.ints, P.args.rank_arg, P.args.tensor_arg
local F = nn.functional

-- Note [maxUnpool2d's arguments]: nn.functional.maxUnpool2d took (x, indices, outputSize); it takes
-- PyTorch's (x, indices, kernelSize [, stride = kernelSize] [, padding = 0] [, outputSize]) now, as
-- maxUnpool1d/3d (functional_more2.lua). The old form cannot be told from the new one: its output
-- size, like a kernel size, is a number or {h, w}, so a 3-argument call has PyTorch's meaning (the
-- old F.maxUnpool2d(y, i, {oh, ow}) would unpool into (in - 1) * {oh, ow} + {oh, ow}: no error, as
-- in PyTorch, since the indices fit). Write F.maxUnpool2d(y, i, k, s, p, {oh, ow}) for a given
-- size (Tocha's own callers and tests were changed so).

-- The unpooled {oh, ow}: PyTorch's (in - 1) * stride - 2 * padding + kernel, or outputSize ({oh, ow}
-- or {N, C, oh, ow}), which must lie strictly within one stride of it (PyTorch's check).
local function unpool2d_size(op, x, kernelSize, stride, padding, outputSize)
  local k = ints(op, kernelSize, 2, 'the kernel size')
  local st = ints(op, stride, 2, 'the stride', k)
  local p = ints(op, padding, 2, 'the padding', 0)
  local n = x:dim()
  local r = {}
  for i = 1, 2 do
    if k[i] < 1 or st[i] < 1 or p[i] < 0 then
      fail(op, 'kernel size and stride must be positive and padding non-negative, got %dx%d, %dx%d, %dx%d',
        k[1], k[2], st[1], st[2], p[1], p[2])
    end
    r[i] = (x:size(n - 2 + i) - 1) * st[i] - 2 * p[i] + k[i]
  end
  if outputSize ~= nil then
    local o = outputSize
    if torch.typename(o) == 'torch.LongStorage' then o = o:totable() end
    if type(o) == 'table' and #o == 4 then o = { o[3], o[4] } end
    o = ints(op, o, 2, 'the output size')
    for i = 1, 2 do
      if o[i] <= r[i] - st[i] or o[i] >= r[i] + st[i] then
        fail(op, 'invalid output size %d in dim %d (must be between %d and %d, exclusive)', o[i], i,
          r[i] - st[i], r[i] + st[i])
      end
    end
    r = o
  end
  if r[1] < 1 or r[2] < 1 then fail(op, 'output size %dx%d must be positive', r[1], r[2]) end
  return r
end

--- nn.functional.maxUnpool2d(x, indices, kernelSize [, stride = kernelSize] [, padding = 0]
--- [, outputSize]): the inverse of a 2D max pooling (PyTorch's arguments; Note [maxUnpool2d's
--- arguments]): zeros of (.. x oh x ow), oh = (H - 1) * stride - 2 * padding + kernelSize (or
--- outputSize: {oh, ow} or {N, C, oh, ow}), with x's values at indices (1-based flat positions in
--- each plane, as max poolings return them). Sizes are numbers or {h, w}.
--- Example: local y, i = nn.functional.maxPool2dWithIndices(torch.randn(1, 1, 4, 4), 2); nn.functional.maxUnpool2d(y, i, 2)
function F.maxUnpool2d(x, indices, kernelSize, stride, padding, outputSize)
  local op = 'maxUnpool2d'
  rank_arg(op, x, 3, 'N x C x H x W')
  tensor_arg(op, indices, 'indices')
  -- i64 indices on x's device (torch.LongTensor, torch.CudaLongTensor)
  if indices.p.dtype ~= 4 or indices:device() ~= x:device() or not indices:isSameSizeAs(x) then
    fail(op, 'indices must be a LongTensor of the input\'s size %s on its device, got %s', types.shape_str(x.p), describe(indices))
  end
  local s = unpool2d_size(op, x, kernelSize, stride, padding, outputSize)
  local n = x:dim()
  local h, w = x:size(n - 1), x:size(n)
  local planes = n == 4 and x:size(1) * x:size(2) or x:size(1)
  local out_size = x:size()
  out_size[n - 1], out_size[n] = s[1], s[2]
  local flat = x.new(planes, s[1] * s[2]):zero()
  if h * w > 0 and planes > 0 then
    local idx = indices:reshape(planes, h * w)
    if idx:min() < 1 or idx:max() > s[1] * s[2] then
      fail(op, 'indices span [%d, %d], outside the %d positions of a %dx%d output plane', idx:min(), idx:max(),
        s[1] * s[2], s[1], s[2])
    end
    flat:scatter(2, idx, x:reshape(planes, h * w))
  end
  return flat:view(out_size)
end
