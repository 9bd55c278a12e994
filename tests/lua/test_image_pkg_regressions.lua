-- Regressions found reviewing the image package (lua/image/*) against torch/image's sources
-- (init.lua, generic/image.c, test/test.lua): image.scale, rotate and warp against ports of
-- generic/image.c's loops (float32 arithmetic emulated with ffi), views against copies, integer
-- images, the byte pyramid, drawRect at the borders, crop's fractional corners, sizes refused
-- before allocation, errors naming the image function, saveJPG across file systems. (PNG variants
-- are in test_image_pkg_io.lua, torchvision and conv2d values in test_image_pkg_color.lua.)
require 'image'
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function errors(f, pattern) tester:assertErrorPattern(f, pattern) end

-- float32 rounding, as generic/image.c's float intermediates.
local box = ffi.new('float[1]')
local function f32(x) box[0] = x return box[0] end

---------------------------------------------------------------------------------------------------
-- A port of generic/image.c's Main_scaleLinear_rowcol / scaleCubic_rowcol / scaleSimple for one
-- line, float32 intermediates (temp_t float for Float and Byte images), FromIntermediate for bytes.
local function from_intermediate(x, byte)
  if not byte then return f32(x) end
  x = x + 0.5
  if x <= 0 then return 0 end
  if x >= 255 then return 255 end
  return math.floor(x)
end

local function linear_line(src, nout, byte)
  local nin, dst = #src, {}
  if nout > nin then
    local scale = f32((nin - 1) / (nout - 1))
    for di = 0, nout - 2 do
      if nin == 1 then dst[di + 1] = src[1]
      else
        local sf = f32(di * scale)
        local si = math.floor(sf)
        sf = f32(sf - si)
        dst[di + 1] = from_intermediate(f32(f32(f32(1 - sf) * src[si + 1]) + f32(sf * src[si + 2])), byte)
      end
    end
    dst[nout] = src[nin]
  elseif nout < nin then
    local scale = f32(nin / nout)
    local s0i, s0f = 0, 0
    for di = 0, nout - 1 do
      local s1f = f32((di + 1) * scale)
      local s1i = math.floor(s1f)
      s1f = f32(s1f - s1i)
      local acc, n = f32(f32(1 - s0f) * src[s0i + 1]), f32(1 - s0f)
      for si = s0i + 1, s1i - 1 do acc, n = f32(acc + src[si + 1]), f32(n + 1) end
      if s1i < nin then acc, n = f32(acc + f32(s1f * src[s1i + 1])), f32(n + s1f) end
      dst[di + 1] = from_intermediate(f32(acc / n), byte)
      s0i, s0f = s1i, s1f
    end
  else
    for i = 1, nin do dst[i] = src[i] end
  end
  return dst
end

local function cubic_line(src, nout)  -- double arithmetic; compared with a tolerance
  local nin, dst = #src, {}
  if nout == nin then for i = 1, nin do dst[i] = src[i] end return dst end
  if nin == 1 then for i = 1, nout do dst[i] = src[1] end return dst end
  local scale = nout == 1 and f32(nin - 1) or f32((nin - 1) / (nout - 1))
  for di = 0, nout - 2 do
    local sf = f32(di * scale)
    local si = math.floor(sf)
    sf = f32(sf - si)
    local p1, p2 = src[si + 1], src[si + 2]
    local p0 = si > 0 and src[si] or 2 * p1 - p2
    local p3 = si + 2 < nin and src[si + 3] or 2 * p2 - p1
    local a1, a2, a3 = p2 - p0, 2 * p0 - 5 * p1 + 4 * p2 - p3, 3 * (p1 - p2) + p3 - p0
    dst[di + 1] = p1 + 0.5 * sf * (a1 + sf * (a2 + sf * a3))
  end
  dst[nout] = src[nin]
  return dst
end

-- generic/image.c's two passes on a 2-D Lua table (rows first, then columns).
local function port_scale(img, ow, oh, mode, byte)
  local h, w = #img, #img[1]
  if mode == 'simple' then
    local scx, scy = f32(f32(w) / f32(ow)), f32(f32(h) / f32(oh))
    local out = {}
    for j = 0, oh - 1 do
      out[j + 1] = {}
      for i = 0, ow - 1 do
        local ii = math.min(math.floor(f32(i * scx)), w - 1)
        local jj = math.min(math.floor(f32(j * scy)), h - 1)
        out[j + 1][i + 1] = img[jj + 1][ii + 1]
      end
    end
    return out
  end
  local line = mode == 'bicubic' and cubic_line or function(s, n) return linear_line(s, n, byte) end
  local tmp = {}
  for j = 1, h do tmp[j] = line(img[j], ow) end
  local out = {}
  for j = 1, oh do out[j] = {} end
  for i = 1, ow do
    local col = {}
    for j = 1, h do col[j] = tmp[j][i] end
    local c = line(col, oh)
    for j = 1, oh do out[j][i] = c[j] end
  end
  return out
end

function tests.scaleMatchesAPortOfGenericImageC()
  torch.manualSeed(7)
  local sizes = { { 1, 1 }, { 1, 5 }, { 5, 1 }, { 2, 3 }, { 7, 7 }, { 4, 9 }, { 11, 6 }, { 13, 17 } }
  for _, s in ipairs(sizes) do
    local x = torch.rand(s[1], s[2]):float()
    local xb = torch.ByteTensor(s[1], s[2]):random(0, 255)
    for _, o in ipairs(sizes) do
      for _, mode in ipairs({ 'simple', 'bilinear', 'bicubic' }) do
        local want = torch.FloatTensor(port_scale(x:totable(), o[2], o[1], mode, false))
        local got = image.scale(x, o[2], o[1], mode)
        tester:assertTensorEq(got, want, mode == 'bicubic' and 1e-5 or 2e-6,
          string.format('%s %dx%d -> %dx%d', mode, s[1], s[2], o[1], o[2]))
        if mode ~= 'bicubic' then
          -- bytes: equal, except where a float sum lands within an ulp of k + 0.5 (the matmul may
          -- round w0 a + w1 b once, C rounds each product): then off by one, rarely
          local wb = torch.DoubleTensor(port_scale(xb:double():totable(), o[2], o[1], mode, true))
          local d = image.scale(xb, o[2], o[1], mode):double():add(-1, wb):abs()
          local what = string.format('byte %s %dx%d -> %dx%d', mode, s[1], s[2], o[1], o[2])
          tester:assertle(d:max(), 1, what)
          tester:assertle(d:sum(), math.max(1, 0.02 * d:nElement()), what)
          if mode == 'simple' then tester:asserteq(d:max(), 0, what) end
        end
      end
    end
  end
  -- torch/image's own test values (test/test.lua: bilinearUpscale ... bicubicDownscale)
  local function outer(v) v = torch.Tensor(v) return torch.ger(v, v) end
  local im = outer({ 1, 2, 4, 2 })
  tester:assertTensorEq(image.scale(im, 7, 7, 'bilinear'), outer({ 1, 1.5, 2, 3, 4, 3, 2 }), 1e-5)
  tester:assertTensorEq(image.scale(im, 3, 3, 'bilinear'), outer({ 1.25, 3, 2.5 }), 1e-5)
  tester:assertTensorEq(image.scale(im, 7, 7, 'bicubic'), outer({ 1, 1.4375, 2, 3.1875, 4, 3.25, 2 }), 1e-5)
  tester:assertTensorEq(image.scale(im, 3, 3, 'bicubic'), outer({ 1, 3.1875, 2 }), 1e-5)
end

-- generic/image.c's Main_rotate ('simple': float32 arithmetic, C's round) and rotateBilinear
-- (double positions, its border rule) on a 2-D Lua table.
local function c_round(x) return x >= 0 and math.floor(x + 0.5) or -math.floor(-x + 0.5) end
local function port_rotate(img, theta, mode)
  local h, w = #img, #img[1]
  local t = f32(theta)
  local xc, yc = f32((w - 1) / 2), f32((h - 1) / 2)
  local out = {}
  for j = 0, h - 1 do
    out[j + 1] = {}
    for i = 0, w - 1 do
      local v = 0
      if mode == 'simple' then
        local ct, st = f32(math.cos(t)), f32(math.sin(t))
        local di, dj = f32(i - xc), f32(j - yc)
        local ii = c_round(f32(f32(f32(ct * di) - f32(st * dj)) + xc))
        local jj = c_round(f32(f32(f32(ct * dj) + f32(st * di)) + yc))
        if ii >= 0 and ii <= w - 1 and jj >= 0 and jj <= h - 1 then v = img[jj + 1][ii + 1] end
      else
        local ri = math.cos(t) * (i - xc) - math.sin(t) * (j - yc)
        local rj = math.cos(t) * (j - yc) + math.sin(t) * (i - xc)
        local i0, j0 = math.floor(ri + xc), math.floor(rj + yc)
        local i1, j1 = i0 + 1, j0 + 1
        local wi, wj = ri + xc - i0, rj + yc - j0
        local ok = true
        if i1 == w and wi < 0.5 then i1 = i0 elseif i1 >= w then ok = false end
        if j1 == h and wj < 0.5 then j1 = j0 elseif j1 >= h then ok = false end
        if i0 == -1 and wi > 0.5 then i0 = i1 elseif i0 < 0 then ok = false end
        if j0 == -1 and wj > 0.5 then j0 = j1 elseif j0 < 0 then ok = false end
        if ok then
          v = (1 - wi) * (1 - wj) * img[j0 + 1][i0 + 1] + wi * (1 - wj) * img[j0 + 1][i1 + 1]
            + (1 - wi) * wj * img[j1 + 1][i0 + 1] + wi * wj * img[j1 + 1][i1 + 1]
        end
      end
      out[j + 1][i + 1] = v
    end
  end
  return out
end

function tests.rotateMatchesAPortOfGenericImageC()
  torch.manualSeed(9)
  for _, s in ipairs({ { 1, 1 }, { 4, 4 }, { 5, 8 }, { 7, 6 }, { 9, 13 } }) do
    local x = torch.rand(s[1], s[2]):float()
    for _, theta in ipairs({ 0, 0.3, -1.1, math.pi / 2, math.pi, 2.5, -math.pi / 4, 7 }) do
      local what = string.format('%dx%d by %g', s[1], s[2], theta)
      tester:assertTensorEq(image.rotate(x, theta), torch.FloatTensor(port_rotate(x:totable(), theta, 'simple')), 0,
        'simple ' .. what)
      tester:assertTensorEq(image.rotate(x, theta, 'bilinear'),
        torch.FloatTensor(port_rotate(x:totable(), theta, 'bilinear')), 1e-5, 'bilinear ' .. what)
    end
  end
end

-- generic/image.c's Main_warp, modes simple (0) and bilinear (1), clamp or pad, on a 2-D table.
local function port_warp(img, fy, fx, mode, offset, pad)
  local h, w = #img, #img[1]
  local out = {}
  for y = 0, #fy - 1 do
    out[y + 1] = {}
    for x = 0, #fy[1] - 1 do
      local iy = f32((offset and y or 0) + fy[y + 1][x + 1])
      local ix = f32((offset and x or 0) + fx[y + 1][x + 1])
      local off = iy < 0 or iy > h - 1 or ix < 0 or ix > w - 1
      if off and pad then out[y + 1][x + 1] = pad
      else
        ix, iy = math.min(math.max(ix, 0), w - 1), math.min(math.max(iy, 0), h - 1)
        if mode == 'simple' then
          out[y + 1][x + 1] = img[math.floor(iy + 0.5) + 1][math.floor(ix + 0.5) + 1]
        else
          local x0, y0 = math.floor(ix), math.floor(iy)
          local x1, y1 = math.min(x0 + 1, w - 1), math.min(y0 + 1, h - 1)
          local gx, gy = ix - x0, iy - y0
          out[y + 1][x + 1] = img[y0 + 1][x0 + 1] * (1 - gx) * (1 - gy) + img[y0 + 1][x1 + 1] * gx * (1 - gy)
            + img[y1 + 1][x0 + 1] * (1 - gx) * gy + img[y1 + 1][x1 + 1] * gx * gy
        end
      end
    end
  end
  return out
end

function tests.warpMatchesAPortOfGenericImageC()
  torch.manualSeed(13)
  local x = torch.rand(5, 7):float()
  for _, offset in ipairs({ true, false }) do
    for _, pad in ipairs({ false, 0.25 }) do
      for _, mode in ipairs({ 'simple', 'bilinear' }) do
        local field = torch.rand(2, 4, 6):float():mul(9):add(-2)
        local got = pad and image.warp(x, field, mode, offset, 'pad', pad) or image.warp(x, field, mode, offset)
        local want = port_warp(x:totable(), field[1]:totable(), field[2]:totable(), mode, offset, pad or nil)
        tester:assertTensorEq(got, torch.FloatTensor(want), 1e-5,
          string.format('%s offset %s pad %s', mode, tostring(offset), tostring(pad)))
      end
    end
  end
end

-- A view (transposed, narrowed) gives what its contiguous copy gives; sizes large enough that
-- image.scale works by blocks (Note [Banded weights]).
function tests.viewsGiveWhatCopiesGive()
  torch.manualSeed(17)
  local base = torch.rand(3, 260, 210):float()
  local v = base:transpose(2, 3):narrow(2, 5, 200)  -- 3 x 200 x 260, not contiguous
  local c = v:contiguous()
  local vb, cb = v:clone():mul(255):byte(), nil
  cb = vb:contiguous()
  local vbt = vb:transpose(2, 3)
  for _, mode in ipairs({ 'simple', 'bilinear', 'bicubic' }) do
    for _, sz in ipairs({ { 97, 300 }, { 400, 150 }, { 130, 130 } }) do
      tester:assertTensorEq(image.scale(v, sz[1], sz[2], mode), image.scale(c, sz[1], sz[2], mode), 1e-6, mode)
      tester:assertTensorEq(image.scale(vbt, sz[1], sz[2], mode):double(),
        image.scale(vbt:contiguous(), sz[1], sz[2], mode):double(), 0, 'byte ' .. mode)
    end
  end
  local field = torch.rand(2, 20, 30):mul(40)
  local calls = {
    function(t) return image.rotate(t, 0.4) end, function(t) return image.rotate(t, -0.9, 'bilinear') end,
    function(t) return image.warp(t, field) end, function(t) return image.rgb2hsv(t) end,
    function(t) return image.convolve(t, image.gaussian(5), 'same') end,
    function(t) return image.crop(t, 3, 4, 50, 90) end,
    function(t) return image.translate(t, 7, -3) end, function(t) return image.hflip(t) end,
    function(t) return image.vflip(t) end, function(t) return image.rgb2lab(t) end,
  }
  for k, f in ipairs(calls) do tester:assertTensorEq(f(v), f(c), 1e-6, 'call ' .. k) end
end

-- Bug: every non-floating image was rounded and clamped to 0..255 as a ByteTensor; Torch7 clamps
-- only bytes (FromIntermediate) and truncates other integer types (a C cast).
function tests.scaleKeepsIntegerRanges()
  local x = torch.IntTensor({ { { 1000, 2000 }, { 3000, 4000 } } })
  local want = torch.IntTensor({ { { 1000, 1500, 2000 }, { 2000, 2500, 3000 }, { 3000, 3500, 4000 } } })
  tester:assertTensorEq(image.scale(x, 3, 3):double(), want:double(), 0)
  tester:asserteq(torch.type(image.scale(x, 3, 3)), 'torch.IntTensor')
  local l = torch.LongTensor({ { -7, 1001 } })
  tester:assertTensorEq(image.scale(l, 3, 1, 'bilinear'):double(), torch.Tensor({ { -7, 497, 1001 } }), 0)
  -- a byte image is still rounded and clamped: the cubic overshoot of 0, 255, 0 stays in range
  local b = torch.ByteTensor({ { 0, 255, 255, 0 } })
  local s = image.scale(b, 9, 1, 'bicubic')
  tester:assert(s:max() == 255 and s:min() == 0)
  tester:assertTensorEq(image.scale(torch.IntTensor({ { 0, 255, 255, 0 } }), 9, 1, 'bicubic'):double():clamp(0, 255),
    s:double(), 1)
end

-- Bug: image.gaussianpyramid refused ByteTensors (through image.convolve); Torch7's
-- test.gaussianpyramid checks Byte, Float and Double pyramids keep their type.
function tests.gaussianpyramidKeepsItsType()
  torch.manualSeed(3)
  local x = torch.rand(8, 8)
  for _, tp in ipairs({ 'torch.ByteTensor', 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local src = tp == 'torch.ByteTensor' and x:clone():mul(255):byte() or x:type(tp)
    local out = image.gaussianpyramid(src, { 0.5 })[1]
    tester:asserteq(torch.type(out), tp)
    tester:assertTableEq(out:size():totable(), { 4, 4 })
  end
  -- the byte pyramid is the floating one, rounded
  local b = x:clone():mul(255):byte()
  local pb = image.gaussianpyramid(b, { 1, 0.5 })
  local pf = image.gaussianpyramid(b:double(), { 1, 0.5 })
  tester:assertTensorEq(pb[1]:double(), pf[1]:clone():add(0.5):floor():clamp(0, 255), 0)
  tester:assertTensorEq(pb[2]:double(), pf[2], 1)
end

-- generic/image.c's Main_drawRect on a Lua table (0-based corners after clamping; pixels it would
-- write outside the image -- an error in Torch7 -- are skipped).
local function port_rect(h, w, x1, y1, x2, y2, lw)
  local m = torch.zeros(h, w)
  local off = math.floor(lw / 2)
  local ax1, ay1 = math.max(0, x1 - off - 1), math.max(0, y1 - off - 1)
  local ax2, ay2 = math.min(w - 1, x2 - off - 1), math.min(h - 1, y2 - off - 1)
  local function px(y, x) if y >= 0 and y < h and x >= 0 and x < w then m[y + 1][x + 1] = 1 end end
  for y = ay1, ay2 + lw - 1 do
    for x = ax1, ax1 + lw - 1 do px(y, x) end
    for x = ax2, ax2 + lw - 1 do px(y, x) end
  end
  for x = ax1, ax2 + lw - 1 do
    for y = ay1, ay1 + lw - 1 do px(y, x) end
    for y = ay2, ay2 + lw - 1 do px(y, x) end
  end
  return m
end

-- Bug: a rectangle reaching past the image lost the sides outside it; Torch7 clamps the corners
-- to the image, so a box larger than the image outlines the image's border.
function tests.drawRectClampsCornersAsTorch7()
  local z = torch.zeros(3, 6, 6)
  local r = image.drawRect(z, 0, 0, 8, 8)
  tester:assertTensorEq(r[1], port_rect(6, 6, 0, 0, 8, 8, 1), 0)
  tester:asserteq(r[1]:sum(), 20)  -- the 6 x 6 border
  torch.manualSeed(5)
  for _ = 1, 60 do
    local x1, y1 = torch.random(-2, 9), torch.random(-2, 9)
    local x2, y2 = x1 + torch.random(0, 8), y1 + torch.random(0, 8)
    local lw = torch.random(1, 4)
    local got = image.drawRect(torch.zeros(3, 7, 8), x1, y1, x2, y2, { lineWidth = lw })
    tester:assertTensorEq(got[1], port_rect(7, 8, x1, y1, x2, y2, lw), 0,
      string.format('rect %d,%d %d,%d width %d', x1, y1, x2, y2, lw))
  end
end

-- Bug: crop's width was x2 - trunc(x1); Torch7 makes the window (x2 - x1) wide, truncated
-- (src.new(endy - starty, endx - startx)), and starts it at trunc(x1) (luaL_checklong).
function tests.cropFractionalCorners()
  local x = torch.rand(1, 5, 8)
  local c = image.crop(x, 0.5, 0, 3.2, 2)
  tester:assertTableEq(c:size():totable(), { 1, 2, 2 })
  tester:assertTensorEq(c, x:narrow(3, 1, 2):narrow(2, 1, 2), 0)
  tester:assertTableEq(image.crop(x, 1.9, 1.5, 4, 4.9):size():totable(), { 1, 3, 2 })
end

-- Bug: sizes past any image's were handed to the allocator ("[alloc] out of memory", not naming
-- the function) or to Lua loops building weights; they are refused first (Note [Image sizes]).
function tests.hugeSizesRefusedBeforeAllocation()
  local x = torch.rand(1, 4, 4)
  errors(function() image.scale(x, 1e6, 1e6) end, '%[image%.scale%] .*1000000 x 1000000')
  errors(function() image.scale(x, 1e9, 1) end, '%[image%.scale%]')
  errors(function() image.scale(x, '*100000') end, '%[image%.scale%]')
  errors(function() image.gaussian{ width = 1e6, height = 1e6 } end, '%[image%.gaussian%] .*1000000 x 1000000')
  errors(function() image.laplacian{ width = 1e6, height = 1e6 } end, '%[image%.laplacian%]')
  errors(function() image.gaussian1D(1e12) end, '%[image%.gaussian1D%]')
  errors(function() image.gaussianpyramid(x, { 1e5 }) end, '%[image%.gaussianpyramid%]')
  errors(function() image.y2jet(torch.Tensor({ { 1, 1e9 } })) end, '%[image%.y2jet%] levels must be at most')
  errors(function() image.jetColormap(1e9) end, '%[image%.jetColormap%] nbColor must be at most')
  errors(function() image.colormap(1e12) end, '%[image%.colormap%] nbColor must be at most')
  -- ordinary sizes still work
  tester:assertTableEq(image.scale(x, 300, 200):size():totable(), { 1, 200, 300 })
end

-- Bug: an empty image reached torch's min/max ("[max] cannot reduce ...", not naming the image
-- function), and more positional arguments than toDisplayTensor has raised "table index is nil".
function tests.displayHelpersNameTheirErrors()
  errors(function() image.toDisplayTensor(torch.rand(2, 0, 3)) end, '%[image%.toDisplayTensor%] input is empty')
  errors(function() image.toDisplayTensor({ torch.rand(0, 3) }) end, '%[image%.toDisplayTensor%] input%[1%] must be')
  errors(function() image.toDisplayTensor(torch.rand(3, 4, 4), 1, 2, 3, 4, 5, 6, 7, 8) end,
    '%[image%.toDisplayTensor%] too many arguments %(9')
  errors(function() image.minmax{ tensor = torch.rand(0) } end, '%[image%.minmax%] tensor is empty')
  -- with both bounds given, an empty tensor is just rescaled (nothing to do)
  tester:asserteq(image.minmax{ tensor = torch.rand(0), min = 0, max = 1 }:nElement(), 0)
end

-- Bug: shapes torch.conv2 refuses gave "[conv2] ..." errors; a bad tensorOut raised "attempt to
-- call method 'resize'"; compress errors named the temporary file.
function tests.errorsNameTheImageFunction()
  local x = torch.rand(3, 6, 6)
  errors(function() image.convolve(x, torch.rand(2, 3, 3)) end, '%[image%.convolve%] a 3%-D kernel needs')
  errors(function() image.convolve(x[1], torch.rand(2, 3, 3)) end, '%[image%.convolve%] a 3%-D kernel needs')
  errors(function() image.convolve(x, torch.rand(9, 9)) end,
    "%[image%.convolve%] the kernel .* is larger than the image")
  tester:assertTableEq(image.convolve(x, torch.rand(9, 9), 'same'):size():totable(), { 3, 6, 6 })
  errors(function() image.minmax{ tensor = x, tensorOut = 'q' } end, '%[image%.minmax%] tensorOut must be a tensor')
  local ok, err = pcall(image.compressJPG, torch.rand(2, 4, 4))
  tester:assert(not ok and err:find('[image.compressJPG] cannot save a JPEG image of size 2x4x4', 1, true), err)
  -- the message after the function's name (the position before it may hold /tmp: a CI checkout)
  local message = err:match('%[image%.compressJPG%].*$') or err
  tester:assert(not message:find('tmp', 1, true), 'no temporary file name: ' .. err)
end

-- Bug: saveJPG with another extension wrote a temporary file under /tmp and renamed it, which
-- fails across file systems ("Invalid cross-device link").
function tests.saveJPGAnyExtensionAnyDirectory()
  local dirs = { (os.getenv('TOCHA_TEST_TMP') or '/tmp') }
  local shm = io.open('/dev/shm/.tocha_probe', 'wb')
  if shm then shm:close() os.remove('/dev/shm/.tocha_probe') dirs[#dirs + 1] = '/dev/shm' end
  for _, d in ipairs(dirs) do
    local p = d .. '/image_regr_' .. tostring(os.time()) .. '.img'
    image.saveJPG(p, torch.rand(3, 8, 8))
    tester:asserteq(image.getJPGsize(p), 3, 'saveJPG into ' .. d)
    tester:assertTableEq(image.load(p):size():totable(), { 3, 8, 8 })
    os.remove(p)
  end
end

tester:add(tests)
tester:run()
