-- optim.polyinterp: the minimum of the polynomial interpolating points with values and
-- derivatives (minFunc's polyinterp, used by the line searches). Plain Lua numbers throughout:
-- the systems are at most a few points, so tensors would only add call overhead.
local lib = require 'torch.lib'

-- Solves the square system A x = b (tables of rows) by Gaussian elimination with partial
-- pivoting; nil when A is singular.
local function solve(A, b)
  local n = #b
  for c = 1, n do
    local piv, best = c, math.abs(A[c][c])
    for r = c + 1, n do
      if math.abs(A[r][c]) > best then piv, best = r, math.abs(A[r][c]) end
    end
    if best == 0 or best ~= best then return nil end
    A[c], A[piv] = A[piv], A[c]
    b[c], b[piv] = b[piv], b[c]
    for r = c + 1, n do
      local f = A[r][c] / A[c][c]
      for k = c, n do A[r][k] = A[r][k] - f * A[c][k] end
      b[r] = b[r] - f * b[c]
    end
  end
  local x = {}
  for r = n, 1, -1 do
    local s = b[r]
    for k = r + 1, n do s = s - A[r][k] * x[k] end
    x[r] = s / A[r][r]
  end
  return x
end

-- Polynomial with coefficients c[1] x^(n-1) + ... + c[n] (highest power first, like Matlab).
local function polyval(c, x)
  local v = 0
  for i = 1, #c do v = v * x + c[i] end
  return v
end
local function derivative(c)
  local d, n = {}, #c
  for i = 1, n - 1 do d[i] = c[i] * (n - i) end
  return d
end

-- Real roots of polynomial c inside [lo, hi]. Between consecutive critical points (the roots of
-- the derivative, found recursively) the polynomial is monotonic, so each sign change there
-- brackets exactly one root, found by bisection. (Torch7 took the eigenvalues of the companion
-- matrix and kept the real ones; only real roots inside the bounds are ever used.)
local function real_roots(c, lo, hi)
  while #c > 0 and c[1] == 0 do table.remove(c, 1) end
  local n = #c - 1
  if n < 1 then return {} end
  if n == 1 then
    local r = -c[2] / c[1]
    return (r >= lo and r <= hi) and { r } or {}
  end
  local knots = { lo }
  for _, r in ipairs(real_roots(derivative(c), lo, hi)) do knots[#knots + 1] = r end
  knots[#knots + 1] = hi
  table.sort(knots)
  local roots = {}
  for i = 1, #knots - 1 do
    local a, b = knots[i], knots[i + 1]
    local fa, fb = polyval(c, a), polyval(c, b)
    if fa == 0 then roots[#roots + 1] = a
    elseif fa * fb < 0 then
      for _ = 1, 200 do
        local m = 0.5 * (a + b)
        if m == a or m == b then break end
        local fm = polyval(c, m)
        if fm == 0 then a, b = m, m break end
        if (fm < 0) == (fa < 0) then a, fa = m, fm else b = m end
      end
      roots[#roots + 1] = 0.5 * (a + b)
    end
  end
  if polyval(c, hi) == 0 then roots[#roots + 1] = hi end
  return roots
end

local function get(points, i, j)
  if torch.isTensor(points) then return points[i][j] end
  return points[i][j]
end

--- optim.polyinterp(points[, xminBound, xmaxBound]): the position of the minimum of the
--- polynomial that interpolates N points {x, f(x), f'(x)} (an N x 3 tensor or table), within
--- [xminBound, xmaxBound] (default: the points' range). Returns minPos, and the polynomial's
--- value there when bounds are given or N > 2 (Torch7's conventions).
--- Example: optim.polyinterp(torch.Tensor{{0, 1, -1}, {1, 0.5, 0.5}})
function optim.polyinterp(points, xminBound, xmaxBound)
  local n = torch.isTensor(points) and points:size(1) or (type(points) == 'table' and #points)
  if not n or n < 1 then lib.fail('optim.polyinterp', 'points must be an N x 3 tensor or table, got %s', type(points)) end
  if torch.isTensor(points) and (points:dim() ~= 2 or points:size(2) ~= 3) then
    lib.fail('optim.polyinterp', 'points must be N x 3 (x, f, g), got a tensor of %d dims', points:dim())
  end
  local px, pf, pg = {}, {}, {}
  for i = 1, n do px[i], pf[i], pg[i] = get(points, i, 1), get(points, i, 2), get(points, i, 3) end
  local order = 2 * n - 1

  -- The common case: a cubic through two points, no bounds (closed form).
  if n == 2 and not xminBound and not xmaxBound then
    local lo, hi = 1, 2
    if px[2] < px[1] then lo, hi = 2, 1 end
    local d1 = pg[lo] + pg[hi] - 3 * (pf[lo] - pf[hi]) / (px[lo] - px[hi])
    local d2 = math.sqrt(d1 * d1 - pg[lo] * pg[hi])
    if d2 == d2 then
      local t = px[hi] - (px[hi] - px[lo]) * ((pg[hi] + d2 - d1) / (pg[hi] - pg[lo] + 2 * d2))
      return math.min(math.max(t, px[lo]), px[hi])
    end
    return (px[1] + px[2]) / 2
  end

  local xmin, xmax = math.huge, -math.huge
  for i = 1, n do xmin, xmax = math.min(xmin, px[i]), math.max(xmax, px[i]) end
  xminBound = xminBound or xmin
  xmaxBound = xmaxBound or xmax

  -- The interpolating polynomial: value and derivative constraints at every point.
  local A, b = {}, {}
  for i = 1, n do
    local row, drow = {}, {}
    for j = order, 0, -1 do row[order - j + 1] = px[i] ^ j end
    for j = 1, order + 1 do drow[j] = j <= order and (order - j + 1) * px[i] ^ (order - j) or 0 end
    A[i], b[i] = row, pf[i]
    A[n + i], b[n + i] = drow, pg[i]
  end
  local params = solve(A, b)
  local minPos, fmin = (xminBound + xmaxBound) / 2, math.huge  -- bisection when nothing is valid
  if not params then return minPos, fmin end
  for i = 1, #params do if math.abs(params[i]) <= 1e-12 then params[i] = 0 end end

  -- Candidates: the bounds, the points and the critical points inside the bounds.
  local candidates = { xminBound, xmaxBound }
  for i = 1, n do candidates[#candidates + 1] = px[i] end
  local dparams = derivative(params)
  local finite = true
  for _, v in ipairs(dparams) do if v ~= v or math.abs(v) == math.huge then finite = false end end
  if finite then
    for _, r in ipairs(real_roots(dparams, xminBound, xmaxBound)) do candidates[#candidates + 1] = r end
  end
  for _, x in ipairs(candidates) do
    if x >= xminBound and x <= xmaxBound then
      local f = polyval(params, x)
      if f < fmin then minPos, fmin = x, f end
    end
  end
  return minPos, fmin
end
