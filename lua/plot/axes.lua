-- Axis arithmetic shared by the plots: "nice" tick positions (steps of 1, 2 or 5 times a power
-- of ten), tick labels, and the drawing surface chosen by the file's extension.
local axes = {}

local MAX = 1.7976931348623157e308  -- the largest double

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end
axes.finite = finite

-- Note [Spans wider than the largest double]: hi - lo overflows to inf when lo and hi are huge
-- with opposite signs (-1e308, 1e308): every coordinate became NaN, and the PNG backend wrote
-- pixels at NaN offsets (a crash). Such spans are computed on halved values (exact in binary,
-- short of subnormals) and scaled back.

--- axes.ticks(lo, hi[, count]): tick values covering [lo, hi], about count of them (5), and
--- the step between them (no ticks for non-finite bounds).
function axes.ticks(lo, hi, count)
  count = count or 5
  if not (finite(lo) and finite(hi)) then return {}, 1 end
  if not finite(hi - lo) then  -- Note [Spans wider than the largest double]
    local t, step = axes.ticks(lo / 2, hi / 2, count)
    for i = 1, #t do t[i] = t[i] * 2 end
    return t, step * 2
  end
  local span = hi - lo
  if span <= 0 then span = math.abs(lo) > 0 and math.abs(lo) or 1 end
  local raw = span / count
  -- Note [Ticks finer than the values' precision]: k counts from lo / step to hi / step, and past
  -- 2^53 k + 1 == k: 1e16 .. 1e16 + 2 (step 0.5, k near 2e16) never ended. Such an axis gets its
  -- two ends as ticks (labels then show all the digits that tell them apart).
  if math.max(math.abs(lo), math.abs(hi)) / raw >= 2 ^ 50 then return { lo, hi }, hi - lo end
  local mag = 10 ^ math.floor(math.log10(raw))
  local step = mag
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if raw <= m * mag * 1.0000001 then step = m * mag break end
  end
  local ticks = {}
  local first = math.ceil(lo / step - 1e-9)
  for k = first, math.floor(hi / step + 1e-9) do
    local v = k * step
    if finite(v) then ticks[#ticks + 1] = v end
  end
  return ticks, step
end

--- axes.range(values[, pad]): the min and max of the finite values, widened when they are
--- equal, and padded by a fraction pad (0.05) of the span; always finite with lo < hi.
function axes.range(values, pad)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(values) do
    if finite(v) then
      if v < lo then lo = v end
      if v > hi then hi = v end
    end
  end
  if lo > hi then return 0, 1 end
  local a, b
  if lo == hi then
    -- 0.1 * |lo| underflows to 0 for subnormal constants: then a unit (or the tiniest) range
    local d = math.abs(lo) * 0.1
    a, b = lo - d, hi + d
    if not (a < lo and b > hi) then a, b = lo - 1, hi + 1 end
  else
    local p = (hi / 2 - lo / 2) * 2 * (pad or 0.05)  -- Note [Spans wider than the largest double]
    a, b = lo - p, hi + p
  end
  return math.max(a, -MAX), math.min(b, MAX)
end

--- axes.scale(lo, hi, from, length): the function mapping [lo, hi] onto [from, from + length]
--- (for spans too wide for a double too).
function axes.scale(lo, hi, from, length)
  if finite(hi - lo) then
    local span = hi - lo
    return function(v) return from + (v - lo) / span * length end
  end
  local span = hi / 2 - lo / 2  -- Note [Spans wider than the largest double]
  return function(v) return from + (v / 2 - lo / 2) / span * length end
end

--- axes.label(v, step): v printed with as many digits as the step needs to tell neighbouring
--- ticks apart (fixed decimals, or %g for very large and very small values).
function axes.label(v, step)
  if not (finite(v) and finite(step) and step > 0) then return string.format('%g', v) end
  if math.abs(v) < step * 1e-6 then v = 0 end
  local decimals = -math.floor(math.log10(step) + 1e-9)
  if decimals < 1 then decimals = 0 end  -- also turns -0 into 0
  if v == 0 and decimals > 4 then return '0' end
  if math.abs(v) >= 1e6 or (v ~= 0 and math.abs(v) < 1e-4) then
    -- '%.2g' printed 1000000 and 1000500 alike: as many significant digits as the step needs
    local digits = math.floor(math.log10(math.abs(v)) + 1e-9) - math.floor(math.log10(step) + 1e-9) + 1
    digits = math.min(math.max(digits, 2), 17)
    return string.format('%.' .. string.format('%d', digits) .. 'g', v)
  end
  decimals = math.min(decimals, 20)  -- 17 significant digits of a value >= 1e-4
  return string.format('%.' .. string.format('%d', decimals) .. 'f', v)
end

--- axes.surface(path, width, height[, who]): a raster (.png) or SVG (.svg) drawing for path;
--- errors name who (the plot function).
function axes.surface(path, w, h, who)
  who = who or 'plot'
  if type(path) ~= 'string' then
    error('[' .. who .. '] path must be a .png or .svg file name, got ' .. tostring(path), 3)
  end
  local ext = path:match('%.([^./]+)$')
  ext = ext and ext:lower()
  if ext == 'png' then return require('plot.raster').new(w, h) end
  if ext == 'svg' then return require('plot.svg').new(w, h) end
  error('[' .. who .. '] ' .. path .. ': unknown extension (expected .png or .svg)', 3)
end

axes.palette = {
  { 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 }, { 214, 39, 40 }, { 148, 103, 189 },
  { 140, 86, 75 }, { 227, 119, 194 }, { 127, 127, 127 }, { 188, 189, 34 }, { 23, 190, 207 },
}
axes.black, axes.gray, axes.light = { 0, 0, 0 }, { 90, 90, 90 }, { 215, 215, 215 }

return axes
