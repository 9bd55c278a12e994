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

-- Note [Canvas coordinates]: every drawing call guards its coordinates: a NaN passed the old
-- `x < 0 or x >= w` test and wrote through the data pointer at a NaN offset (a crash), and
-- Bresenham's loop never reached a NaN or infinite end point (a hang). Non-finite shapes are not
-- drawn, and segments are clipped to the canvas first, so a far end point costs nothing.
local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

function Raster:pixel(x, y, c)
  x, y = math.floor(x), math.floor(y)
  if not (x >= 0 and y >= 0 and x < self.w and y < self.h) then return end  -- false for NaN
  local o = (y * self.w + x) * 3
  local p = self.ptr
  p[o], p[o + 1], p[o + 2] = c[1], c[2], c[3]
end

--- canvas:rect(x, y, w, h, color): a filled rectangle (pixel coordinates from the top left).
function Raster:rect(x, y, w, h, c)
  if not (finite(x) and finite(y) and finite(w) and finite(h)) then return end  -- Note [Canvas coordinates]
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

-- The part of the segment inside the canvas widened by margin (Liang-Barsky), or nil.
local function clip(self, x0, y0, x1, y1, margin)
  if not (finite(x0) and finite(y0) and finite(x1) and finite(y1)) then return nil end
  local t0, t1 = 0, 1
  local dx, dy = x1 - x0, y1 - y0
  local edges = { { -dx, x0 + margin }, { dx, self.w + margin - x0 }, { -dy, y0 + margin }, { dy, self.h + margin - y0 } }
  for _, e in ipairs(edges) do
    local p, q = e[1], e[2]
    if p == 0 then
      if q < 0 then return nil end
    else
      local r = q / p
      if p < 0 then if r > t1 then return nil elseif r > t0 then t0 = r end
      else if r < t0 then return nil elseif r < t1 then t1 = r end end
    end
  end
  local a0, b0, a1, b1 = x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy
  if not (finite(a0) and finite(b0) and finite(a1) and finite(b1)) then return nil end  -- dx overflowed
  return a0, b0, a1, b1
end

--- canvas:line(x0, y0, x1, y1, color[, width]): a straight line (Bresenham, square brush).
function Raster:line(x0, y0, x1, y1, c, width)
  width = width or 1
  x0, y0, x1, y1 = clip(self, x0, y0, x1, y1, width + 1)  -- Note [Canvas coordinates]
  if not x0 then return end
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
  x0, y0, x1, y1 = clip(self, x0, y0, x1, y1, 1)  -- Note [Canvas coordinates]
  if not x0 then return end
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

--- canvas:save(path[, who]): writes the PNG atomically; errors name who (the plot function).
function Raster:save(path, who)
  if lib.C.tocha_image_write(path, self.img.p, 90) ~= 0 then
    local msg = require('ffi').string(lib.C.tocha_last_error()):gsub('^%[[^%]]*%] ', '')
    if msg:sub(1, #path + 2) == path .. ': ' then msg = msg:sub(#path + 3) end
    error('[' .. (who or 'plot') .. '] ' .. path .. ': cannot write: ' .. msg, 0)
  end
end

return raster
