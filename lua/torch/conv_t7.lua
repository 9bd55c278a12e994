-- Torch7's convolution functions torch.conv2, xcorr2, conv3 and xcorr3 (and their methods), built
-- on torch.conv2d/conv3d: 'V'alid or 'F'ull, conv flipping the kernel and xcorr not, over Torch7's
-- three shape pairs (one plane, plane by plane, and a full layer summed over input planes).
-- They are compositions of recorded ops, so they run on every device and are differentiable.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local doc = require 'torch.doc'
local fail = lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

local DT = lib.dtype
local FLOATING = { [DT.f32] = true, [DT.f64] = true, [DT.f16] = true, [DT.bf16] = true }
local HALF = { [DT.f16] = true, [DT.bf16] = true }

-- Checks x and k for `op` (nd = 2 or 3 spatial dims) and returns the case: 'one' (nd-D x and k),
-- 'planes' ((nd+1)-D x and k, plane by plane) or 'layer' ((nd+1)-D x, (nd+2)-D k).
local function shape_case(op, nd, x, k, full)
  local xd, kd = x:dim(), k:dim()
  local case
  if xd == nd and kd == nd then case = 'one'
  elseif xd == nd + 1 and kd == nd + 1 then case = 'planes'
  elseif xd == nd + 1 and kd == nd + 2 then case = 'layer'
  else
    fail(op, 'expected x and k of %d and %d, %d and %d, or %d and %d dims, got x %s and k %s', nd, nd, nd + 1,
      nd + 1, nd + 1, nd + 2, describe(x), describe(k))
  end
  if x:type() ~= k:type() then fail(op, 'x is a %s but k is a %s', x:type(), k:type()) end
  if not FLOATING[x.p.dtype] then fail(op, 'expected floating-point tensors, got a %s', x:type()) end
  for d = 1, xd do
    if x:size(d) == 0 then fail(op, 'x has an empty dim (%s)', describe(x)) end
  end
  for d = 1, kd do
    if k:size(d) == 0 then fail(op, 'k has an empty dim (%s)', describe(k)) end
  end
  if case == 'planes' and x:size(1) ~= k:size(1) then
    fail(op, 'x has %d planes but k has %d kernels (one per plane)', x:size(1), k:size(1))
  elseif case == 'layer' and x:size(1) ~= k:size(2) then
    fail(op, 'x has %d planes but k expects %d (k is %s)', x:size(1), k:size(2), describe(k))
  end
  if not full then
    for d = 1, nd do
      if x:size(xd - nd + d) < k:size(kd - nd + d) then
        fail(op, "input is smaller than the kernel in 'V' mode: x %s, k %s", describe(x), describe(k))
      end
    end
  end
  return case
end

-- The result of one call, a new tensor: the C op (conv2d/conv3d) correlates, so conv flips k's
-- last nd dims; 'F' pads by k - 1 on each side.
local function compute(op, nd, flip, x, k, mode)
  if mode ~= nil and mode ~= 'V' and mode ~= 'F' then
    local got = type(mode) == 'string' and "'" .. mode .. "'" or describe(mode)
    fail(op, "mode must be 'V' (valid) or 'F' (full), got %s", got)
  end
  local full = mode == 'F'
  local case = shape_case(op, nd, x, k, full)
  local tname = x:type()
  if HALF[x.p.dtype] and x:device() == 'cpu' then x, k = x:float(), k:float() end  -- no CPU half kernels
  local pad = {}
  for d = 1, nd do pad[d] = full and k:size(k:dim() - nd + d) - 1 or 0 end
  if flip then
    local dims = {}
    for d = 1, nd do dims[d] = -d end
    k = torch.flip(k, dims)
  end
  local input, weight, groups = x:unsqueeze(1), k, 1
  if case == 'one' then
    input, weight = x:unsqueeze(1):unsqueeze(1), k:unsqueeze(1):unsqueeze(1)
  elseif case == 'planes' then
    weight, groups = k:unsqueeze(2), x:size(1)
  end
  local conv = nd == 2 and torch.conv2d or torch.conv3d
  local r = conv(input, weight, nil, 1, pad, 1, groups):select(1, 1)
  if case == 'one' then r = r:select(1, 1) end
  if r:type() ~= tname then r = r:type(tname) end
  return r
end

-- torch.<op>([res,] x, k [, mode]): a third tensor argument means the first one is res, which is
-- resized and filled (Torch7); the methods are the same functions (x:conv2(k) is a new tensor).
local function make(op, nd, flip)
  return function(a1, a2, a3, a4)
    if is_tensor(a3) then
      if not is_tensor(a1) then fail(op, 'res must be a tensor, got %s', describe(a1)) end
      if not is_tensor(a2) then fail(op, 'expected a tensor x, got %s', describe(a2)) end
      local r = compute(op, nd, flip, a2, a3, a4)
      if a1:type() ~= r:type() then fail(op, 'res is a %s but the result is a %s', a1:type(), r:type()) end
      methods.resizeAs(a1, r)
      methods.copy(a1, r)
      return a1
    end
    if not is_tensor(a1) then fail(op, 'expected a tensor x, got %s', describe(a1)) end
    if not is_tensor(a2) then fail(op, 'expected a tensor k, got %s', describe(a2)) end
    return (compute(op, nd, flip, a1, a2, a3))
  end
end

local SHAPES = {
  [2] = 'x and k 2-D (one image, one kernel: a 2-D result); x p x h x w and k p x kh x kw (plane i with '
    .. 'kernel i: p x oh x ow); or x p x h x w and k q x p x kh x kw (each output plane j sums plane i of x '
    .. 'with k[j][i]: q x oh x ow).',
  [3] = 'x and k 3-D (one volume, one kernel: a 3-D result); x p x d x h x w and k p x kd x kh x kw (plane '
    .. 'by plane); or x p x d x h x w and k q x p x kd x kh x kw (summed over the p input planes: q output planes).',
}
for _, spec in ipairs({ { 'conv2', 2, true }, { 'xcorr2', 2, false }, { 'conv3', 3, true }, { 'xcorr3', 3, false } }) do
  local name, nd, flip = spec[1], spec[2], spec[3]
  local f = make(name, nd, flip)
  torch[name], methods[name] = f, f
  local what = flip and 'convolution (the kernel flipped)' or 'cross-correlation (the kernel as it is)'
  local text = string.format("Torch7's %d-D %s of x with k: %s mode 'V' (default) gives the valid part, "
    .. "in - k + 1 per dim; 'F' the full result, in + k - 1. With res, res is resized and filled. x:%s(k [, mode]) "
    .. 'is the same call (a new tensor). Floating-point tensors, any device; differentiable in x and k.',
    nd, what, SHAPES[nd], name)
  local example = nd == 2 and string.format("torch.%s(torch.ones(4, 4), torch.ones(2, 2), 'F')", name)
    or string.format('torch.%s(torch.ones(3, 4, 4), torch.ones(2, 2, 2))', name)
  doc.register(f, 'torch.' .. name .. "([res,] x, k [, 'V' or 'F'])", text, example)
end

return torch
