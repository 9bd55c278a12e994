-- How one series of gnuplot.plot is drawn in its style (Note [Plot formats], gnuplot/args.lua):
-- lines, points, linespoints, dots, boxes, impulses, vectors and cubic splines, clipped to the
-- plot area; and its sample in the key.
local axes = require 'plot.axes'
local finite = axes.finite
local style = {}

local SAMPLES = 300  -- the torchstyle preamble's `set samples 300`

-- Natural cubic spline through the points sorted by x, duplicate x averaged (gnuplot's smooth
-- csplines), sampled at SAMPLES points.
local function csplines(xs, ys)
  local pts = {}
  for i = 1, #xs do if finite(xs[i]) and finite(ys[i]) then pts[#pts + 1] = { xs[i], ys[i] } end end
  table.sort(pts, function(a, b) return a[1] < b[1] end)
  local x, y, i = {}, {}, 1
  while i <= #pts do
    local j, sum = i, 0
    while j <= #pts and pts[j][1] == pts[i][1] do sum = sum + pts[j][2] j = j + 1 end
    x[#x + 1], y[#y + 1] = pts[i][1], sum / (j - i)
    i = j
  end
  local n = #x
  if n < 3 then
    local out = {}
    for k = 1, n do out[k] = { x[k], y[k] } end
    return out
  end
  -- second derivatives m (m[1] = m[n] = 0) from the tridiagonal system (Thomas algorithm)
  local m, c, d = { [1] = 0, [n] = 0 }, {}, {}
  c[1], d[1] = 0, 0
  for k = 2, n - 1 do
    local h0, h1 = x[k] - x[k - 1], x[k + 1] - x[k]
    local rhs = 6 * ((y[k + 1] - y[k]) / h1 - (y[k] - y[k - 1]) / h0)
    local den = 2 * (h0 + h1) - h0 * c[k - 1]
    c[k], d[k] = h1 / den, (rhs - h0 * d[k - 1]) / den
  end
  for k = n - 1, 2, -1 do m[k] = d[k] - c[k] * m[k + 1] end
  local out, seg = {}, 1
  for s = 0, SAMPLES - 1 do
    local t = x[1] + (x[n] - x[1]) * s / (SAMPLES - 1)
    while seg < n - 1 and t > x[seg + 1] do seg = seg + 1 end
    local h = x[seg + 1] - x[seg]
    local a, b = (x[seg + 1] - t) / h, (t - x[seg]) / h
    out[#out + 1] = { t, a * y[seg] + b * y[seg + 1] + ((a ^ 3 - a) * m[seg] + (b ^ 3 - b) * m[seg + 1]) * h * h / 6 }
  end
  return out
end

-- The width of a series' boxes: the smallest gap between its distinct x (gnuplot's automatic
-- box width: neighbouring boxes touch), 1 for a single box.
local function box_width(xs)
  local sorted = {}
  for i = 1, #xs do if finite(xs[i]) then sorted[#sorted + 1] = xs[i] end end
  table.sort(sorted)
  local w = math.huge
  for i = 2, #sorted do
    local g = sorted[i] - sorted[i - 1]
    if g > 0 and g < w then w = g end
  end
  return w == math.huge and 1 or w
end

--- style.points(s): the points series s draws ({x, y} pairs: spline samples, vector heads, box
--- corners and bases), which the axes are scaled to hold.
function style.points(s)
  local n = s.x:size(1)
  local px, py = s.x:data(), s.y:data()
  local xs, ys = {}, {}
  for i = 1, n do xs[i], ys[i] = px[i - 1], py[i - 1] end
  s.xs, s.ys = xs, ys
  local pts = {}
  if s.style == 'csplines' then
    s.curve = csplines(xs, ys)
    return s.curve
  end
  if s.style == 'boxes' then s.width = box_width(xs) end
  local dx, dy = s.dx and s.dx:data(), s.dy and s.dy:data()
  for i = 1, n do
    local x, y = xs[i], ys[i]
    if s.style == 'boxes' then
      pts[#pts + 1] = { x - s.width / 2, y }
      pts[#pts + 1] = { x + s.width / 2, 0 }
    elseif s.style == 'impulses' then
      pts[#pts + 1] = { x, y }
      pts[#pts + 1] = { x, 0 }
    else
      pts[#pts + 1] = { x, y }
      if dx then pts[#pts + 1] = { x + dx[i - 1], y + dy[i - 1] } end
    end
  end
  return pts
end

-- The part of the segment inside the box (Liang-Barsky), or nil.
local function clip(box, x0, y0, x1, y1)
  local t0, t1, dx, dy = 0, 1, x1 - x0, y1 - y0
  local e = { { -dx, x0 - box.left }, { dx, box.left + box.w - x0 }, { -dy, y0 - box.top }, { dy, box.top + box.h - y0 } }
  for _, pq in ipairs(e) do
    local p, q = pq[1], pq[2]
    if p == 0 then
      if q < -1e-9 then return nil end
    else
      local r = q / p
      if p < 0 then if r > t1 then return nil elseif r > t0 then t0 = r end
      else if r < t0 then return nil elseif r < t1 then t1 = r end end
    end
  end
  return x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy, t0 > 0, t1 < 1
end

local function inside(box, x, y)
  return x and y and x >= box.left - 0.5 and x <= box.left + box.w + 0.5 and y >= box.top - 0.5 and y <= box.top + box.h + 0.5
end

-- A polyline through the points (pixel coordinates, nil for gaps), clipped to the box: one
-- element per unbroken run.
local function polyline(surf, box, pts, color)
  local run = {}
  local function flush()
    if #run > 1 then surf:polyline(run, color, 2) end
    run = {}
  end
  for k = 2, #pts do
    local a, b = pts[k - 1], pts[k]
    if a[1] and a[2] and b[1] and b[2] then
      local x0, y0, x1, y1, cut0, cut1 = clip(box, a[1], a[2], b[1], b[2])
      if x0 then
        if cut0 or #run == 0 then flush() run[1] = { x0, y0 } end
        run[#run + 1] = { x1, y1 }
        if cut1 then flush() end
      else
        flush()
      end
    else
      flush()
    end
  end
  flush()
end

local function marker(surf, kind, x, y, color)
  if kind == 'plus' then
    surf:line(x - 4, y, x + 4, y, color, 2)
    surf:line(x, y - 4, x, y + 4, color, 2)
  elseif kind == 'dot' then
    surf:rect(x - 1, y - 1, 2, 2, color)
  else
    surf:rect(x - 2.5, y - 2.5, 5, 5, color)
  end
end

--- style.draw(surf, s, box, ya): series s (after style.points) in the plot area box (with
--- box.x and box.y mapping data to pixels); ya is the y axis (boxes stand on 0 or its bottom).
function style.draw(surf, s, box, ya)
  local c, st = s.color, s.style
  local X, Y = box.x, box.y
  local n = #s.xs
  if st == 'csplines' then
    local pts = {}
    for k, p in ipairs(s.curve) do pts[k] = { X(p[1]), Y(p[2]) } end
    if #pts == 1 and inside(box, pts[1][1], pts[1][2]) then marker(surf, 'square', pts[1][1], pts[1][2], c) end
    return polyline(surf, box, pts, c)
  end
  local base = box.top + box.h
  if not ya.log then
    local b0 = Y(0)
    if b0 then base = math.max(box.top, math.min(box.top + box.h, b0)) end
  end
  if st == 'boxes' or st == 'impulses' then
    for i = 1, n do
      local y = Y(s.ys[i])
      if y then
        y = math.max(box.top, math.min(box.top + box.h, y))
        if st == 'impulses' then
          local x = X(s.xs[i])
          if x and x >= box.left and x <= box.left + box.w then surf:line(x, base, x, y, c, 2) end
        else
          local xa, xb = X(s.xs[i] - s.width / 2), X(s.xs[i] + s.width / 2)
          if xa and xb then
            xa, xb = math.max(box.left, math.min(xa, xb)), math.min(box.left + box.w, math.max(xa, xb))
            local y0, y1 = math.min(y, base), math.max(y, base)
            if xb > xa and y1 > y0 then
              surf:rect(xa, y0, xb - xa, y1 - y0, c)
              surf:frame(xa, y0, xb - xa, y1 - y0, axes.black)
            end
          end
        end
      end
    end
    return
  end
  local pts = {}
  for i = 1, n do pts[i] = { X(s.xs[i]), Y(s.ys[i]) } end
  if st == 'vectors' then
    local dx, dy = s.dx:data(), s.dy:data()
    for i = 1, n do
      local x0, y0 = pts[i][1], pts[i][2]
      local x1, y1 = X(s.xs[i] + dx[i - 1]), Y(s.ys[i] + dy[i - 1])
      if x0 and y0 and x1 and y1 then
        polyline(surf, box, { { x0, y0 }, { x1, y1 } }, c)
        local len = math.sqrt((x1 - x0) ^ 2 + (y1 - y0) ^ 2)
        if len > 0 and inside(box, x1, y1) then
          local ux, uy = (x1 - x0) / len, (y1 - y0) / len
          for _, sgn in ipairs({ 1, -1 }) do
            surf:line(x1, y1, x1 - 8 * ux + sgn * 4 * uy, y1 - 8 * uy - sgn * 4 * ux, c, 2)
          end
        end
      end
    end
    return
  end
  if st == 'lines' or st == 'linespoints' or st == 'default' then polyline(surf, box, pts, c) end
  -- the default: Torch7's preamble set `style data linespoints`; markers only up to 60 points,
  -- where they stay apart (thousands of them made a thick smear of the line)
  local mark = (st == 'points' and 'plus') or (st == 'dots' and 'dot')
    or ((st == 'linespoints' or (st == 'default' and n <= 60)) and 'square')
  if mark then
    for i = 1, n do
      if inside(box, pts[i][1], pts[i][2]) then marker(surf, mark, pts[i][1], pts[i][2], c) end
    end
  end
end

--- style.sample(surf, s, x0, y, x1): the key's sample of series s, from x0 to x1 at height y.
function style.sample(surf, s, x0, y, x1)
  local st, c = s.style, s.color
  if st == 'boxes' then
    surf:rect(x0, y - 5, x1 - x0, 10, c)
    surf:frame(x0, y - 5, x1 - x0, 10, axes.black)
    return
  end
  if st ~= 'points' and st ~= 'dots' then surf:line(x0, y, x1, y, c, 2) end
  if st == 'points' then marker(surf, 'plus', (x0 + x1) / 2, y, c)
  elseif st == 'dots' then marker(surf, 'dot', (x0 + x1) / 2, y, c)
  elseif st == 'linespoints' then marker(surf, 'square', (x0 + x1) / 2, y, c) end
end

return style
