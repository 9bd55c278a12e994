-- Axis arithmetic shared by the plots: "nice" tick positions (steps of 1, 2 or 5 times a power
-- of ten), tick labels, and the drawing surface chosen by the file's extension.
local axes = {}

--- axes.ticks(lo, hi[, count]): tick values covering [lo, hi], about count of them (5), and
--- the step between them.
function axes.ticks(lo, hi, count)
  count = count or 5
  local span = hi - lo
  if span <= 0 then span = math.abs(lo) > 0 and math.abs(lo) or 1 end
  local raw = span / count
  local mag = 10 ^ math.floor(math.log10(raw))
  local step = mag
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if raw <= m * mag * 1.0000001 then step = m * mag break end
  end
  local ticks = {}
  local first = math.ceil(lo / step - 1e-9)
  for k = first, math.floor(hi / step + 1e-9) do ticks[#ticks + 1] = k * step end
  return ticks, step
end

--- axes.range(values[, pad]): the min and max of the finite values, widened when they are
--- equal, and padded by a fraction pad (0.05) of the span.
function axes.range(values, pad)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(values) do
    if v == v and v ~= math.huge and v ~= -math.huge then
      if v < lo then lo = v end
      if v > hi then hi = v end
    end
  end
  if lo > hi then return 0, 1 end
  if lo == hi then
    local d = math.abs(lo) > 0 and math.abs(lo) * 0.1 or 1
    return lo - d, hi + d
  end
  local p = (hi - lo) * (pad or 0.05)
  return lo - p, hi + p
end

--- axes.label(v, step): v printed with as many decimals as the step needs.
function axes.label(v, step)
  if math.abs(v) < step * 1e-6 then v = 0 end
  local decimals = -math.floor(math.log10(step) + 1e-9)
  if decimals < 1 then decimals = 0 end  -- also turns -0 into 0
  if math.abs(v) >= 1e6 or (v ~= 0 and math.abs(v) < 1e-4) then return string.format('%.2g', v) end
  return string.format('%.' .. string.format('%d', decimals) .. 'f', v)
end

--- axes.surface(path, width, height): a raster (.png) or SVG (.svg) drawing for path.
function axes.surface(path, w, h)
  if type(path) ~= 'string' then error('[plot] expected path = a .png or .svg file name', 3) end
  local ext = path:match('%.([^./]+)$')
  ext = ext and ext:lower()
  if ext == 'png' then return require('plot.raster').new(w, h) end
  if ext == 'svg' then return require('plot.svg').new(w, h) end
  error('[plot] ' .. path .. ': unknown extension (expected .png or .svg)', 3)
end

axes.palette = {
  { 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 }, { 214, 39, 40 }, { 148, 103, 189 },
  { 140, 86, 75 }, { 227, 119, 194 }, { 127, 127, 127 }, { 188, 189, 34 }, { 23, 190, 207 },
}
axes.black, axes.gray, axes.light = { 0, 0, 0 }, { 90, 90, 90 }, { 215, 215, 215 }

return axes
