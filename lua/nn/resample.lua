-- Separable resampling from differentiable ops (not a class): nn.functional.interpolate on 5-D
-- input ('nearest', 'trilinear') and nn.VolumetricUpSamplingTrilinear.
-- Note [Separable resampling]: linear interpolation along one dim is a product with a small
-- out x in matrix (two nonzeros a row), so the trilinear map is three such products and its
-- gradient the same three with the transposed matrices (autograd's, through mm); nearest is an
-- index along each dim. Matrix products and gathers, no per-voxel Lua.
local R = {}

--- R.linear_matrix(like, nin, nout, align): the out x in matrix of linear interpolation along one
--- dim, of like's type and device. align: output i samples i*(nin-1)/(nout-1) (corners coincide,
--- Torch7's convention); otherwise PyTorch's half-pixel centres, (i+0.5)*nin/nout - 0.5 clamped at 0.
function R.linear_matrix(like, nin, nout, align)
  local a = torch.DoubleTensor(nout, nin):zero()
  local r = align and (nout > 1 and (nin - 1) / (nout - 1) or 0) or nin / nout
  for i = 0, nout - 1 do
    local src = align and r * i or math.max((i + 0.5) * r - 0.5, 0)
    local i0 = math.min(math.floor(src), nin - 1)
    local i1 = i0 < nin - 1 and i0 + 1 or i0
    local lambda = src - i0
    a[i + 1][i0 + 1] = a[i + 1][i0 + 1] + (1 - lambda)
    a[i + 1][i1 + 1] = a[i + 1][i1 + 1] + lambda
  end
  return like.new(nout, nin):copy(a)
end

--- R.along(x, d, m): x with dim d replaced by m * (x along d); m is out x in.
function R.along(x, d, m)
  local n = x:dim()
  local moved = x:transpose(d, n):contiguous()
  local size = moved:size()
  size[n] = m:size(1)
  local y = torch.mm(moved:view(-1, m:size(2)), m:t())
  return y:view(size):transpose(d, n)
end

--- R.nearest_index(nin, nout): the LongTensor of source positions (1-based) of nearest resampling
--- along one dim: floor(i * nin / nout) + 1 for output i = 0..nout-1 (PyTorch's 'nearest').
function R.nearest_index(nin, nout)
  local idx = torch.LongTensor(nout)
  for i = 0, nout - 1 do idx[i + 1] = math.min(math.floor(i * nin / nout), nin - 1) + 1 end
  return idx
end

--- R.resample(x, sizes, mode, align): the last #sizes dims of x resampled to sizes, separably
--- ('nearest' or 'linear' per dim).
function R.resample(x, sizes, mode, align)
  local n, k = x:dim(), #sizes
  local y = x
  for i = 1, k do
    local d = n - k + i
    local nin = x:size(d)
    if nin ~= sizes[i] then  -- an unchanged size is the identity in both modes
      if mode == 'nearest' then
        local idx = R.nearest_index(nin, sizes[i])
        y = y:index(d, x:isCuda() and idx:to(x:device()) or idx)
      else
        y = R.along(y, d, R.linear_matrix(x, nin, sizes[i], align))
      end
    end
  end
  return y == x and x:clone() or y:contiguous()
end

return R
