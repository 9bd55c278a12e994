-- The SVG backend of the plots: the same drawing calls as plot/raster.lua, written as SVG
-- elements (text in a monospace font sized to match the bitmap font's metrics).
local svg = {}

local Svg = {}
Svg.__index = Svg

local function color(c) return string.format('rgb(%d,%d,%d)', c[1], c[2], c[3]) end
-- Note [XML text]: labels are user text: besides &, <, > and quotes, XML 1.0 forbids control
-- characters and malformed UTF-8 (a Latin-1 byte, a cut multi-byte character), which made the
-- whole document unparsable. They are written as '?', as the bitmap font draws them.
local function utf8_clean(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local c = s:byte(i)
    local len, lo, hi = 0, 0x80, 0xBF  -- the length of the sequence and its second byte's range
    if c < 0x80 then len = 1
    elseif c >= 0xC2 and c <= 0xDF then len = 2
    elseif c >= 0xE0 and c <= 0xEF then len = 3
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end  -- overlong; surrogates
    elseif c >= 0xF0 and c <= 0xF4 then len = 4
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end  -- overlong; > U+10FFFF
    end
    local ok = len > 0 and i + len - 1 <= n
    for k = 1, len - 1 do
      local b = ok and s:byte(i + k)
      ok = ok and b >= (k == 1 and lo or 0x80) and b <= (k == 1 and hi or 0xBF)
    end
    local seq = ok and s:sub(i, i + len - 1)
    if seq == '\239\191\190' or seq == '\239\191\191' then  -- U+FFFE, U+FFFF: not characters
      out[#out + 1] = '?' i = i + len
    elseif ok then out[#out + 1] = seq i = i + len
    else out[#out + 1] = '?' i = i + 1 end
  end
  return table.concat(out)
end

local function esc(s)
  s = s:gsub('[%z\1-\8\11\12\14-\31]', '?')
  if s:find('[\128-\255]') then s = utf8_clean(s) end
  return (s:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'):gsub('"', '&quot;'))
end
-- svg.escape(s): s as XML text (Note [XML text]); optim/svg.lua writes its labels with it too.
svg.escape = esc
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

--- drawing:save(path[, who]): writes the SVG file (atomically: a temporary file renamed over
--- path); errors name who (the plot function).
-- Writes text to path through a temporary file beside it (also used by gnuplot's EPS/PDF
-- figures): a full disk fails the write or the close, and then no half file is renamed over path.
-- Errors name `who` ('plot' by default) and the path.
function svg.write_atomic(path, text, who)
  local function fail(err) error('[' .. (who or 'plot') .. '] ' .. path .. ': cannot write: ' .. tostring(err), 0) end
  local tmp = path .. '.tmp' .. tostring(os.time()) .. tostring(math.random(1, 1e9))
  local f, err = io.open(tmp, 'wb')
  if not f then fail(err) end
  local ok, werr = f:write(text)
  local closed, cerr = f:close()
  if not ok or not closed then
    os.remove(tmp)
    fail(werr or cerr)
  end
  local renamed, rerr = os.rename(tmp, path)
  if not renamed then
    os.remove(tmp)
    fail(rerr)
  end
end

function Svg:save(path, who)
  svg.write_atomic(path, table.concat(self.out, '\n') .. '\n</svg>\n', who)
end

return svg
