-- nn.functional's pooling, padding and resampling functions (PyTorch-style arguments; differentiable,
-- since the C ops they call record themselves), and the buffer-reusing forms the nn modules of this
-- family call (returned by require 'nn.functional_pool').
local ffi = require 'ffi'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

nn.functional = nn.functional or {}
local F = nn.functional
local M = {}

local BASE = 1  -- Lua indices count from 1
local pair = ffi.new('tocha_tensor *[2]')
local k3, d3, p3 = ffi.new('int64_t[3]'), ffi.new('int64_t[3]'), ffi.new('int64_t[3]')
local size_buf = ffi.new('int64_t[16]')
local pads_buf = ffi.new('int64_t[6]')
local PAD_MODES = { constant = 0, reflect = 1, replicate = 2 }
local UP_MODES = { nearest = 0, bilinear = 1 }

local function pair_result(status)
  check(status)
  return wrap(pair[0]), wrap(pair[1])
end
-- The sizes of tensor x in size_buf; returns its rank.
local function sizes_of(x)
  local p = x.p
  for i = 0, p.ndim - 1 do size_buf[i] = p.size[i] end
  return p.ndim
end
local function fill3(buf, a, b, c) buf[0], buf[1], buf[2] = a, b, c return buf end

-- ---- buffer-reusing forms (res/indices may be nil: new tensors) ------------------------------------

function M.adaptiveMaxPool2d(res, idx, x, oh, ow)
  if res then check(C.tocha_adaptive_max_pool2d_out(res.p, idx.p, x.p, oh, ow, BASE)) return res, idx end
  return pair_result(C.tocha_adaptive_max_pool2d(x.p, oh, ow, BASE, pair, pair + 1))
end
function M.adaptiveAvgPool2d(res, x, oh, ow)
  if res then check(C.tocha_adaptive_avg_pool2d_out(res.p, x.p, oh, ow)) return res end
  return wrap(C.tocha_adaptive_avg_pool2d(x.p, oh, ow))
end
function M.adaptiveAvgPool2dBackward(res, g, input)
  local n = sizes_of(input)
  if res then check(C.tocha_adaptive_avg_pool2d_backward_out(res.p, g.p, n, size_buf)) return res end
  return wrap(C.tocha_adaptive_avg_pool2d_backward(g.p, n, size_buf))
end

-- 3D windows: k, d, pad are {T, H, W} tables.
function M.maxPool3d(res, idx, x, k, d, pad, ceil)
  fill3(k3, k[1], k[2], k[3]) fill3(d3, d[1], d[2], d[3]) fill3(p3, pad[1], pad[2], pad[3])
  if res then check(C.tocha_max_pool3d_out(res.p, idx.p, x.p, k3, d3, p3, ceil and 1 or 0, BASE)) return res, idx end
  return pair_result(C.tocha_max_pool3d(x.p, k3, d3, p3, ceil and 1 or 0, BASE, pair, pair + 1))
end
function M.avgPool3d(res, x, k, d, pad, ceil, countIncludePad)
  fill3(k3, k[1], k[2], k[3]) fill3(d3, d[1], d[2], d[3]) fill3(p3, pad[1], pad[2], pad[3])
  local c, cip = ceil and 1 or 0, countIncludePad and 1 or 0
  if res then check(C.tocha_avg_pool3d_out(res.p, x.p, k3, d3, p3, c, cip)) return res end
  return wrap(C.tocha_avg_pool3d(x.p, k3, d3, p3, c, cip))
end
function M.avgPool3dBackward(res, g, input, k, d, pad, ceil, countIncludePad)
  fill3(k3, k[1], k[2], k[3]) fill3(d3, d[1], d[2], d[3]) fill3(p3, pad[1], pad[2], pad[3])
  local n, c, cip = sizes_of(input), ceil and 1 or 0, countIncludePad and 1 or 0
  if res then check(C.tocha_avg_pool3d_backward_out(res.p, g.p, n, size_buf, k3, d3, p3, c, cip)) return res end
  return wrap(C.tocha_avg_pool3d_backward(g.p, n, size_buf, k3, d3, p3, c, cip))
end

function M.temporalMaxPool(res, idx, x, kW, dW)
  if res then check(C.tocha_temporal_max_pool_out(res.p, idx.p, x.p, kW, dW, BASE)) return res, idx end
  return pair_result(C.tocha_temporal_max_pool(x.p, kW, dW, BASE, pair, pair + 1))
end

-- The gradient of a max pooling of `input` whose pooled dims are the last `count` but `skip`.
function M.maxPoolBackward(res, g, idx, input, count, skip)
  local n = sizes_of(input)
  local first = n - count - (skip or 0)
  if res then check(C.tocha_max_pool_backward_out(res.p, g.p, idx.p, n, size_buf, first, count, BASE)) return res end
  return wrap(C.tocha_max_pool_backward(g.p, idx.p, n, size_buf, first, count, BASE))
end

-- pads: a Lua list in F.pad's order; mode: 0, 1 or 2.
local function fill_pads(pads)
  for i = 1, #pads do pads_buf[i - 1] = pads[i] end
  return #pads
end
function M.pad(res, x, pads, mode, value)
  local n = fill_pads(pads)
  if res then check(C.tocha_pad_out(res.p, x.p, n, pads_buf, mode, value or 0)) return res end
  return wrap(C.tocha_pad(x.p, n, pads_buf, mode, value or 0))
end
function M.padBackward(res, g, input, pads, mode)
  local np, nd = fill_pads(pads), sizes_of(input)
  if res then check(C.tocha_pad_backward_out(res.p, g.p, nd, size_buf, np, pads_buf, mode)) return res end
  return wrap(C.tocha_pad_backward(g.p, nd, size_buf, np, pads_buf, mode))
end

function M.upsample2d(res, x, oh, ow, mode, align)
  if res then check(C.tocha_upsample2d_out(res.p, x.p, oh, ow, mode, align and 1 or 0)) return res end
  return wrap(C.tocha_upsample2d(x.p, oh, ow, mode, align and 1 or 0))
end
function M.upsample2dBackward(res, g, input, mode, align)
  local n = sizes_of(input)
  if res then check(C.tocha_upsample2d_backward_out(res.p, g.p, n, size_buf, mode, align and 1 or 0)) return res end
  return wrap(C.tocha_upsample2d_backward(g.p, n, size_buf, mode, align and 1 or 0))
end

-- Runs f(...) for `module`; an error from the C op is raised again naming the module instead of
-- the op ("[nn.VolumetricMaxPooling(2x2x2, 2,2,2)] input of size ... is too small ...").
function M.call(module, f, ...)
  local ok, a, b = pcall(f, ...)
  if ok then return a, b end
  local msg = tostring(a):gsub('^[^\n]-:%d+: ', ''):gsub('^%[[%w_.]+%] ', '')
  error('[' .. tostring(module) .. '] ' .. msg, lib.user_level())
end
-- Raises "[name] message" at the user's line (for constructors: the module cannot print itself yet).
function M.init_error(name, fmt, ...) fail(name, fmt, ...) end
-- Stores a volumetric pooling module's window (kT, kW, kH), strides (default: the window) and
-- padding (default 0): positive integers, and padding an integer of at most half the window (the
-- ops' rule, checked here so the error comes at construction); shared by Volumetric{Max,Average}Pooling.
function M.init_window3d(m, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  m.kT, m.kW, m.kH = kT, kW, kH
  m.dT, m.dW, m.dH = dT or kT, dW or kW, dH or kH
  m.padT, m.padW, m.padH = padT or 0, padW or 0, padH or 0
  local name = torch.typename(m)
  for _, k in ipairs({ 'kT', 'kW', 'kH', 'dT', 'dW', 'dH', 'padT', 'padW', 'padH' }) do
    local v, min = m[k], k:sub(1, 3) == 'pad' and 0 or 1
    if type(v) ~= 'number' or v ~= math.floor(v) or v < min or v >= 2 ^ 31 then
      M.init_error(name, '%s must be an integer >= %d, got %s', k, min, type(v) == 'number' and tostring(v) or describe(v))
    end
  end
  for _, d in ipairs({ 'T', 'W', 'H' }) do
    if m['pad' .. d] > m['k' .. d] / 2 then
      M.init_error(name, 'pad%s (%d) must be at most half of k%s (%d)', d, m['pad' .. d], d, m['k' .. d])
    end
  end
end
-- Raises "[module] message" at the user's line.
function M.fail(module, fmt, ...) fail(tostring(module), fmt, ...) end
-- "3x4x5" for a tensor, its type otherwise.
function M.size_str(x) return is_tensor(x) and types.shape_str(x.p) or describe(x) end
-- The input check every module of the family starts with: a floating tensor of one of two ranks.
function M.check_input(module, x, lo, layout)
  if not is_tensor(x) then M.fail(module, 'expected a tensor input, got %s', describe(x)) end
  local n = x:dim()
  if n ~= lo and n ~= lo + 1 then
    M.fail(module, 'expected a %dD or %dD (%s) input, got %s', lo, lo + 1, layout,
      n == 0 and 'a 0-dim tensor' or 'size ' .. types.shape_str(x.p))
  end
end
-- The module's buffer `name`, replaced by an empty tensor of like's type when the types differ:
-- these modules have no parameters, so they follow their input's type.
function M.buffer(module, name, like)
  local b = module[name]
  if not is_tensor(b) or b.p.dtype ~= like.p.dtype then
    b = like.new()
    module[name] = b
  end
  return b
end
-- Checks that gradOutput has the size of the output for `input` with the last two dims h x w
-- (backward ops that take their output size from the gradient would accept any size).
function M.check_grad(module, gradOutput, input, h, w)
  local ok = is_tensor(gradOutput) and gradOutput:dim() == input:dim()
  local n = input:dim()
  for d = 1, n do
    if ok then ok = gradOutput:size(d) == (d == n - 1 and h or d == n and w or input:size(d)) end
  end
  if not ok then
    local expect = input:size()
    expect[n - 1], expect[n] = h, w
    M.fail(module, 'gradOutput of size %s does not match the output size %s', M.size_str(gradOutput),
      table.concat(expect:totable(), 'x'))
  end
end
-- A LongTensor buffer (Module:type() converts every tensor; indices must stay LongTensors), on
-- the device of `like` when it is given.
function M.long_buffer(t, like)
  if like then return nn.utils.longBuffer(t, like) end
  if torch.type(t) == 'torch.LongTensor' then return t end
  return torch.LongTensor()
end

-- The methods of Torch7's padding modules nn.Spatial{Zero,Reflection,Replication}Padding(pad_l
-- [, pad_r, pad_t, pad_b]) (missing pads default to pad_l; negative pads crop) on 3D or 4D inputs.
-- `format` prints the pads as Torch7 did for that class.
function M.define_padding(class, parent, mode, format)
  function class:__init(pad_l, pad_r, pad_t, pad_b)
    parent.__init(self)
    self.pad_l = pad_l
    self.pad_r = pad_r or pad_l
    self.pad_t = pad_t or pad_l
    self.pad_b = pad_b or pad_l
    for _, k in ipairs({ 'pad_l', 'pad_r', 'pad_t', 'pad_b' }) do
      if type(self[k]) ~= 'number' or self[k] ~= math.floor(self[k]) then
        M.init_error(torch.type(self), '%s must be an integer, got %s', k, tostring(self[k]))
      end
    end
  end
  local function pads(self) return { self.pad_l, self.pad_r, self.pad_t, self.pad_b } end
  function class:updateOutput(input)
    M.check_input(self, input, 3, 'N x C x H x W')
    local n = input:dim()
    local h = input:size(n - 1) + self.pad_t + self.pad_b
    local w = input:size(n) + self.pad_l + self.pad_r
    if h < 1 or w < 1 then M.fail(self, 'input of size %s is too small (the output would be %dx%d)',
      types.shape_str(input.p), h, w) end
    M.call(self, M.pad, M.buffer(self, 'output', input), input, pads(self), mode, 0)
    return self.output
  end
  function class:updateGradInput(input, gradOutput)
    local gi = M.buffer(self, 'gradInput', gradOutput)
    M.call(self, M.padBackward, gi, gradOutput, input, pads(self), mode)
    return self.gradInput
  end
  function class:__tostring__()
    return torch.type(self) .. string.format(format, self.pad_l, self.pad_r, self.pad_t, self.pad_b)
  end
end

-- ---- argument helpers of the functional API ------------------------------------------------------

local function tensor_arg(op, x, what)
  if not is_tensor(x) then fail(op, 'expected %s (a tensor), got %s', what or 'a tensor', describe(x)) end
  return x
end
local function int_arg(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) then fail(op, 'expected %s (an integer), got %s', what, describe(v)) end
  return v
end
-- A number or a table of n numbers, as a table of n integers (nil gives `default`).
local function ints(op, v, n, what, default)
  if v == nil then v = default end
  if type(v) == 'number' then
    local t = {}
    for i = 1, n do t[i] = int_arg(op, v, what) end
    return t
  end
  if type(v) ~= 'table' or #v ~= n then fail(op, 'expected %s as a number or a table of %d numbers, got %s', what, n,
    describe(v)) end
  local t = {}
  for i = 1, n do t[i] = int_arg(op, v[i], what) end
  return t
end
local function rank_arg(op, x, lo, layout)
  tensor_arg(op, x, 'an input')
  if x:dim() ~= lo and x:dim() ~= lo + 1 then
    fail(op, 'expected a %dD or %dD (%s) tensor, got %s', lo, lo + 1, layout,
      x:dim() == 0 and 'a 0-dim tensor' or 'size ' .. types.shape_str(x.p))
  end
end

-- ---- pooling --------------------------------------------------------------------------------------

-- The {oh, ow} of an adaptive 2D pool of x: size is oh or {oh, ow}, where a nil or false entry keeps
-- that input size (PyTorch's None, as the nn modules: Note [None in adaptive output sizes],
-- pytorch_names_pool.lua).
local function adaptive_size(op, x, size)
  if type(size) == 'table' and (size[1] == nil or size[1] == false or size[2] == nil or size[2] == false) then
    for k in pairs(size) do
      if k ~= 1 and k ~= 2 then
        fail(op, 'expected the output size as {h, w} (nil keeps a size), got a key %s', tostring(k))
      end
    end
    rank_arg(op, x, 3, 'N x C x H x W')
    local n = x:dim()
    local t = { size[1], size[2] }
    if not t[1] then t[1] = x:size(n - 1) end
    if not t[2] then t[2] = x:size(n) end
    size = t
  end
  return ints(op, size, 2, 'the output size')
end

--- nn.functional.adaptiveMaxPool2d(x, size): max over adaptive windows of a (C x H x W) or
--- (N x C x H x W) tensor; size is oh or {oh, ow}, a nil or false entry keeping that input size
--- (PyTorch's None). Returns the output and a LongTensor of the 1-based flat positions
--- ((h-1)*W + w) of the maxima in their planes.
function F.adaptiveMaxPool2d(x, size)
  tensor_arg('adaptiveMaxPool2d', x, 'an input')
  local s = adaptive_size('adaptiveMaxPool2d', x, size)
  return M.adaptiveMaxPool2d(nil, nil, x, s[1], s[2])
end

--- nn.functional.adaptiveAvgPool2d(x, size): averages over adaptive windows (rows
--- floor((i-1)*H/oh) .. ceil(i*H/oh)) of a (C x H x W) or (N x C x H x W) tensor; size is oh or
--- {oh, ow}, a nil or false entry keeping that input size (PyTorch's None).
function F.adaptiveAvgPool2d(x, size)
  tensor_arg('adaptiveAvgPool2d', x, 'an input')
  local s = adaptive_size('adaptiveAvgPool2d', x, size)
  return M.adaptiveAvgPool2d(nil, x, s[1], s[2])
end

--- nn.functional.maxPool3d(x, kernel [, stride = kernel] [, padding = 0] [, dilation = 1]
--- [, ceilMode = false]): max pooling of a (C x T x H x W) or (N x C x T x H x W) tensor, in
--- PyTorch's argument order; sizes are numbers or {t, h, w}. Returns the output and the 1-based
--- flat positions of the maxima in their (T x H x W) volumes. A boolean 5th argument is ceilMode
--- (Tocha's earlier order; a dilation is never a boolean).
--- Example: nn.functional.maxPool3d(torch.randn(1, 1, 4, 4, 4), 2)
function F.maxPool3d(x, kernel, stride, padding, dilation, ceilMode)
  tensor_arg('maxPool3d', x, 'an input')
  if type(dilation) == 'boolean' then dilation, ceilMode = nil, dilation end
  if dilation ~= nil then
    local dl = ints('maxPool3d', dilation, 3, 'the dilation')
    if dl[1] ~= 1 or dl[2] ~= 1 or dl[3] ~= 1 then
      return F.maxPool3dWithIndices(x, kernel, stride, padding, dilation, ceilMode)
    end
  end
  local k = ints('maxPool3d', kernel, 3, 'the kernel size')
  local d = ints('maxPool3d', stride, 3, 'the stride', k)
  local p = ints('maxPool3d', padding, 3, 'the padding', 0)
  return M.maxPool3d(nil, nil, x, k, d, p, ceilMode)
end

-- Note [divisorOverride]: PyTorch's avg_pool2d/3d(..., divisor_override = d) divide each window's
-- sum by d (countIncludePad then plays no part); the C average poolings have no such option, and
-- ignoring the argument gave plain averages silently. Here x is zero-padded explicitly, by the
-- padding on the left and up to the end of the last window on the right (ceil mode may put it past
-- the padding; a negative pad crops cells no window reaches), so that every window lies inside and
-- its average times the window volume is its sum. The window count is PyTorch's (ceil mode drops a
-- window that would start in the right padding). Recorded ops (pad, pooling, mul): differentiable.
function M.avgPoolDivisor(op, nd, x, kernel, stride, padding, ceilMode, divisor)
  tensor_arg(op, x, 'an input')
  if type(divisor) ~= 'number' or divisor ~= math.floor(divisor) or divisor == 0 then
    fail(op, 'divisorOverride must be a nonzero integer, got %s',
      type(divisor) == 'number' and tostring(divisor) or describe(divisor))
  end
  if ceilMode ~= nil and type(ceilMode) ~= 'boolean' then
    fail(op, 'ceilMode must be a boolean, got %s', describe(ceilMode))
  end
  if x:dim() ~= nd + 1 and x:dim() ~= nd + 2 then
    fail(op, 'expected a %dD or %dD input, got size %s', nd + 1, nd + 2, types.shape_str(x.p))
  end
  local k = ints(op, kernel, nd, 'the kernel size')
  local s = ints(op, stride, nd, 'the stride', k)
  local p = ints(op, padding, nd, 'the padding', 0)
  local pads, volume = {}, 1
  for i = 1, nd do
    if k[i] < 1 or s[i] < 1 or p[i] < 0 or p[i] > k[i] / 2 then
      fail(op, 'expected kernel sizes and strides >= 1 and paddings between 0 and half the kernel, got kernel %s, ' ..
        'stride %s, padding %s', table.concat(k, 'x'), table.concat(s, ','), table.concat(p, ','))
    end
    local L = x:size(x:dim() - nd + i)
    local span = L + 2 * p[i] - k[i]
    local o = (ceilMode and math.ceil(span / s[i]) or math.floor(span / s[i])) + 1
    if ceilMode and (o - 1) * s[i] >= L + p[i] then o = o - 1 end
    if span < 0 or o < 1 then
      fail(op, 'input of size %s padded by %s is smaller than the kernel %s', types.shape_str(x.p),
        table.concat(p, ','), table.concat(k, 'x'))
    end
    pads[2 * (nd - i) + 1], pads[2 * (nd - i) + 2] = p[i], (o - 1) * s[i] + k[i] - L - p[i]
    volume = volume * k[i]
  end
  local zero = { 0, 0, 0 }
  local xp = M.pad(nil, x, pads, PAD_MODES.constant, 0)
  local avg = nd == 2 and torch.avgPool2d(xp, k, s, 0, false, true) or M.avgPool3d(nil, xp, k, s, zero, false, true)
  return torch.mul(avg, volume / divisor)
end

--- nn.functional.avgPool3d(x, kernel [, stride = kernel] [, padding = 0] [, ceilMode = false]
--- [, countIncludePad = true] [, divisorOverride]): average pooling of a (C x T x H x W) or
--- (N x C x T x H x W) tensor; a divisorOverride divides each window's sum by it instead
--- (Note [divisorOverride]).
--- Example: nn.functional.avgPool3d(torch.randn(1, 1, 4, 4, 4), 2, 2, 0, false, true, 4)
function F.avgPool3d(x, kernel, stride, padding, ceilMode, countIncludePad, divisorOverride)
  if divisorOverride ~= nil then
    return M.avgPoolDivisor('avgPool3d', 3, x, kernel, stride, padding, ceilMode, divisorOverride)
  end
  tensor_arg('avgPool3d', x, 'an input')
  local k = ints('avgPool3d', kernel, 3, 'the kernel size')
  local d = ints('avgPool3d', stride, 3, 'the stride', k)
  local p = ints('avgPool3d', padding, 3, 'the padding', 0)
  return M.avgPool3d(nil, x, k, d, p, ceilMode, countIncludePad ~= false)
end

--- nn.functional.temporalMaxPool(x, kW [, dW = kW]): Torch7's temporal max pooling of a
--- (nFrame x frameSize) or (nBatch x nFrame x frameSize) tensor over windows of kW frames every
--- dW. Returns the output and the 1-based frames of the maxima.
function F.temporalMaxPool(x, kW, dW)
  tensor_arg('temporalMaxPool', x, 'an input')
  kW = int_arg('temporalMaxPool', kW, 'the kernel width')
  dW = int_arg('temporalMaxPool', dW or kW, 'the step')
  return M.temporalMaxPool(nil, nil, x, kW, dW)
end

-- ---- padding ------------------------------------------------------------------------------------

--- nn.functional.pad(x, pads [, mode = 'constant'] [, value = 0]): pads the last 1-3 dims; pads is
--- {left, right [, top, bottom [, front, back]]} (from the last dim, as PyTorch's F.pad). Modes:
--- 'constant', 'reflect' (the edge is not repeated), 'replicate'. Negative pads crop.
function F.pad(x, pads, mode, value)
  tensor_arg('pad', x, 'an input')
  if type(pads) ~= 'table' or (#pads ~= 2 and #pads ~= 4 and #pads ~= 6) then
    fail('pad', 'expected pads as a table of 2, 4 or 6 numbers, got %s', type(pads) == 'table' and #pads .. ' numbers'
      or describe(pads))
  end
  for i = 1, #pads do int_arg('pad', pads[i], 'a pad') end
  local m = PAD_MODES[mode or 'constant']
  if not m then fail('pad', "mode must be 'constant', 'reflect' or 'replicate', got %s", tostring(mode)) end
  if value ~= nil and type(value) ~= 'number' then
    fail('pad', 'expected a number as value, got %s', describe(value))
  end
  if value ~= nil and value ~= 0 and m ~= 0 then fail('pad', 'a value only goes with constant padding') end
  return M.pad(nil, x, pads, m, value)
end

-- ---- resampling -----------------------------------------------------------------------------------

-- The output sizes of interpolate along n dims of x (the last n).
local function target_sizes(op, x, n, size, scale)
  if (size == nil) == (scale == nil) then fail(op, 'give exactly one of size and scaleFactor') end
  local out = {}
  if size ~= nil then
    out = ints(op, size, n, 'the size')
  else
    if type(scale) == 'number' then
      local all = {}
      for i = 1, n do all[i] = scale end
      scale = all
    end
    if type(scale) ~= 'table' or #scale ~= n then fail(op, 'expected scaleFactor as a number or %d numbers', n) end
    for i = 1, n do
      if type(scale[i]) ~= 'number' or scale[i] <= 0 then fail(op, 'scale factors must be positive numbers') end
      out[i] = math.floor(x:size(x:dim() - n + i) * scale[i])
    end
  end
  for i = 1, n do
    if out[i] < 1 then fail(op, 'output size %s must be positive', table.concat(out, 'x')) end
  end
  return out
end

local LINEAR_MODE = { 'linear', 'bilinear', 'trilinear' }

--- nn.functional.interpolate(x, {size= | scaleFactor= [, mode = 'nearest'] [, alignCorners = false]}):
--- resamples an (N x C x L) tensor (modes 'nearest', 'linear'), an (N x C x H x W) tensor (modes
--- 'nearest', 'bilinear') or an (N x C x D x H x W) tensor (modes 'nearest', 'trilinear'); size and
--- scaleFactor are numbers or one per resampled dim. With alignCorners the corner pixels of input
--- and output coincide (Torch7's SpatialUpSamplingBilinear). Source coordinates use in/out, the
--- scale PyTorch uses with recompute_scale_factor=True. 5-D input is resampled one dim at a time
--- (Note [Separable resampling], nn/resample.lua).
function F.interpolate(x, opts)
  local op = 'interpolate'
  tensor_arg(op, x, 'an input')
  if opts ~= nil and type(opts) ~= 'table' then fail(op, 'expected an options table, got %s', describe(opts)) end
  opts = opts or {}
  local mode = opts.mode or 'nearest'
  local n = x:dim() - 2
  if n < 1 or n > 3 then
    fail(op, 'expected a 3D (N x C x L), 4D (N x C x H x W) or 5D (N x C x D x H x W) tensor, got size %s',
      types.shape_str(x.p))
  end
  if mode ~= 'nearest' and mode ~= LINEAR_MODE[n] then
    fail(op, "mode %s does not apply to a %dD tensor (use 'nearest' or '%s')", tostring(mode), x:dim(), LINEAR_MODE[n])
  end
  if opts.alignCorners ~= nil and mode == 'nearest' then fail(op, 'alignCorners only goes with linear modes') end
  local s = target_sizes(op, x, n, opts.size, opts.scaleFactor)
  if n == 3 then
    if not nn.utils.isFloating(x) then fail(op, 'expected a floating-point tensor, got %s', describe(x)) end
    for d = 2, x:dim() do  -- only the batch may be empty (PyTorch's rule)
      if x:size(d) == 0 then
        fail(op, 'expected a non-empty input (only the batch may be empty), got size %s', types.shape_str(x.p))
      end
    end
    return require('nn.resample').resample(x, s, mode == 'nearest' and 'nearest' or 'linear', opts.alignCorners)
  end
  local m = mode == 'nearest' and UP_MODES.nearest or UP_MODES.bilinear
  if n == 1 then
    return M.upsample2d(nil, x:unsqueeze(3), 1, s[1], m, opts.alignCorners):squeeze(3)
  end
  return M.upsample2d(nil, x, s[1], s[2], m, opts.alignCorners)
end

-- The argument checks lua/nn/functional_unpool.lua shares.
M.args = { ints = ints, rank_arg = rank_arg, tensor_arg = tensor_arg }

return M
