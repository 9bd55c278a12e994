-- The SVG backend of the plots: the same drawing calls as plot/raster.lua, written as SVG
-- elements (text in a monospace font sized to match the bitmap font's metrics).
local svg = {}

local Svg = {}
Svg.__index = Svg

local function color(c) return string.format('rgb(%d,%d,%d)', c[1], c[2], c[3]) end
local function esc(s) return (s:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'):gsub('"', '&quot;')) end
local function n(x) return string.format('%.1f', x) end

--- svg.new(width, height[, background]): an empty drawing.
function svg.new(w, h, bg)
  local self = setmetatable({ w = w, h = h, out = {} }, Svg)
  self.out[1] = string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">', w, h, w, h)
  self:rect(0, 0, w, h, bg or { 255, 255, 255 })
  return self
end

function Svg:rect(x, y, w, h, c)
  self.out[#self.out + 1] = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>', n(x), n(y), n(w), n(h), color(c))
end

function Svg:frame(x, y, w, h, c)
  self.out[#self.out + 1] = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s"/>', n(x),
    n(y), n(w), n(h), color(c))
end

function Svg:line(x0, y0, x1, y1, c, width)
  self.out[#self.out + 1] = string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%d"/>', n(x0),
    n(y0), n(x1), n(y1), color(c), width or 1)
end

function Svg:dashed(x0, y0, x1, y1, c)
  self.out[#self.out + 1] = string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="1,2"/>',
    n(x0), n(y0), n(x1), n(y1), color(c))
end

--- A polyline in one element (the raster backend draws segments).
function Svg:polyline(points, c, width)
  local pts = {}
  for _, p in ipairs(points) do pts[#pts + 1] = n(p[1]) .. ',' .. n(p[2]) end
  self.out[#self.out + 1] = string.format('<polyline points="%s" fill="none" stroke="%s" stroke-width="%d" '
    .. 'stroke-linejoin="round"/>', table.concat(pts, ' '), color(c), width or 1)
end

function Svg.text_width(_, s, size) return #s > 0 and (#s * 6 - 1) * (size or 1) or 0 end

function Svg:text(x, y, s, c, opts)
  opts = opts or {}
  local size = opts.size or 1
  local anchor = opts.anchor or 'start'
  local fs = 10 * size
  if opts.vertical then
    self.out[#self.out + 1] = string.format('<text transform="translate(%s,%s) rotate(-90)" font-family="monospace" '
      .. 'font-size="%d" text-anchor="%s" fill="%s">%s</text>', n(x + 7 * size), n(y), fs, anchor, color(c), esc(s))
  else
    self.out[#self.out + 1] = string.format('<text x="%s" y="%s" font-family="monospace" font-size="%d" text-anchor="%s" '
      .. 'fill="%s">%s</text>', n(x), n(y + 7 * size), fs, anchor, color(c), esc(s))
  end
end

--- drawing:save(path): writes the SVG file (atomically: a temporary file renamed over path).
function Svg:save(path)
  local tmp = path .. '.tmp' .. tostring(os.time())
  local f, err = io.open(tmp, 'w')
  if not f then error('[plot] ' .. path .. ': cannot write: ' .. tostring(err), 0) end
  f:write(table.concat(self.out, '\n'), '\n</svg>\n')
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then
    os.remove(tmp)
    error('[plot] ' .. path .. ': cannot write: ' .. tostring(rerr), 0)
  end
end

return svg
