-- Convolution and pooling as torch functions (PyTorch's functional forms, channels-first layouts,
-- per-dim options in (depth,) height, width order): conv1d/2d/3d, convTranspose1d/2d/3d,
-- convWeight, maxPool2d and avgPool2d. They are recorded ops, differentiable to any order.
-- torch._conv holds the raw pieces the nn modules call directly (reused option structs).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

local conv_opts = ffi.new('tocha_conv_options')
local pool_opts = ffi.new('tocha_pool_options')
local sizes = ffi.new('int64_t[16]')
local values_out, indices_out = ffi.new('tocha_tensor *[1]'), ffi.new('tocha_tensor *[1]')

-- A per-dim option given as a number (every dim) or a table of nd numbers, as a Lua table.
local function per_dim(op, name, v, nd, default)
  if v == nil then v = default end
  local r = {}
  if type(v) == 'number' then
    for d = 1, nd do r[d] = v end
  elseif type(v) == 'table' and #v == nd then
    for d = 1, nd do
      if type(v[d]) ~= 'number' then fail(op, '%s must hold numbers, got %s', name, describe(v[d])) end
      r[d] = v[d]
    end
  else
    fail(op, '%s must be a number or a table of %d numbers, got %s', name, nd, describe(v))
  end
  for d = 1, nd do
    if r[d] ~= math.floor(r[d]) then fail(op, '%s must be integers, got %s', name, tostring(r[d])) end
  end
  return r
end

local function fill_conv(op, nd, stride, padding, dilation, output_padding, groups)
  local s = per_dim(op, 'stride', stride, nd, 1)
  local p = per_dim(op, 'padding', padding, nd, 0)
  local d = per_dim(op, 'dilation', dilation, nd, 1)
  local q = per_dim(op, 'outputPadding', output_padding, nd, 0)
  if groups ~= nil and (type(groups) ~= 'number' or groups ~= math.floor(groups)) then
    fail(op, 'groups must be an integer, got %s', describe(groups))
  end
  conv_opts.nd = nd
  conv_opts.groups = groups or 1
  for i = 1, nd do
    conv_opts.stride[i - 1], conv_opts.padding[i - 1] = s[i], p[i]
    conv_opts.dilation[i - 1], conv_opts.output_padding[i - 1] = d[i], q[i]
  end
  return conv_opts
end

local function tensors(op, input, weight, bias)
  if not is_tensor(input) then fail(op, 'expected a tensor input, got %s', describe(input)) end
  if not is_tensor(weight) then fail(op, 'expected a tensor weight, got %s', describe(weight)) end
  if bias ~= nil and not is_tensor(bias) then fail(op, 'bias must be a tensor or nil, got %s', describe(bias)) end
  return bias and bias.p or nil
end

local function make_conv(nd, name)
  return function(input, weight, bias, stride, padding, dilation, groups)
    local b = tensors(name, input, weight, bias)
    return wrap(C.tocha_conv(input.p, weight.p, b, fill_conv(name, nd, stride, padding, dilation, 0, groups)))
  end
end
local function make_transpose(nd, name)
  return function(input, weight, bias, stride, padding, output_padding, groups, dilation)
    local b = tensors(name, input, weight, bias)
    local o = fill_conv(name, nd, stride, padding, dilation, output_padding, groups)
    return wrap(C.tocha_conv_transpose(input.p, weight.p, b, o))
  end
end

--- torch.conv2d(input, weight [, bias] [, stride = 1] [, padding = 0] [, dilation = 1] [, groups = 1]):
--- 2-D convolution (cross-correlation, as in Torch7 and PyTorch) of input (N x C x H x W, or
--- C x H x W) with weight (O x C/groups x kH x kW), plus bias (O). stride, padding and dilation are
--- numbers or {h, w} pairs. Differentiable in input, weight and bias.
--- Example: torch.conv2d(torch.randn(1, 3, 8, 8), torch.randn(4, 3, 3, 3), nil, 1, 1):size()
torch.conv2d = make_conv(2, 'conv2d')
--- torch.conv1d(input, weight [, bias] [, stride] [, padding] [, dilation] [, groups]): 1-D convolution
--- of input (N x C x L or C x L) with weight (O x C/groups x k), like conv2d.
--- Example: torch.conv1d(torch.randn(2, 3, 10), torch.randn(4, 3, 3)):size()
torch.conv1d = make_conv(1, 'conv1d')
--- torch.conv3d(input, weight [, bias] [, stride] [, padding] [, dilation] [, groups]): 3-D convolution
--- of input (N x C x D x H x W or C x D x H x W) with weight (O x C/groups x kD x kH x kW); per-dim
--- options are numbers or {d, h, w} tables.
--- Example: torch.conv3d(torch.randn(1, 2, 4, 5, 5), torch.randn(3, 2, 2, 3, 3)):size()
torch.conv3d = make_conv(3, 'conv3d')
--- torch.convTranspose2d(input, weight [, bias] [, stride = 1] [, padding = 0] [, outputPadding = 0]
--- [, groups = 1] [, dilation = 1]): the transposed ("full", fractionally strided) convolution, the
--- gradient of conv2d with respect to its input: weight is C_in x C_out/groups x kH x kW and the
--- output size is (in - 1) * stride - 2 * padding + dilation * (k - 1) + outputPadding + 1.
--- Example: torch.convTranspose2d(torch.randn(1, 4, 5, 5), torch.randn(4, 2, 3, 3), nil, 2):size()
torch.convTranspose2d = make_transpose(2, 'convTranspose2d')
--- torch.convTranspose1d(input, weight [, bias] [, stride] [, padding] [, outputPadding] [, groups]
--- [, dilation]): the 1-D transposed convolution (see convTranspose2d).
--- Example: torch.convTranspose1d(torch.randn(1, 4, 5), torch.randn(4, 2, 3)):size()
torch.convTranspose1d = make_transpose(1, 'convTranspose1d')
--- torch.convTranspose3d(input, weight [, bias] [, stride] [, padding] [, outputPadding] [, groups]
--- [, dilation]): the 3-D transposed convolution (see convTranspose2d).
--- Example: torch.convTranspose3d(torch.randn(1, 4, 2, 3, 3), torch.randn(4, 2, 2, 2, 2)):size()
torch.convTranspose3d = make_transpose(3, 'convTranspose3d')

--- torch.convWeight(input, weightSize, gradOutput [, stride] [, padding] [, dilation] [, groups]): the
--- gradient of a convolution with respect to its weight (PyTorch's nn.grad.conv2d_weight) for the
--- given input and output gradient; weightSize (a table or LongStorage of 3 to 5 sizes) picks 1-D,
--- 2-D or 3-D. Differentiable in input and gradOutput.
--- Example: torch.convWeight(torch.randn(2, 3, 6, 6), {4, 3, 3, 3}, torch.randn(2, 4, 4, 4)):size()
function torch.convWeight(input, weightSize, gradOutput, stride, padding, dilation, groups)
  if not is_tensor(input) or not is_tensor(gradOutput) then
    fail('convWeight', 'expected tensors (input, weightSize, gradOutput), got %s and %s', describe(input),
      describe(gradOutput))
  end
  local n = types.read_sizes('convWeight', sizes, weightSize)
  if n < 3 or n > 5 then fail('convWeight', 'weightSize must have 3 to 5 sizes, got %d', n) end
  local nd = n - 2
  local o = fill_conv('convWeight', nd, stride, padding, dilation, 0, groups)
  local want = {}
  for i = 0, n - 1 do want[i + 1] = tonumber(sizes[i]) end
  local w = wrap(C.tocha_conv_weight(input.p, gradOutput.p, sizes + 2, o))
  if w.p.size[0] ~= want[1] or w.p.size[1] ~= want[2] then
    fail('convWeight', 'weightSize is %s but input and gradOutput give a weight of size %s', table.concat(want, 'x'),
      types.shape_str(w.p))
  end
  return w
end

local function fill_pool(op, kernel, stride, padding, ceil_mode, count_include_pad)
  local k = per_dim(op, 'kernel', kernel, 2, nil)
  local s = per_dim(op, 'stride', stride, 2, k)
  local p = per_dim(op, 'padding', padding, 2, 0)
  for d = 1, 2 do
    pool_opts.kernel[d - 1], pool_opts.stride[d - 1], pool_opts.padding[d - 1] = k[d], s[d], p[d]
  end
  pool_opts.ceil_mode = ceil_mode and 1 or 0
  pool_opts.count_include_pad = count_include_pad == false and 0 or 1
  return pool_opts
end

--- torch.maxPool2d(input, kernel [, stride = kernel] [, padding = 0] [, ceilMode = false]): 2-D max
--- pooling of input (N x C x H x W or C x H x W); kernel, stride and padding are numbers or {h, w}
--- pairs. Returns the maxima and a LongTensor of their 1-based positions (h - 1) * W + w in each
--- input plane (Torch7's SpatialMaxPooling indices). Differentiable in input.
--- Example: torch.maxPool2d(torch.randn(1, 1, 4, 4), 2)
function torch.maxPool2d(input, kernel, stride, padding, ceilMode)
  if not is_tensor(input) then fail('maxPool2d', 'expected a tensor input, got %s', describe(input)) end
  local o = fill_pool('maxPool2d', kernel, stride, padding, ceilMode, true)
  check(C.tocha_max_pool2d(input.p, o, 1, values_out, indices_out))
  return wrap(values_out[0]), wrap(indices_out[0])
end

--- torch.avgPool2d(input, kernel [, stride = kernel] [, padding = 0] [, ceilMode = false]
--- [, countIncludePad = true]): 2-D average pooling; with countIncludePad (Torch7's default) the
--- zero padding counts in each window's divisor. Differentiable in input.
--- Example: torch.avgPool2d(torch.ones(1, 1, 4, 4), 2, 2, 1)
function torch.avgPool2d(input, kernel, stride, padding, ceilMode, countIncludePad)
  if not is_tensor(input) then fail('avgPool2d', 'expected a tensor input, got %s', describe(input)) end
  return wrap(C.tocha_avg_pool2d(input.p, fill_pool('avgPool2d', kernel, stride, padding, ceilMode, countIncludePad)))
end

-- The pieces nn's Torch7-style modules call directly: the C functions, the option structs they fill
-- in place (calls are synchronous, so one struct per kind is enough) and a size buffer.
torch._conv = { C = C, check = check, conv = conv_opts, pool = pool_opts, sizes = sizes,
                fill_conv = fill_conv, fill_pool = fill_pool }

return torch
