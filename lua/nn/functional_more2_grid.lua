-- nn.functional.gridSample's 'bicubic' mode (4-D input, PyTorch 1.13's grid_sampler_2d bicubic):
-- the other modes go to functional_grid.lua's gridSample unchanged. Built of recorded gather and
-- pointwise ops, so it is differentiable in the input and the grid, on any device.
require 'nn.functional_grid'
local A = require 'nn.functional_args'
local F = nn.functional
local fail = A.fail
local base = F._gridSampleBase or F.gridSample
F._gridSampleBase = base

local function cubic1(t) return torch.add(torch.cmul(torch.cmul(torch.add(torch.mul(t, 1.25), -2.25), t), t), 1) end
local function cubic2(t)  -- ((A t - 5A) t + 8A) t - 4A with A = -0.75
  return torch.add(torch.cmul(torch.add(torch.cmul(torch.add(torch.mul(t, -0.75), 3.75), t), -6), t), 3)
end

-- PyTorch's reflect_coordinates of integral tap positions c (not recorded: a tap's position
-- carries no gradient), between low2 / 2 and high2 / 2.
local function reflect(c, low2, high2)
  if low2 == high2 then return c.new(c:size()):zero() end
  local min, span = low2 / 2, (high2 - low2) / 2
  local a = torch.abs(torch.add(c, -min))
  local flips = torch.floor(torch.div(a, span))
  local extra = torch.csub(a, torch.mul(flips, span))
  local odd = torch.remainder(flips, 2)
  return torch.add(torch.cmul(extra, torch.mul(odd, -2):add(1)), torch.mul(odd, span):add(min))
end

-- PyTorch's get_value_bounded: the padded position of tap c along a dim of the given size, as
-- (0/1 in-bounds mask, 0-based long position clamped into range).
local function tap(c, size, pad, align)
  if pad == 'border' then c = torch.clamp(c, 0, size - 1)
  elseif pad == 'reflection' then
    c = align and reflect(c, 0, 2 * (size - 1)) or reflect(c, -1, 2 * size - 1)
    c = torch.clamp(c, 0, size - 1)
  end
  local ok = torch.cmul(torch.ge(c, 0), torch.le(c, size - 1))
  return ok, torch.where(ok, c, 0):to('torch.LongTensor')
end

local PADS = { zeros = true, border = true, reflection = true }

--- nn.functional.gridSample(input, grid [, {mode = 'bilinear', paddingMode = 'zeros', alignCorners =
--- false}]): input (N x C x H x W) sampled at grid (N x Ho x Wo x 2: x then y, -1..1 spanning the
--- input) into N x C x Ho x Wo; 5-D input N x C x D x H x W with grid N x Do x Ho x Wo x 3 samples
--- trilinearly. mode 'bilinear' | 'nearest' | 'bicubic' (4-D only: 4 x 4 taps, cubic convolution with
--- A = -0.75, the padding applied to each tap as PyTorch); paddingMode 'zeros' | 'border' |
--- 'reflection'. Differentiable in input and grid (bilinear, bicubic).
--- Example: nn.functional.gridSample(torch.randn(1, 1, 3, 3), torch.zeros(1, 2, 2, 2), {mode = 'bicubic'})
function F.gridSample(input, grid, o)
  local op = 'gridSample'
  local m = type(o) == 'table' and o.mode or nil
  if m ~= nil and m ~= 'bilinear' and m ~= 'nearest' and m ~= 'bicubic' then
    fail(op, "mode must be 'bilinear', 'nearest' or 'bicubic', got %s", tostring(m))
  end
  if m ~= 'bicubic' then return base(input, grid, o) end
  local opts = A.opts(op, o, { mode = true, paddingMode = true, alignCorners = true })
  local pad = opts.paddingMode or 'zeros'
  local align = A.bool(op, opts.alignCorners, 'alignCorners', false)
  if not PADS[pad] then fail(op, "paddingMode must be 'zeros', 'border' or 'reflection', got %s", tostring(pad)) end
  A.float(op, input, 'an input')
  A.float(op, grid, 'a grid')
  if input:dim() ~= 4 then fail(op, "mode 'bicubic' needs a 4-D input (N x C x H x W), got %s", A.shape(input)) end
  if grid:dim() ~= 4 or grid:size(1) ~= input:size(1) or grid:size(4) ~= 2 then
    fail(op, 'expected a grid of size %dxHoxWox2 for input %s, got %s', input:size(1), A.shape(input), A.shape(grid))
  end
  if grid.p.dtype ~= input.p.dtype or grid.p.device_type ~= input.p.device_type then
    fail(op, 'input %s and grid %s must have one type and device', torch.type(input), torch.type(grid))
  end
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local Ho, Wo = grid:size(2), grid:size(3)
  local P = Ho * Wo
  if H * W == 0 then fail(op, 'expected an input with non-empty spatial dims, got %s', A.shape(input)) end
  if N * C * P == 0 then return F._gridSampleEmpty(input, grid, { N, C, Ho, Wo }) end
  local g = grid:contiguous():view(N, P, 2)
  local function unnormalize(v, size)
    if align then return torch.mul(torch.add(v, 1), (size - 1) / 2) end
    return torch.add(torch.mul(v, size / 2), (size - 1) / 2)
  end
  local ix, iy = unnormalize(g:select(3, 1), W), unnormalize(g:select(3, 2), H)
  local x0, y0 = torch.floor(ix:detach()), torch.floor(iy:detach())
  local tx, ty = torch.csub(ix, x0), torch.csub(iy, y0)
  local wx = { cubic2(torch.add(tx, 1)), cubic1(tx), cubic1(torch.mul(tx, -1):add(1)), cubic2(torch.mul(tx, -1):add(2)) }
  local wy = { cubic2(torch.add(ty, 1)), cubic1(ty), cubic1(torch.mul(ty, -1):add(1)), cubic2(torch.mul(ty, -1):add(2)) }
  local src = input:contiguous():view(N, C, H * W)
  local xs, ys = {}, {}
  for i = 1, 4 do
    local okx, px = tap(torch.add(x0, i - 2), W, pad, align)
    local oky, py = tap(torch.add(y0, i - 2), H, pad, align)
    xs[i], ys[i] = { okx, px }, { oky, py }
  end
  local out
  for j = 1, 4 do
    for i = 1, 4 do
      local ok = torch.cmul(xs[i][1], ys[j][1])
      local idx = torch.add(torch.mul(ys[j][2], W), xs[i][2]):add(1)  -- N x P, 1-based
      local vals = src:gather(3, idx:view(N, 1, P):expand(N, C, P))
      local w = torch.cmul(torch.cmul(wx[i], wy[j]), ok:typeAs(input))
      local term = torch.cmul(vals, w:view(N, 1, P):expand(N, C, P))
      out = out and torch.add(out, term) or term
    end
  end
  return out:view(N, C, Ho, Wo)
end
