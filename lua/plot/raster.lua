-- The PNG backend of the plots: an RGB canvas (a height x width x 3 ByteTensor written through
-- its data pointer), lines with a square brush, filled rectangles, and text in the built-in
-- bitmap font (horizontal or rotated a quarter turn), saved through libpng (tocha_image_write).
local torch = require 'torch'
local lib = require 'torch.lib'
local font = require 'plot.font'

local Raster = {}
Raster.__index = Raster

local raster = {}

--- raster.new(width, height[, background]): a canvas filled with background (white).
function raster.new(w, h, bg)
  bg = bg or { 255, 255, 255 }
  local img = torch.ByteTensor(h, w, 3)
  for c = 1, 3 do img:select(3, c):fill(bg[c]) end
  return setmetatable({ w = w, h = h, img = img, ptr = img:data() }, Raster)
end

function Raster:pixel(x, y, c)
  x, y = math.floor(x), math.floor(y)
  if x < 0 or y < 0 or x >= self.w or y >= self.h then return end
  local o = (y * self.w + x) * 3
  local p = self.ptr
  p[o], p[o + 1], p[o + 2] = c[1], c[2], c[3]
end

--- canvas:rect(x, y, w, h, color): a filled rectangle (pixel coordinates from the top left).
function Raster:rect(x, y, w, h, c)
  local x0, y0 = math.max(0, math.floor(x + 0.5)), math.max(0, math.floor(y + 0.5))
  local x1, y1 = math.min(self.w, math.floor(x + w + 0.5)), math.min(self.h, math.floor(y + h + 0.5))
  for yy = y0, y1 - 1 do
    for xx = x0, x1 - 1 do self:pixel(xx, yy, c) end
  end
end

--- canvas:frame(x, y, w, h, color): a 1-pixel rectangle outline.
function Raster:frame(x, y, w, h, c)
  self:line(x, y, x + w, y, c) self:line(x + w, y, x + w, y + h, c)
  self:line(x + w, y + h, x, y + h, c) self:line(x, y + h, x, y, c)
end

--- canvas:line(x0, y0, x1, y1, color[, width]): a straight line (Bresenham, square brush).
function Raster:line(x0, y0, x1, y1, c, width)
  width = width or 1
  x0, y0, x1, y1 = math.floor(x0 + 0.5), math.floor(y0 + 0.5), math.floor(x1 + 0.5), math.floor(y1 + 0.5)
  local dx, dy = math.abs(x1 - x0), -math.abs(y1 - y0)
  local sx, sy = x0 < x1 and 1 or -1, y0 < y1 and 1 or -1
  local err = dx + dy
  local lo = -math.floor((width - 1) / 2)
  local hi = lo + width - 1
  while true do
    for oy = lo, hi do
      for ox = lo, hi do self:pixel(x0 + ox, y0 + oy, c) end
    end
    if x0 == x1 and y0 == y1 then break end
    local e2 = 2 * err
    if e2 >= dy then err = err + dy x0 = x0 + sx end
    if e2 <= dx then err = err + dx y0 = y0 + sy end
  end
end

--- canvas:polyline(points, color[, width]): segments through {{x, y}, ...}.
function Raster:polyline(points, c, width)
  for i = 2, #points do self:line(points[i - 1][1], points[i - 1][2], points[i][1], points[i][2], c, width) end
  if #points == 1 then self:line(points[1][1], points[1][2], points[1][1], points[1][2], c, width) end
end

--- canvas:dashed(x0, y0, x1, y1, color): a thin dotted line (grid lines).
function Raster:dashed(x0, y0, x1, y1, c)
  local n = math.max(math.abs(x1 - x0), math.abs(y1 - y0))
  for i = 0, n, 3 do
    local t = n > 0 and i / n or 0
    self:pixel(x0 + (x1 - x0) * t + 0.5, y0 + (y1 - y0) * t + 0.5, c)
  end
end

--- canvas:text_width(s[, size]): the width in pixels of s at integer scale size.
function Raster.text_width(_, s, size)
  size = size or 1
  return #s > 0 and (#s * font.advance - 1) * size or 0
end

--- canvas:text(x, y, s, color[, opts]): s with its top left at (x, y); opts.size (integer
--- scale), opts.anchor ('start', 'middle', 'end' along the text), opts.vertical (reads bottom
--- to top; then (x, y) is the top left of the rotated box).
function Raster:text(x, y, s, c, opts)
  opts = opts or {}
  local size = opts.size or 1
  local tw = self:text_width(s, size)
  local shift = opts.anchor == 'middle' and tw / 2 or opts.anchor == 'end' and tw or 0
  x, y = math.floor(x + 0.5), math.floor(y + 0.5)
  if opts.vertical then y = y + shift else x = x - math.floor(shift) end
  for i = 1, #s do
    local rows = font.glyph(s:byte(i))
    local off = (i - 1) * font.advance * size
    for r = 1, font.height do
      local bits = rows[r]
      for col = 0, font.width - 1 do
        if bit.band(bits, bit.lshift(1, font.width - 1 - col)) ~= 0 then
          local gx, gy = off + col * size, (r - 1) * size
          if opts.vertical then self:rect(x + gy, y - gx - size, size, size, c)
          else self:rect(x + gx, y + gy, size, size, c) end
        end
      end
    end
  end
end

--- canvas:save(path): writes the PNG atomically.
function Raster:save(path)
  lib.check(lib.C.tocha_image_write(path, self.img.p, 90))
end

return raster
