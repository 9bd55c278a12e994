-- torchvision's resampling-grid tensor functions (data.transforms.functional): affine, rotate
-- and perspective, built on nn.functional.gridSample so they run wherever it does.
local torch = require 'torch'
local core = require 'data.transforms_core'

local F = {}
local fail = core.fail

-- Note [Warp fill]: as torchvision's _apply_grid_transform: without fill, pixels mapped from
-- outside the image are zeros (gridSample's zero padding); with fill, a channel of ones is
-- sampled along and says how much of each output pixel came from inside: 'nearest' takes fill
-- where it is below 0.5, 'bilinear' blends img * mask + (1 - mask) * fill. The classes always
-- pass a fill (default 0), the functions only when given one (torchvision's defaults).
local function apply_grid(x, grid, mode, fill)
  local nn = require 'nn'
  local xf = core.to_float(x)
  local N, C = xf:size(1), xf:size(2)
  grid = grid:typeAs(xf)
  if N > 1 then grid = grid:expand(N, grid:size(2), grid:size(3), 2):contiguous() end
  local fills = core.fill_list('grid transform', fill, C)
  if fills then xf = torch.cat({ xf, xf.new(N, 1, xf:size(3), xf:size(4)):fill(1) }, 2) end
  local y = nn.functional.gridSample(xf, grid, { mode = mode, paddingMode = 'zeros', alignCorners = false })
  if fills then
    local mask = y:narrow(2, C + 1, 1)
    y = y:narrow(2, 1, C):contiguous()
    local f = torch.DoubleTensor(fills):view(1, C, 1, 1):typeAs(y):expandAs(y)
    if mode == 'nearest' then
      local m = mask:lt(0.5):expandAs(y)
      y = torch.where(m, f, y)
    else
      local m = mask:expandAs(y)
      y = torch.cmul(y, m) + torch.cmul(f, 1 - m)
    end
  end
  return core.cast_out(y, x)
end

-- The sampling grid (1 x oh x ow x 2) of the inverse affine map theta (6 numbers) for an
-- input w x h, in the image's float type (torchvision's _gen_affine_grid).
local function affine_grid(theta, w, h, ow, oh, like)
  local base = like.new(oh, ow, 3)
  base:select(3, 1):copy(torch.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow):typeAs(like):view(1, ow):expand(oh, ow))
  base:select(3, 2):copy(torch.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh):typeAs(like):view(oh, 1):expand(oh, ow))
  base:select(3, 3):fill(1)
  local rt = torch.DoubleTensor(3, 2)
  for i = 1, 3 do
    rt[i][1] = theta[i] / (0.5 * w)
    rt[i][2] = theta[3 + i] / (0.5 * h)
  end
  return torch.mm(base:view(oh * ow, 3), rt:typeAs(like)):view(1, oh, ow, 2)
end

--- data.transforms.functional.inverseAffineMatrix(center, angle, translate, scale, shear): the 6
--- coefficients of the output -> input map of torchvision's affine (rotation angle in degrees
--- clockwise, shear {x, y} in degrees, about center {cx, cy}).
--- Example: data.transforms.functional.inverseAffineMatrix({0, 0}, 90, {0, 0}, 1, {0, 0})
function F.inverseAffineMatrix(center, angle, translate, scale, shear)
  local rot, sx, sy = math.rad(angle), math.rad(shear[1]), math.rad(shear[2])
  local cx, cy, tx, ty = center[1], center[2], translate[1], translate[2]
  local a = math.cos(rot - sy) / math.cos(sy)
  local b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
  local c = math.sin(rot - sy) / math.cos(sy)
  local d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
  local m = { d / scale, -b / scale, 0, -c / scale, a / scale, 0 }
  m[3] = m[3] + m[1] * (-cx - tx) + m[2] * (-cy - ty)
  m[6] = m[6] + m[4] * (-cx - tx) + m[5] * (-cy - ty)
  m[3], m[6] = m[3] + cx, m[6] + cy
  return m
end

local GRID_MODES = { nearest = true, bilinear = true }

-- A number is {v, 0}; a one-element list {v} is {v, v} for shear (torchvision's F.affine), {v, 0}
-- for translate.
local function pair(op, v, what)
  if type(v) == 'number' then return { v, 0 } end
  if type(v) ~= 'table' or type(v[1]) ~= 'number' or (v[2] ~= nil and type(v[2]) ~= 'number') then
    fail(op, '%s must be a number or a pair of numbers, got %s', what, tostring(v))
  end
  if v[2] == nil and what == 'shear' then return { v[1], v[1] } end
  return { v[1], v[2] or 0 }
end

local function centered(x, center)
  if center == nil then return { 0, 0 } end
  if type(center) ~= 'table' or type(center[1]) ~= 'number' or type(center[2]) ~= 'number' then
    fail('affine', 'center must be {x, y}, got %s', tostring(center))
  end
  return { center[1] - x:size(4) * 0.5, center[2] - x:size(3) * 0.5 }
end

--- data.transforms.functional.affine(img, angle, translate, scale, shear[, {interpolation =
--- 'nearest', fill =, center =}]): rotation by angle degrees (clockwise on screen), translation
--- {tx, ty} pixels, scale, shear (degrees: a number for x, {s} for both or {x, y}) about center ({x, y} pixel
--- coordinates, 0-based as torchvision: {0, 0} is the top-left pixel; the image centre by default), resampled
--- with 'nearest' or 'bilinear'.
--- Example: data.transforms.functional.affine(torch.rand(3, 8, 8), 30, {1, 0}, 1.2, 0)
function F.affine(img, angle, translate, scale, shear, opts)
  opts = opts or {}
  local x, back = core.image('affine', img)
  core.number('affine', angle, 'angle')
  translate = pair('affine', translate or { 0, 0 }, 'translate')
  core.number('affine', scale or 1, 'scale')
  if (scale or 1) <= 0 then fail('affine', 'scale must be positive, got %s', tostring(scale)) end
  shear = pair('affine', shear or 0, 'shear')
  local mode = core.interpolation('affine', opts.interpolation, 'nearest', GRID_MODES)
  local m = F.inverseAffineMatrix(centered(x, opts.center), angle, translate, scale or 1, shear)
  local W, H = x:size(4), x:size(3)
  local like = core.is_float(x) and x or core.to_float(x)
  return back(apply_grid(x, affine_grid(m, W, H, W, H, like), mode, opts.fill))
end

-- torchvision's expanded output size of a rotation: the bounding box of the rotated corners,
-- with coordinates truncated to 1e-4 first so near-integers do not round up.
local function expanded_size(m, w, h)
  local pts = { { -0.5 * w, -0.5 * h }, { -0.5 * w, 0.5 * h }, { 0.5 * w, 0.5 * h }, { 0.5 * w, -0.5 * h } }
  local lo, hi = { math.huge, math.huge }, { -math.huge, -math.huge }
  for _, p in ipairs(pts) do
    local q = { m[1] * p[1] + m[2] * p[2] + m[3], m[4] * p[1] + m[5] * p[2] + m[6] }
    for k = 1, 2 do
      lo[k], hi[k] = math.min(lo[k], q[k]), math.max(hi[k], q[k])
    end
  end
  local half = { w * 0.5, h * 0.5 }
  local size = {}
  for k = 1, 2 do
    local tol = 1e-4
    local cmax = math.ceil(core.trunc((hi[k] + half[k]) / tol) * tol)
    local cmin = math.floor(core.trunc((lo[k] + half[k]) / tol) * tol)
    size[k] = cmax - cmin
  end
  return size[1], size[2]
end

--- data.transforms.functional.rotate(img, angle[, {interpolation = 'nearest', expand = false,
--- center =, fill =}]): img rotated angle degrees counter-clockwise about center (pixel {x, y},
--- 0-based as torchvision; the centre by default); expand grows the output to hold the whole rotated image.
--- Example: data.transforms.functional.rotate(torch.rand(3, 8, 8), 45, {interpolation = 'bilinear'})
function F.rotate(img, angle, opts)
  opts = opts or {}
  local x, back = core.image('rotate', img)
  core.number('rotate', angle, 'angle')
  local mode = core.interpolation('rotate', opts.interpolation, 'nearest', GRID_MODES)
  local c = centered(x, opts.center)
  local m = F.inverseAffineMatrix(c, -angle, { 0, 0 }, 1, { 0, 0 })
  local W, H = x:size(4), x:size(3)
  local ow, oh = W, H
  if opts.expand then ow, oh = expanded_size(m, W, H) end
  local like = core.is_float(x) and x or core.to_float(x)
  return back(apply_grid(x, affine_grid(m, W, H, ow, oh, like), mode, opts.fill))
end

-- Solves the 8 x 8 system of torchvision's _get_perspective_coeffs by Gaussian elimination with
-- partial pivoting (the system is square: lstsq's solution is the exact one).
local function perspective_coeffs(op, startpoints, endpoints)
  local A, b = {}, {}
  for i = 1, 4 do
    local p1, p2 = endpoints[i], startpoints[i]
    if type(p1) ~= 'table' or type(p2) ~= 'table' then fail(op, 'expected 4 points {x, y} in each list') end
    A[2 * i - 1] = { p1[1], p1[2], 1, 0, 0, 0, -p2[1] * p1[1], -p2[1] * p1[2] }
    A[2 * i] = { 0, 0, 0, p1[1], p1[2], 1, -p2[2] * p1[1], -p2[2] * p1[2] }
    b[2 * i - 1], b[2 * i] = p2[1], p2[2]
  end
  for col = 1, 8 do
    local piv = col
    for r = col + 1, 8 do if math.abs(A[r][col]) > math.abs(A[piv][col]) then piv = r end end
    if math.abs(A[piv][col]) < 1e-12 then fail(op, 'the points do not define a perspective transform') end
    A[col], A[piv], b[col], b[piv] = A[piv], A[col], b[piv], b[col]
    for r = col + 1, 8 do
      local f = A[r][col] / A[col][col]
      for k = col, 8 do A[r][k] = A[r][k] - f * A[col][k] end
      b[r] = b[r] - f * b[col]
    end
  end
  local x = {}
  for r = 8, 1, -1 do
    local s = b[r]
    for k = r + 1, 8 do s = s - A[r][k] * x[k] end
    x[r] = s / A[r][r]
  end
  return x
end
F._perspective_coeffs = perspective_coeffs

--- data.transforms.functional.perspective(img, startpoints, endpoints[, {interpolation =
--- 'bilinear', fill =}]): the perspective warp taking the 4 startpoints ({x, y} pixel corners
--- of the source, 0-based as torchvision: top-left, top-right, bottom-right, bottom-left) to endpoints.
--- Example: data.transforms.functional.perspective(torch.rand(3, 8, 8), {{0, 0}, {7, 0}, {7, 7}, {0, 7}}, {{1, 0}, {6, 1}, {7, 7}, {0, 6}})
function F.perspective(img, startpoints, endpoints, opts)
  opts = opts or {}
  local x, back = core.image('perspective', img)
  if type(startpoints) ~= 'table' or type(endpoints) ~= 'table' or #startpoints ~= 4 or #endpoints ~= 4 then
    fail('perspective', 'startpoints and endpoints must be lists of 4 points {x, y}')
  end
  local mode = core.interpolation('perspective', opts.interpolation, 'bilinear', GRID_MODES)
  local c = perspective_coeffs('perspective', startpoints, endpoints)
  local ow, oh = x:size(4), x:size(3)
  local like = core.is_float(x) and x or core.to_float(x)
  local base = like.new(oh, ow, 3)
  base:select(3, 1):copy(torch.linspace(0.5, ow - 0.5, ow):typeAs(like):view(1, ow):expand(oh, ow))
  base:select(3, 2):copy(torch.linspace(0.5, oh - 0.5, oh):typeAs(like):view(oh, 1):expand(oh, ow))
  base:select(3, 3):fill(1)
  local t1, t2 = torch.DoubleTensor(3, 2), torch.DoubleTensor(3, 2)
  for i = 1, 3 do
    t1[i][1], t1[i][2] = c[i] / (0.5 * ow), c[3 + i] / (0.5 * oh)
  end
  t2[1][1], t2[2][1], t2[3][1] = c[7], c[8], 1
  t2[1][2], t2[2][2], t2[3][2] = c[7], c[8], 1
  local flat = base:view(oh * ow, 3)
  local grid = torch.cdiv(torch.mm(flat, t1:typeAs(like)), torch.mm(flat, t2:typeAs(like))):add(-1):view(1, oh, ow, 2)
  return back(apply_grid(x, grid, mode, opts.fill))
end

return F
