-- The EPS and PDF backends of gnuplot's figures (epsfigure, pdffigure, figprint to .eps/.pdf):
-- the drawing calls of plot/svg.lua (rect, frame, line, dashed, polyline, text, text_width,
-- save) written as PostScript or PDF page operators. Both are vector formats with the same
-- painting model, so one surface records the page and serializes it either way.
local ps = {}

local Surface = {}
Surface.__index = Surface

-- Note [Page coordinates]: the figure code draws in pixels with y downwards (SVG, raster);
-- PostScript and PDF put the origin at the bottom left with y upwards, one unit a point. A
-- 640x480 figure becomes a 640x480 pt page, and every y is flipped (h - y).

-- Text is Courier (a standard font every PostScript and PDF reader has, no embedding): each
-- glyph is 0.6 em wide, which gives the anchored widths without font metrics.
local GLYPH = 0.6

local function num(x) return (string.format('%.2f', x):gsub('0+$', ''):gsub('%.$', '')) end

-- Note [Page strings]: labels are user text. Inside ( ) a backslash and unbalanced parentheses
-- would end the string or escape the next byte; they are escaped. Bytes outside printable ASCII
-- (control characters, UTF-8) are not in Courier's standard encoding: they become '?', as the
-- bitmap font draws them.
local function str(s)
  s = s:gsub('[^\32-\126]', '?')
  return '(' .. s:gsub('[\\()]', '\\%0') .. ')'
end

--- ps.new(kind, width, height[, background]): an empty page, kind 'eps' or 'pdf'.
--- Example: local page = require('gnuplot.ps').new('eps', 640, 480); page:line(0, 0, 10, 10, {0, 0, 0})
function ps.new(kind, w, h, bg)
  assert(kind == 'eps' or kind == 'pdf', 'gnuplot.ps: kind must be eps or pdf')
  local self = setmetatable({ kind = kind, w = w, h = h, ops = {} }, Surface)
  self:rect(0, 0, w, h, bg or { 255, 255, 255 })
  return self
end

-- The operators that differ: PostScript names, PDF names.
local OPS = {
  eps = { move = 'moveto', line = 'lineto', stroke = 'stroke', fillrect = 'rectfill', strokerect = 'rectstroke',
          width = 'setlinewidth', dash = 'setdash' },
  pdf = { move = 'm', line = 'l', stroke = 'S', fillrect = 're f', strokerect = 're S', width = 'w', dash = 'd' },
}

local function emit(self, s) self.ops[#self.ops + 1] = s end

local function rgb(c) return num(c[1] / 255) .. ' ' .. num(c[2] / 255) .. ' ' .. num(c[3] / 255) end

local function fill_color(self, c)
  emit(self, rgb(c) .. (self.kind == 'eps' and ' setrgbcolor' or ' rg'))
end

local function stroke_color(self, c, width, dashed)
  local o = OPS[self.kind]
  emit(self, rgb(c) .. (self.kind == 'eps' and ' setrgbcolor' or ' RG'))
  emit(self, num(width or 1) .. ' ' .. o.width)
  emit(self, (dashed and '[1 2] 0 ' or '[] 0 ') .. o.dash)
end

function Surface:rect(x, y, w, h, c)
  fill_color(self, c)
  emit(self, string.format('%s %s %s %s %s', num(x), num(self.h - y - h), num(w), num(h), OPS[self.kind].fillrect))
end

function Surface:frame(x, y, w, h, c)
  stroke_color(self, c)
  emit(self, string.format('%s %s %s %s %s', num(x), num(self.h - y - h), num(w), num(h), OPS[self.kind].strokerect))
end

local function path(self, points, c, width, dashed)
  local o = OPS[self.kind]
  stroke_color(self, c, width, dashed)
  if self.kind == 'eps' then emit(self, 'newpath') end
  for i, p in ipairs(points) do
    emit(self, num(p[1]) .. ' ' .. num(self.h - p[2]) .. ' ' .. (i == 1 and o.move or o.line))
  end
  emit(self, o.stroke)
end

function Surface:line(x0, y0, x1, y1, c, width) path(self, { { x0, y0 }, { x1, y1 } }, c, width) end

function Surface:dashed(x0, y0, x1, y1, c) path(self, { { x0, y0 }, { x1, y1 } }, c, 1, true) end

function Surface:polyline(points, c, width)
  if #points > 0 then path(self, points, c, width) end
end

--- page:text_width(s[, size]): the width the figure code lays text out with (plot/svg.lua's).
--- Example: print(require('gnuplot.ps').new('eps', 100, 100):text_width('loss'))  -- 23
function Surface.text_width(_, s, size) return #s > 0 and (#s * 6 - 1) * (size or 1) or 0 end

-- opts as plot/svg.lua's: size (1 = 10 pt), anchor ('start', 'middle', 'end'), vertical (read
-- upwards, x the left edge of the rotated line).
function Surface:text(x, y, s, c, opts)
  opts = opts or {}
  local size = opts.size or 1
  local fs = 10 * size
  local shift = 0
  local width = #s * GLYPH * fs
  if opts.anchor == 'middle' then shift = -width / 2 elseif opts.anchor == 'end' then shift = -width end
  -- as plot/svg.lua: the baseline is 7 size units below y (right of x when vertical)
  local bx, by
  if opts.vertical then bx, by = x + 7 * size, self.h - y
  else bx, by = x + shift, self.h - (y + 7 * size) end
  fill_color(self, c)
  if self.kind == 'eps' then
    emit(self, '/Courier findfont ' .. num(fs) .. ' scalefont setfont')
    if opts.vertical then
      emit(self, string.format('gsave %s %s translate 90 rotate %s 0 moveto %s show grestore', num(bx), num(by),
        num(shift), str(s)))
    else
      emit(self, string.format('%s %s moveto %s show', num(bx), num(by), str(s)))
    end
  else
    -- the text matrix: rotated a quarter turn for vertical text, the anchor shift along the line
    local m = opts.vertical and string.format('0 1 -1 0 %s %s', num(bx), num(by + shift))
      or string.format('1 0 0 1 %s %s', num(bx), num(by))
    emit(self, string.format('BT /F1 %s Tf %s Tm %s Tj ET', num(fs), m, str(s)))
  end
end

local function eps_document(self)
  return table.concat({
    '%!PS-Adobe-3.0 EPSF-3.0',
    string.format('%%%%BoundingBox: 0 0 %d %d', math.ceil(self.w), math.ceil(self.h)),
    '%%Creator: Tocha gnuplot',
    '%%Pages: 1',
    '%%EndComments',
    'save',
    table.concat(self.ops, '\n'),
    'restore',
    'showpage',
    '%%EOF',
  }, '\n') .. '\n'
end

-- Note [PDF cross references]: a reader finds the objects through the xref table, whose entries
-- are the byte offsets of "n 0 obj", 20 bytes each ("oooooooooo ggggg n" and a 2-byte end of
-- line); the stream's /Length is its exact byte count (without the end of line before
-- endstream). Both are computed from the text written.
local function pdf_document(self)
  local content = table.concat(self.ops, '\n')
  local objects = {
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    string.format('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R '
      .. '/Resources << /Font << /F1 5 0 R >> >> >>', math.ceil(self.w), math.ceil(self.h)),
    string.format('<< /Length %d >>\nstream\n%s\nendstream', #content, content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>',
  }
  local out = { '%PDF-1.4\n%\226\227\207\211\n' }
  local offsets, pos = {}, #out[1]
  for i, body in ipairs(objects) do
    offsets[i] = pos
    local obj = string.format('%d 0 obj\n%s\nendobj\n', i, body)
    out[#out + 1] = obj
    pos = pos + #obj
  end
  local xref = { 'xref', '0 ' .. (#objects + 1), '0000000000 65535 f ' }
  for i = 1, #objects do xref[#xref + 1] = string.format('%010d 00000 n ', offsets[i]) end
  out[#out + 1] = table.concat(xref, '\r\n') .. '\r\n'
  out[#out + 1] = string.format('trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n', #objects + 1, pos)
  return table.concat(out)
end

--- page:document(): the file's text (EPS or PDF).
--- Example: local page = require('gnuplot.ps').new('pdf', 100, 100); print(#page:document())
function Surface:document()
  return self.kind == 'eps' and eps_document(self) or pdf_document(self)
end

--- page:save(path[, who]): writes the file atomically (a temporary file renamed over path);
--- errors name who.
--- Example: local page = require('gnuplot.ps').new('pdf', 200, 100); page:text(10, 10, 'hi', {0, 0, 0}); page:save('hi.pdf')
function Surface:save(path, who)
  require('plot.svg').write_atomic(path, self:document(), who or 'gnuplot')
end

return ps
