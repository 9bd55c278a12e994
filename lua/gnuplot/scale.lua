-- gnuplot's axes: an axis's range (autoscaled out to whole ticks, or whole decades on a log
-- axis, as gnuplot does; or set by gnuplot.axis), its ticks and their labels, and the map from
-- data values to [0, 1] along the axis.
local axes = require 'plot.axes'
local finite = axes.finite
local scale = {}

local log10 = math.log10

-- Ticks of a linear axis [lo, hi] as {value, label} pairs.
local function linear_ticks(lo, hi)
  local vals, step = axes.ticks(lo, hi, 5)
  local out = {}
  for _, v in ipairs(vals) do out[#out + 1] = { v, axes.label(v, step) } end
  return out
end

-- Ticks of a log axis: powers of ten (every k-th when there are many decades), or linear ticks
-- inside a range narrower than a decade.
local function log_ticks(lo, hi)
  local a, b = math.ceil(log10(lo) - 1e-9), math.floor(log10(hi) + 1e-9)
  if b < a then return linear_ticks(lo, hi) end
  local every = math.max(1, math.ceil((b - a + 1) / 8))
  local out = {}
  for k = a, b, every do out[#out + 1] = { 10 ^ k, string.format('%g', 10 ^ k) } end
  return out
end

--- scale.axis{lo=, hi=, fixed={lo, hi}, log=, tics=, who=, name=, exact=}: an axis over the data
--- extent [lo, hi] (nil when there is no data), with fixed ends from gnuplot.axis, log scale,
--- custom tics ({{value, label}, ...}); exact = true keeps the ends as given (images).
--- Returns {lo, hi, log, ticks, map} with map(v) in [0, 1] (nil for v <= 0 on a log axis).
function scale.axis(o)
  local lo, hi = o.lo, o.hi
  local flo, fhi = o.fixed and o.fixed[1], o.fixed and o.fixed[2]
  if o.log then
    for _, v in ipairs({ flo or 1, fhi or 1 }) do
      if v <= 0 then
        error(string.format('[%s] the %s range must be positive on a log scale, got %g', o.who, o.name, v), 0)
      end
    end
  end
  if lo == nil then lo, hi = flo or (o.log and 1 or 0), fhi or (o.log and 10 or 1) end
  lo, hi = flo or lo, fhi or hi
  if lo > hi and not (flo and fhi) then
    -- one end fixed past the data: gnuplot widens the other end
    if flo then hi = o.log and lo * 10 or lo + 1 else lo = o.log and hi / 10 or hi - 1 end
  end
  if lo == hi then
    -- gnuplot's "empty range, adjusting": 1% around a value, or +-1 around 0
    local d = lo ~= 0 and math.abs(lo) * 0.01 or 1
    if o.log then lo, hi = lo / 1.1, hi * 1.1 else lo, hi = lo - d, hi + d end
    if not (lo < hi) then lo, hi = lo - 1, hi + 1 end
  end
  if not o.exact then
    -- autoscaled ends move out to the next tick (the next decade on a log axis)
    if o.log then
      if not flo then lo = 10 ^ math.floor(log10(lo) + 1e-9) end
      if not fhi then hi = 10 ^ math.ceil(log10(hi) - 1e-9) end
      if lo == hi then hi = lo * 10 end
    else
      local _, step = axes.ticks(lo, hi, 5)
      local a, b = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
      if not flo and finite(a) and a <= lo then lo = a end
      if not fhi and finite(b) and b >= hi then hi = b end
    end
  end
  local ax = { lo = lo, hi = hi, log = o.log }
  if o.log then
    local l0, span = log10(lo), log10(hi) - log10(lo)
    ax.map = function(v)
      if not (v > 0) or v == math.huge then return nil end
      return (log10(v) - l0) / span
    end
  else
    local f = axes.scale(lo, hi, 0, 1)
    ax.map = function(v) if finite(v) then return f(v) end end
  end
  if o.tics then
    ax.ticks = {}
    for _, t in ipairs(o.tics) do
      local m = ax.map(t[1])
      if m and m >= -1e-9 and m <= 1 + 1e-9 then ax.ticks[#ax.ticks + 1] = t end
    end
  else
    ax.ticks = o.log and log_ticks(lo, hi) or linear_ticks(lo, hi)
  end
  return ax
end

--- scale.extent(lo, hi, v, log): the running extent [lo, hi] (nil before any value) widened to
--- v when v is finite (and positive on a log axis).
function scale.extent(lo, hi, v, log)
  if finite(v) and (not log or v > 0) then
    if lo == nil or v < lo then lo = v end
    if hi == nil or v > hi then hi = v end
  end
  return lo, hi
end

return scale
