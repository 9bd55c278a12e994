-- Colour spaces with Torch7's formulas and ranges ([output,] input forms): rgb2yuv/yuv2rgb,
-- rgb2y, rgb2hsv/hsv2rgb, rgb2hsl/hsl2rgb (all in [0, 1]; ByteTensors in 0..255), rgb2lab/lab2rgb
-- (sRGB, D65; L in 0..100), rgb2nrgb; and the colour maps colormap, jetColormap, y2jet.
local torch = require 'torch'
local U = require 'image.util'

return function(image)

local function args(fn, n, a1, a2)
  if n == 2 then return a1, a2 end
  if n == 1 then return nil, a1 end
  U.fail(fn, 'expected (input) or (output, input), got %d arguments', n)
end

-- The three planes of an RGB-like input as floating tensors (bytes scaled to [0, 1] when scaled).
local function planes(fn, input, scaled)
  U.rgb(fn, input)
  local x = U.work(input)
  if scaled and U.isByte(input) then x = x:clone():div(255) end
  return x[1], x[2], x[3]
end

local function stack(a, b, c) return torch.cat({ a:view(1, a:size(1), a:size(2)), b:view(1, b:size(1), b:size(2)),
  c:view(1, c:size(1), c:size(2)) }, 1) end

-- The planes stacked back in input's type (bytes scaled back to 0..255 when scaled, rounded).
local function result(fn, output, input, a, b, c, scaled)
  local y = stack(a, b, c)
  if scaled and U.isByte(input) then y:mul(255) end
  return U.into(fn, output, U.finish(y, input))
end

local function linear(fn, m)
  return function(...)
    local output, input = args(fn, select('#', ...), ...)
    local r, g, b = planes(fn, input, false)
    local function row(k) return r * m[k][1] + g * m[k][2] + b * m[k][3] end
    return result(fn, output, input, row(1), row(2), row(3), false)
  end
end

--- image.rgb2yuv([output,] input): Y = 0.299 R + 0.587 G + 0.114 B, U = -0.14713 R - 0.28886 G +
--- 0.436 B, V = 0.615 R - 0.51499 G - 0.10001 B of a 3 x H x W image (Torch7's coefficients).
--- Example: local image = require 'image'; image.rgb2yuv(torch.rand(3, 4, 4))
image.rgb2yuv = linear('rgb2yuv',
  { { 0.299, 0.587, 0.114 }, { -0.14713, -0.28886, 0.436 }, { 0.615, -0.51499, -0.10001 } })

--- image.yuv2rgb([output,] input): R = Y + 1.13983 V, G = Y - 0.39465 U - 0.58060 V, B = Y + 2.03211 U.
--- Example: local image = require 'image'; image.yuv2rgb(image.rgb2yuv(torch.rand(3, 4, 4)))
image.yuv2rgb = linear('yuv2rgb', { { 1, 0, 1.13983 }, { 1, -0.39465, -0.58060 }, { 1, 2.03211, 0 } })

--- image.rgb2y([output,] input): the luma 0.299 R + 0.587 G + 0.114 B of a 3 x H x W image, 1 x H x W
--- (ByteTensors rounded).
--- Example: local image = require 'image'; image.rgb2y(torch.rand(3, 4, 4)):size()
function image.rgb2y(...)
  local output, input = args('rgb2y', select('#', ...), ...)
  local r, g, b = planes('rgb2y', input, false)
  local y = (r * 0.299 + g * 0.587 + b * 0.114)
  return U.into('rgb2y', output, U.finish(y:view(1, y:size(1), y:size(2)), input))
end

-- Hue in [0, 1) and max, min, max - min, as generic/image.c's rgb2hsv/rgb2hsl.
local function hue(r, g, b)
  local mx = torch.cmax(torch.cmax(r, g), b)
  local mn = torch.cmin(torch.cmin(r, g), b)
  local d = mx - mn
  local flat = d:eq(0)
  local dd = torch.where(flat, torch.ones(d:size()):typeAs(d), d)
  local hr = (g - b):cdiv(dd) + torch.where(g:lt(b), torch.Tensor():typeAs(d):resizeAs(d):fill(6),
    torch.zeros(d:size()):typeAs(d))
  local hg = (b - r):cdiv(dd):add(2)
  local hb = (r - g):cdiv(dd):add(4)
  local h = torch.where(mx:eq(r), hr, torch.where(mx:eq(g), hg, hb)):div(6)
  h = torch.where(flat, torch.zeros(d:size()):typeAs(d), h)
  return h, mx, mn, d, flat
end

--- image.rgb2hsv([output,] input): hue, saturation and value in [0, 1] of an RGB image in [0, 1]
--- (ByteTensors: 0..255 in and out), Torch7's formulas (hue 0 for grays).
--- Example: local image = require 'image'; image.rgb2hsv(torch.Tensor({{{1}}, {{0.5}}, {{0}}}))
function image.rgb2hsv(...)
  local output, input = args('rgb2hsv', select('#', ...), ...)
  local r, g, b = planes('rgb2hsv', input, true)
  local h, mx, _, d, flat = hue(r, g, b)
  local s = torch.where(flat, torch.zeros(d:size()):typeAs(d), d:clone():cdiv(torch.where(flat, d * 0 + 1, mx)))
  return result('rgb2hsv', output, input, h, s, mx:clone(), true)
end

--- image.rgb2hsl([output,] input): hue, saturation and lightness in [0, 1] of an RGB image in [0, 1].
--- Example: local image = require 'image'; image.rgb2hsl(torch.rand(3, 2, 2))
function image.rgb2hsl(...)
  local output, input = args('rgb2hsl', select('#', ...), ...)
  local r, g, b = planes('rgb2hsl', input, true)
  local h, mx, mn, d, flat = hue(r, g, b)
  local l = (mx + mn):div(2)
  local one = d * 0 + 1
  local den = torch.where(l:gt(0.5), (mx + mn):mul(-1):add(2), mx + mn)
  local s = torch.where(flat, d * 0, d:clone():cdiv(torch.where(flat, one, den)))
  return result('rgb2hsl', output, input, h, s, l, true)
end

local function pick6(k, a0, a1, a2, a3, a4, a5)
  local z = a0 * 0
  local out = z
  for i, a in ipairs({ a0, a1, a2, a3, a4, a5 }) do out = torch.where(k:eq(i - 1), a, out) end
  return out
end

--- image.hsv2rgb([output,] input): RGB in [0, 1] of an HSV image in [0, 1] (Torch7's formulas).
--- Example: local image = require 'image'; image.hsv2rgb(image.rgb2hsv(torch.rand(3, 2, 2)))
function image.hsv2rgb(...)
  local output, input = args('hsv2rgb', select('#', ...), ...)
  local h, s, v = planes('hsv2rgb', input, true)
  local i = torch.floor(h * 6)
  local f = h * 6 - i
  local p = v:clone():cmul(s * -1 + 1)
  local q = v:clone():cmul((f:clone():cmul(s)):mul(-1):add(1))
  local t = v:clone():cmul(((f * -1 + 1):cmul(s)):mul(-1):add(1))
  local k = i - torch.trunc(i / 6) * 6  -- C's i % 6 (negative for negative hues: black, as there)
  local r = pick6(k, v, q, p, p, t, v)
  local g = pick6(k, t, v, v, q, p, p)
  local b = pick6(k, p, p, t, v, v, q)
  return result('hsv2rgb', output, input, r, g, b, true)
end

local function hue2rgb(p, q, t)
  t = torch.where(t:lt(0), t + 1, t)
  t = torch.where(t:gt(1), t - 1, t)
  local up = p + (q - p):cmul(t * 6)
  local down = p + (q - p):cmul((t * -1):add(2 / 3)):mul(6)
  return torch.where(t:lt(1 / 6), up, torch.where(t:lt(0.5), q, torch.where(t:lt(2 / 3), down, p)))
end

--- image.hsl2rgb([output,] input): RGB in [0, 1] of an HSL image in [0, 1] (Torch7's formulas).
--- Example: local image = require 'image'; image.hsl2rgb(image.rgb2hsl(torch.rand(3, 2, 2)))
function image.hsl2rgb(...)
  local output, input = args('hsl2rgb', select('#', ...), ...)
  local h, s, l = planes('hsl2rgb', input, true)
  local q = torch.where(l:lt(0.5), l:clone():cmul(s + 1), l + s - l:clone():cmul(s))
  local p = l * 2 - q
  local gray = s:eq(0)
  local r = torch.where(gray, l, hue2rgb(p, q, h + 1 / 3))
  local g = torch.where(gray, l, hue2rgb(p, q, h))
  local b = torch.where(gray, l, hue2rgb(p, q, h - 1 / 3))
  return result('hsl2rgb', output, input, r, g, b, true)
end

-- CIE constants and the D65 white point of generic/image.c.
local EPS, KAPPA, XN, ZN = 216 / 24389, 24389 / 27, 0.950456, 1.088754

local function lab_planes(fn, input)
  if not torch.isTensor(input) or input:isFloatingPoint() == false then
    U.fail(fn, 'expected a floating-point 3 x H x W tensor (not supported for %s, as in Torch7)', U.describe(input))
  end
  U.rgb(fn, input)
  local x = input:double()
  return x[1], x[2], x[3]
end

--- image.rgb2lab([output,] input): CIE L*a*b* (D65) of an sRGB image in [0, 1]: L in 0..100, a and
--- b unbounded (floating tensors only).
--- Example: local image = require 'image'; image.rgb2lab(torch.ones(3, 1, 1))
function image.rgb2lab(...)
  local output, input = args('rgb2lab', select('#', ...), ...)
  local r, g, b = lab_planes('rgb2lab', input)
  local function expand(c)
    return torch.where(c:le(0.04045), c / 12.92, torch.pow((c + 0.055):div(1.055):clamp(0, math.huge), 2.4))
  end
  r, g, b = expand(r), expand(g), expand(b)
  local X = (r * 0.412453 + g * 0.357580 + b * 0.180423):div(XN)
  local Y = r * 0.212671 + g * 0.715160 + b * 0.072169
  local Z = (r * 0.019334 + g * 0.119193 + b * 0.950227):div(ZN)
  local function f(t)
    return torch.where(t:gt(EPS), torch.pow(t:clone():clamp(0, math.huge), 1 / 3), (t * KAPPA):add(16):div(116))
  end
  local fx, fy, fz = f(X), f(Y), f(Z)
  local L, A, B = fy * 116 - 16, (fx - fy) * 500, (fy - fz) * 200
  return U.into('rgb2lab', output, stack(L, A, B):typeAs(input))
end

--- image.lab2rgb([output,] input): sRGB (D65) of a CIE L*a*b* image, the inverse of rgb2lab (not
--- clamped to [0, 1]; floating tensors only).
--- Example: local image = require 'image'; image.lab2rgb(image.rgb2lab(torch.rand(3, 2, 2)))
function image.lab2rgb(...)
  local output, input = args('lab2rgb', select('#', ...), ...)
  local l, a, b = lab_planes('lab2rgb', input)
  local fy = (l + 16):div(116)
  local fz = fy - b / 200
  local fx = a / 500 + fy
  local function cube(t)
    local c = torch.pow(t, 3)
    return torch.where(c:le(EPS), (t * 116 - 16):div(KAPPA), c)
  end
  local X = cube(fx):mul(XN)
  local Y = torch.where(l:gt(KAPPA * EPS), torch.pow((l + 16):div(116), 3), l / KAPPA)
  local Z = cube(fz):mul(ZN)
  local function compress(c)
    return torch.where(c:le(0.0031308), c * 12.92,
      torch.pow(c:clone():clamp(0, math.huge), 1 / 2.4):mul(1.055):add(-0.055))
  end
  local R = compress(X * 3.2404542 - Y * 1.5371385 - Z * 0.4985314)
  local G = compress(X * -0.9692660 + Y * 1.8760108 + Z * 0.0415560)
  local B = compress(X * 0.0556434 - Y * 0.2040259 + Z * 1.0572252)
  return U.into('lab2rgb', output, stack(R, G, B):typeAs(input))
end

--- image.rgb2nrgb([output,] input): normalized RGB, each channel divided by R + G + B + 1e-6.
--- Example: local image = require 'image'; image.rgb2nrgb(torch.rand(3, 2, 2))
function image.rgb2nrgb(...)
  local output, input = args('rgb2nrgb', select('#', ...), ...)
  local r, g, b = planes('rgb2nrgb', input, false)
  local sum = (r + g + b):add(1e-6)
  return result('rgb2nrgb', output, input, r:clone():cdiv(sum), g:clone():cdiv(sum), b:clone():cdiv(sum), false)
end

-- Colour maps are built colour by colour in Lua: past MAX_COLORS (a map of levels 1..1e9 from a
-- stray value in y2jet's input) they are refused rather than looped over (Note [Image sizes]).
local MAX_COLORS = 2 ^ 24

local function count(fn, n)
  if type(n) ~= 'number' or n % 1 ~= 0 or n < 1 then
    U.fail(fn, 'nbColor must be a positive integer, got %s', U.describe(n))
  end
  if n > MAX_COLORS then U.fail(fn, 'nbColor must be at most %d, got %.0f (Note [Image sizes])', MAX_COLORS, n) end
  return n
end

--- image.colormap(nbColor): nbColor x 3 well-spaced RGB colours (hues 39 degrees apart), Torch7's map.
--- Example: local image = require 'image'; image.colormap(4)
function image.colormap(n)
  count('colormap', n)
  local map = torch.Tensor(n, 3)
  local huef, satf = 0, 0
  for i = 1, n do
    local hue, sat, light = math.fmod(huef, 360), math.fmod(satf, 0.7) + 0.3, 0.5
    huef, satf = huef + 39, satf + 1 / 9
    local c = (1 - math.abs(2 * light - 1)) * sat
    local hp = hue / 60
    local x = c * (1 - math.abs(math.fmod(hp, 2) - 1))
    local r, g, b
    if hp < 1 then r, g, b = c, x, 0
    elseif hp < 2 then r, g, b = x, c, 0
    elseif hp < 3 then r, g, b = 0, c, x
    elseif hp < 4 then r, g, b = 0, x, c
    elseif hp < 5 then r, g, b = x, 0, c
    else r, g, b = c, 0, x end
    local m = light - c / 2
    map[i][1], map[i][2], map[i][3] = r + m, g + m, b + m
  end
  return map
end

--- image.jetColormap(nbColor): nbColor x 3 colours of the jet map (blue to red).
--- Example: local image = require 'image'; image.jetColormap(8)
function image.jetColormap(n)
  count('jetColormap', n)
  local map = torch.Tensor(n, 3)
  for i = 1, n do
    local v = 4 * i / n
    map[i][1] = math.max(math.min(v - 1.5, -v + 4.5, 1), 0)
    map[i][2] = math.max(math.min(v - 0.5, -v + 3.5, 1), 0)
    map[i][3] = math.max(math.min(v + 0.5, -v + 2.5, 1), 0)
  end
  return map
end

--- image.y2jet([output,] input): a 3 x H x W jet heat map of an image of levels 1..L (H x W,
--- 1 x H x W or 1-D), L its maximum; ByteTensors get 0..255 colours.
--- Example: local image = require 'image'; image.y2jet(torch.Tensor({{1, 2}, {3, 4}}))
function image.y2jet(...)
  local output, input = args('y2jet', select('#', ...), ...)
  if not torch.isTensor(input) or input:dim() < 1 or input:dim() > 3 or (input:dim() == 3 and input:size(1) ~= 1) then
    U.fail('y2jet', 'input must be a H x W, 1 x H x W or 1-D tensor of levels 1..L, got %s', U.describe(input))
  end
  U.cpu('y2jet', input, 'input')
  local x = input:dim() == 3 and input[1] or (input:dim() == 1 and input:view(1, -1) or input)
  local levels = x:double():trunc()
  local L = levels:max()
  if levels:min() < 1 then U.fail('y2jet', 'levels must be at least 1, got %s', tostring(levels:min())) end
  if L > MAX_COLORS then
    U.fail('y2jet', 'levels must be at most %d (one colour each), got %.0f (Note [Image sizes])', MAX_COLORS, L)
  end
  local map = image.jetColormap(L)
  if U.isByte(input) then map = map:mul(255):round():clamp(0, 255):byte() else map = map:typeAs(input) end
  local h, w = x:size(1), x:size(2)
  local y = map:index(1, levels:long():view(-1)):t():contiguous():view(3, h, w)
  return U.into('y2jet', output, y)
end

end
