-- Preparing images for viewing: image.minmax (rescaling to [0, 1]), image.toDisplayTensor (a
-- grid of images), image.drawRect; and image.display / image.window, which need Torch7's Qt GUI
-- and are errors in Tocha (save the picture instead).
local torch = require 'torch'
local U = require 'image.util'

return function(image)

--- image.minmax{tensor =[, min =][, max =][, symm = false][, inplace = false][, saturate = false][,
--- tensorOut =]}: tensor rescaled so that min maps to 0 and max to 1 (by default its own minimum
--- and maximum; symm: -max|x| to max|x|); saturate clamps to [0, 1] when min or max is given. A new
--- default-type tensor unless inplace or tensorOut.
--- Example: local image = require 'image'; image.minmax{tensor = torch.Tensor({2, 4, 6})}
function image.minmax(args)
  if type(args) ~= 'table' or torch.isTensor(args) or not torch.isTensor(args.tensor) then
    U.fail('minmax', 'expected a table {tensor = ..., min =, max =, ...}, got %s', U.describe(args))
  end
  local tensor = args.tensor
  if args.tensorOut ~= nil and not torch.isTensor(args.tensorOut) then
    U.fail('minmax', 'tensorOut must be a tensor, got %s', U.describe(args.tensorOut))
  end
  if tensor:nElement() == 0 and (args.min == nil or args.max == nil) then
    U.fail('minmax', 'tensor is empty (%s): it has no minimum or maximum', U.describe(tensor))
  end
  local min, max = args.min, args.max
  local saturate = args.saturate or false
  local out
  if args.tensorOut then
    out = args.tensorOut:resize(tensor:size()):copy(tensor)
  elseif args.inplace then
    out = tensor
  else
    out = torch.Tensor(tensor:size()):copy(tensor)
  end
  if min == nil and max == nil then saturate = false end
  local fmin = 0
  if min == nil then
    if args.symm then
      fmin = math.max(math.abs(out:min()), math.abs(out:max()))
      min = -fmin
    else
      min = out:min()
    end
  end
  if min ~= 0 then out:add(-min) end
  if max == nil then
    max = args.symm and fmin * 2 or out:max()
  else
    max = max - min
  end
  if max ~= 0 then out:div(max) end
  if saturate then out:clamp(0, 1) end
  return out
end

local DISPLAY_ARGS = { 'input', 'padding', 'nrow', 'scaleeach', 'min', 'max', 'symmetric', 'saturate' }

local function display_args(fn, ...)
  local n = select('#', ...)
  local first = ...
  local a = {}
  if n == 1 and type(first) == 'table' and not torch.isTensor(first) and first.input ~= nil then
    for k, v in pairs(first) do a[k] = v end
  else
    if n > #DISPLAY_ARGS then
      U.fail(fn, 'too many arguments (%d; expected at most %d: %s)', n, #DISPLAY_ARGS, table.concat(DISPLAY_ARGS, ', '))
    end
    local v = { ... }
    for i = 1, n do a[DISPLAY_ARGS[i]] = v[i] end
  end
  if a.input == nil then U.fail(fn, 'input is required (a tensor or a list of tensors)') end
  return a
end

--- image.toDisplayTensor{input =[, padding = 0][, nrow = 6][, scaleeach = false][, min =][, max =][,
--- symmetric = false][, saturate = true]}: a list of images, a K x C x H x W tensor (C 1 or 3) or
--- K x H x W maps laid out on a grid nrow images wide (padding pixels apart, the gaps at the
--- maximum value), rescaled to [0, 1] by image.minmax (together, or each when scaleeach). A single
--- image (H x W, 1 or 3 x H x W) is only rescaled.
--- Example: local image = require 'image'; image.toDisplayTensor{input = torch.rand(5, 3, 4, 4), nrow = 2}:size()
function image.toDisplayTensor(...)
  local a = display_args('toDisplayTensor', ...)
  local input, padding, nrow = a.input, a.padding or 0, a.nrow or 6
  local symm, saturate = a.symmetric or false, a.saturate
  if saturate == nil then saturate = true end
  if type(padding) ~= 'number' or padding < 0 then
    U.fail('toDisplayTensor', 'padding must be >= 0, got %s', U.describe(padding))
  end
  if type(nrow) ~= 'number' or nrow < 1 then
    U.fail('toDisplayTensor', 'nrow must be >= 1, got %s', U.describe(nrow))
  end
  local packed = torch.Tensor()
  if type(input) == 'table' and not torch.isTensor(input) then
    if #input == 0 or not torch.isTensor(input[1]) then
      U.fail('toDisplayTensor', 'input must be a tensor or a non-empty list of tensors')
    end
    local nd = input[1]:dim()
    local c = nd == 2 and 1 or input[1]:size(1)
    if nd < 2 or nd > 3 or input[1]:nElement() == 0 then
      U.fail('toDisplayTensor', 'input[1] must be a non-empty H x W or C x H x W image, got %s', U.describe(input[1]))
    end
    local h, w = input[1]:size(nd - 1), input[1]:size(nd)
    packed:resize(#input, c, h, w)
    for i, img in ipairs(input) do
      if not torch.isTensor(img) or img:nElement() ~= c * h * w then
        U.fail('toDisplayTensor', 'input[%d] is %s; every image must have the size of input[1] (%dx%dx%d)',
          i, U.describe(img), c, h, w)
      end
      packed[i]:copy(img:contiguous():view(c, h, w))
    end
  elseif torch.isTensor(input) then
    if input:nElement() == 0 then U.fail('toDisplayTensor', 'input is empty (%s)', U.describe(input)) end
    packed:resize(input:size()):copy(input)
  else
    U.fail('toDisplayTensor', 'unknown or incompatible type of input: %s', U.describe(input))
  end
  local color4 = packed:dim() == 4 and (packed:size(2) == 3 or packed:size(2) == 1)
  local mm = { min = a.min, max = a.max, symm = symm, saturate = saturate, inplace = true }
  if a.scaleeach and (color4 or (packed:dim() == 3 and packed:size(1) ~= 1 and packed:size(1) ~= 3)) then
    for i = 1, packed:size(1) do
      mm.tensor = packed[i]
      image.minmax(mm)
    end
  end
  if packed:dim() == 2 or (packed:dim() == 3 and (packed:size(1) == 1 or packed:size(1) == 3)) then
    mm.tensor = packed
    return image.minmax(mm)
  end
  if not color4 and packed:dim() ~= 3 then
    U.fail('toDisplayTensor', 'input must be a H x W, K x H x W or K x 3 x H x W tensor, or a list of tensors, got %s',
      U.describe(input))
  end
  local nmaps = packed:size(1)
  local xmaps = math.min(nrow, nmaps)
  local ymaps = math.ceil(nmaps / xmaps)
  local d = packed:dim()
  local height, width = packed:size(d - 1) + padding, packed:size(d) + padding
  local grid = color4 and torch.Tensor(packed:size(2), height * ymaps, width * xmaps)
    or torch.Tensor(height * ymaps, width * xmaps)
  grid:fill(packed:max())
  local gd = grid:dim()
  local half = math.floor(padding / 2)
  local k = 1
  for y = 1, ymaps do
    for x = 1, xmaps do
      if k > nmaps then break end
      grid:narrow(gd - 1, (y - 1) * height + 1 + half, height - padding)
        :narrow(gd, (x - 1) * width + 1 + half, width - padding):copy(packed[k])
      k = k + 1
    end
  end
  if not a.scaleeach then
    mm.tensor = grid
    image.minmax(mm)
  end
  return grid
end

--- image.drawRect(src, x1, y1, x2, y2[, opts]): src with the outline of the rectangle from (x1, y1)
--- to (x2, y2) (1-based pixel columns and rows, corners included) drawn on it; opts.lineWidth (1),
--- opts.color ({255, 0, 0}: 0..255, scaled to [0, 1] for floating images), opts.inplace (false: a
--- copy is drawn on). src is a 3 x H x W tensor; corners outside it are clamped to its border, as
--- Torch7 (Note [Rectangle corners]).
--- Example: local image = require 'image'; image.drawRect(torch.zeros(3, 8, 8), 2, 2, 6, 5, {color = {0, 255, 0}})
function image.drawRect(src, x1, y1, x2, y2, opts)
  if not torch.isTensor(src) or src:dim() ~= 3 or src:size(1) ~= 3 then
    U.fail('drawRect', 'input image has to be a 3D tensor of shape 3 x H x W, got %s', U.describe(src))
  end
  U.cpu('drawRect', src, 'src')
  opts = opts or {}
  if type(opts) ~= 'table' then U.fail('drawRect', 'opts must be a table, got %s', U.describe(opts)) end
  local out = opts.inplace and src or src:clone()
  if not (x1 and y1 and x2 and y2) then return out end
  x1, y1 = U.trunc(U.number('drawRect', x1, 'x1')), U.trunc(U.number('drawRect', y1, 'y1'))
  x2, y2 = U.trunc(U.number('drawRect', x2, 'x2')), U.trunc(U.number('drawRect', y2, 'y2'))
  local color = opts.color or { 255, 0, 0 }
  local lw = opts.lineWidth or 1
  if type(lw) ~= 'number' or lw < 1 or lw % 1 ~= 0 then
    U.fail('drawRect', 'opts.lineWidth must be a positive integer, got %s', U.describe(lw))
  end
  if type(color) ~= 'table' or #color < 3 then U.fail('drawRect', 'opts.color must be {r, g, b} in 0..255') end
  local h, w = out:size(2), out:size(3)
  -- Note [Rectangle corners]: generic/image.c's drawRect: with offset = floor(lineWidth / 2), the
  -- corners move to (x - offset - 1) (0-based) and are clamped into the image (so a box reaching
  -- past the image outlines its border there); bands lineWidth pixels wide start at each clamped
  -- corner. Pixels past the right or bottom edge, which Torch7 wrote out of bounds (an error), are
  -- skipped.
  local off = math.floor(lw / 2)
  local cx1, cy1 = math.max(0, x1 - off - 1), math.max(0, y1 - off - 1)
  local cx2, cy2 = math.min(w - 1, x2 - off - 1), math.min(h - 1, y2 - off - 1)
  local scale = out:isFloatingPoint() and 1 / 255 or 1
  local function fill(r0, r1, c0, c1)  -- rows r0..r1-1, columns c0..c1-1 (0-based), clipped
    r0, c0, r1, c1 = math.max(r0, 0), math.max(c0, 0), math.min(r1, h), math.min(c1, w)
    if r1 <= r0 or c1 <= c0 then return end
    for k = 1, 3 do out[k]:narrow(1, r0 + 1, r1 - r0):narrow(2, c0 + 1, c1 - c0):fill(color[k] * scale) end
  end
  fill(cy1, cy2 + lw, cx1, cx1 + lw)
  fill(cy1, cy2 + lw, cx2, cx2 + lw)
  fill(cy1, cy1 + lw, cx1, cx2 + lw)
  fill(cy2, cy2 + lw, cx1, cx2 + lw)
  return out
end

-- Note [Text font]: Torch7 drew text with Adafruit's 5x7 font in 6x8 cells; Tocha uses the plot
-- module's own 5x7 font (lua/plot/font.lua) in the same cells, so text has Torch7's layout (x and y
-- are 0-based pixel offsets of the first cell, '\n' starts a line 8 * size lower, wrapping at the
-- right edge) with slightly different glyphs. Pixels falling outside the image are skipped.

--- image.drawText(src, text, x, y[, opts]): src (3 x H x W) with text written from pixel offset
--- (x, y) (default 1, 1); opts.color ({255, 0, 0}, 0..255), opts.bg (a background colour, default
--- none), opts.size (1: 6 x 8 pixels a character), opts.wrap (true), opts.inplace (false: a copy).
--- Example: local image = require 'image'; image.drawText(torch.zeros(3, 20, 40), 'hi', 2, 2, {size = 2})
function image.drawText(src, text, x, y, opts)
  if not torch.isTensor(src) or src:dim() ~= 3 or src:size(1) ~= 3 then
    U.fail('drawText', 'input image has to be a 3D tensor of shape 3 x H x W, got %s', U.describe(src))
  end
  U.cpu('drawText', src, 'src')
  opts = opts or {}
  if type(opts) ~= 'table' then U.fail('drawText', 'opts must be a table, got %s', U.describe(opts)) end
  local out = opts.inplace and src or src:clone()
  if text == nil or tostring(text):gsub('%s*$', '') == '' then return out end
  text = tostring(text)
  x, y = U.trunc(U.number('drawText', x or 1, 'x')), U.trunc(U.number('drawText', y or 1, 'y'))
  local size = opts.size or 1
  if type(size) ~= 'number' or size < 1 or size % 1 ~= 0 then
    U.fail('drawText', 'opts.size must be a positive integer, got %s', U.describe(size))
  end
  local color, bg = opts.color or { 255, 0, 0 }, opts.bg
  local wrap = opts.wrap ~= false
  local font = require 'plot.font'
  local h, w = out:size(2), out:size(3)
  local scale = out:isFloatingPoint() and 1 / 255 or 1
  local planes = { out[1], out[2], out[3] }
  local function block(px, py, c)  -- a size x size block at 0-based (px, py), clipped
    local x0, y0 = math.max(px, 0), math.max(py, 0)
    local x1, y1 = math.min(px + size, w), math.min(py + size, h)
    if x1 <= x0 or y1 <= y0 then return end
    for k = 1, 3 do planes[k]:narrow(1, y0 + 1, y1 - y0):narrow(2, x0 + 1, x1 - x0):fill(c[k] * scale) end
  end
  local cx, cy = x, y
  for i = 1, #text do
    local ch = text:byte(i)
    if ch == 10 then
      cx, cy = x, cy + size * 8
    elseif ch ~= 13 then
      if wrap and cx + size * 6 >= w then cx, cy = 0, cy + size * 8 end
      local rows = font.glyph(ch)
      if not (cx >= w or cy >= h or cx + 6 * size - 1 < 0 or cy + 8 * size - 1 < 0) then
        for col = 0, 5 do
          for row = 0, 7 do
            local on = col < 5 and row < 7 and math.floor(rows[row + 1] / 2 ^ (4 - col)) % 2 == 1
            if on then block(cx + col * size, cy + row * size, color)
            elseif bg then block(cx + col * size, cy + row * size, bg) end
          end
        end
      end
      cx = cx + size * 6
    end
  end
  return out
end

-- Note [No GUI]: Torch7's image.display and image.window opened Qt windows; Tocha has no GUI.
-- They raise an error that says what to use instead.
local function no_gui(name)
  return function()
    U.fail(name, "Tocha has no GUI to show images (Torch7's %s used Qt): write the picture with "
      .. "image.save('out.png', image.toDisplayTensor{input = x}) and open the file, or plot curves with the "
      .. 'plot module (Note [No GUI])', 'image.' .. name)
  end
end

--- image.display(input, ...) or image.display{image = ...}: Torch7 showed images in a Qt window;
--- Tocha has no GUI, so this is an error suggesting image.save (with image.toDisplayTensor) or plot.
--- Example: local image = require 'image'; pcall(image.display, torch.rand(3, 4, 4))
image.display = no_gui('display')

--- image.window(): Torch7's Qt window; an error in Tocha (no GUI), as image.display.
--- Example: local image = require 'image'; pcall(image.window)
image.window = no_gui('window')

end
