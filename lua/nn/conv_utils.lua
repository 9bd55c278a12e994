-- Helpers the convolution and pooling modules share: filling the option structs of the C ops
-- (torch._conv), the output padding that makes a transposed convolution give back an input's size,
-- and error messages that name the module, its configuration and what it received.
local cu = {}
nn.conv_utils = cu

local tc = torch._conv
local C, check = tc.C, tc.check
cu.C, cu.check = C, check

--- nn.conv_utils.describe(x): "torch.FloatTensor of size 2x3" (or the type of a non-tensor).
function cu.describe(x)
  if torch.isTensor(x) then
    return torch.typename(x) .. ' of size ' .. (x:dim() == 0 and '[]' or table.concat(x:size():totable(), 'x'))
  end
  return torch.typename(x) or type(x)
end

--- nn.conv_utils.fail(module, fmt, ...): raises "[<module as printed>] message".
function cu.fail(module, fmt, ...)
  error(string.format('[%s] ' .. fmt, tostring(module), ...), torch._lib.user_level())
end

--- nn.conv_utils.options(nd, groups, stride, padding, dilation[, outputPadding]): the shared
--- tocha_conv_options struct filled from tables of nd numbers (depth, height, width order).
function cu.options(nd, groups, stride, padding, dilation, outputPadding)
  local o = tc.conv
  o.nd = nd
  o.groups = groups or 1
  for d = 1, nd do
    o.stride[d - 1] = stride[d]
    o.padding[d - 1] = padding[d]
    o.dilation[d - 1] = dilation and dilation[d] or 1
    o.output_padding[d - 1] = outputPadding and outputPadding[d] or 0
  end
  return o
end

--- nn.conv_utils.backOptions(o, input, gradOutput, kernel): sets o's output padding so that the
--- transposed convolution of gradOutput gives input's spatial size (the rows a stride skipped).
function cu.backOptions(o, input, gradOutput, kernel)
  local nd = o.nd
  local first = input:dim() - nd
  for d = 1, nd do
    local i = d - 1
    local full = (gradOutput:size(first + d) - 1) * o.stride[i] - 2 * o.padding[i] + o.dilation[i] * (kernel[d] - 1) + 1
    o.output_padding[i] = input:size(first + d) - full
  end
  return o
end

--- nn.conv_utils.checkInput(module, input, nd, channels, kernel, stride, padding, dilation): errors
--- unless input is a (nd+1)-D sample or (nd+2)-D batch with `channels` channels and spatial sizes
--- the dilated kernel fits in (padding included).
function cu.checkInput(module, input, nd, channels, kernel, padding, dilation)
  local names = nd == 1 and 'L' or nd == 2 and 'H x W' or 'D x H x W'
  if not torch.isTensor(input) or (input:dim() ~= nd + 1 and input:dim() ~= nd + 2)
      or input:size(input:dim() - nd) ~= channels then
    cu.fail(module, 'expected a %dD (%d x %s) or %dD (N x %d x %s) input, got %s', nd + 1, channels, names, nd + 2,
      channels, names, cu.describe(input))
  end
  local first = input:dim() - nd
  for d = 1, nd do
    local span = (dilation and dilation[d] or 1) * (kernel[d] - 1) + 1
    if input:size(first + d) + 2 * padding[d] < span then
      cu.fail(module, 'input of size %s is smaller than the kernel (%s, padding %s)',
        table.concat(input:size():totable(), 'x'), table.concat(kernel, 'x'), table.concat(padding, ','))
    end
  end
end

--- nn.conv_utils.checkGradOutput(module, gradOutput, input, expected): gradOutput must be as
--- large as the output (expected holds the output's channel count and spatial sizes).
function cu.checkGradOutput(module, gradOutput, input, expected)
  local want = {}
  if input:dim() == #expected + 1 then want[1] = input:size(1) end
  for _, v in ipairs(expected) do want[#want + 1] = v end
  local ok = torch.isTensor(gradOutput) and gradOutput:dim() == #want
  for d = 1, #want do ok = ok and gradOutput:size(d) == want[d] end
  if not ok then
    cu.fail(module, 'gradOutput must have the output size %s, got %s', table.concat(want, 'x'), cu.describe(gradOutput))
  end
end

--- nn.conv_utils.outputSizes(input, nd, kernel, stride, padding[, dilation]): the spatial sizes of
--- a convolution's output, as a table.
function cu.outputSizes(input, nd, kernel, stride, padding, dilation)
  local first, r = input:dim() - nd, {}
  for d = 1, nd do
    local span = (dilation and dilation[d] or 1) * (kernel[d] - 1) + 1
    r[d] = math.floor((input:size(first + d) + 2 * padding[d] - span) / stride[d]) + 1
  end
  return r
end

--- nn.conv_utils.initPool2d(m, kW, kH, dW, dH, padW, padH): checks and stores a 2-D pooling
--- module's window, strides and padding (shared by SpatialMaxPooling and SpatialAveragePooling);
--- errors point at the line that called the constructor.
function cu.initPool2d(m, kW, kH, dW, dH, padW, padH)
  local checked = { kW, kH, dW, dH }
  for k = 1, 4 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
      error(string.format('[%s] expected positive integer kernel sizes and strides, got %s, %s, %s, %s',
        torch.typename(m), tostring(kW), tostring(kH), tostring(dW), tostring(dH)), torch._lib.user_level())
    end
  end
  m.kW, m.kH, m.dW, m.dH = kW, kH, dW, dH
  m.padW, m.padH = padW or 0, padH or 0
  if m.padW > kW / 2 or m.padH > kH / 2 or m.padW < 0 or m.padH < 0 then
    error(string.format('[%s] padding %s,%s must be between 0 and half the kernel %dx%d', torch.typename(m),
      tostring(m.padW), tostring(m.padH), kW, kH), torch._lib.user_level())
  end
end

--- nn.conv_utils.poolOptions(module): the shared tocha_pool_options struct filled from a pooling
--- module's kW, kH, dW, dH, padW, padH, ceil_mode and count_include_pad fields.
function cu.poolOptions(m)
  local o = tc.pool
  o.kernel[0], o.kernel[1] = m.kH, m.kW
  o.stride[0], o.stride[1] = m.dH, m.dW
  o.padding[0], o.padding[1] = m.padH or 0, m.padW or 0
  o.ceil_mode = m.ceil_mode and 1 or 0
  o.count_include_pad = m.count_include_pad == false and 0 or 1
  return o
end

--- nn.conv_utils.checkPoolInput(module, input): errors unless input is C x H x W or N x C x H x W
--- and large enough for the module's kernel (padding included).
function cu.checkPoolInput(m, input)
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) then
    cu.fail(m, 'expected a 3D (C x H x W) or 4D (N x C x H x W) input, got %s', cu.describe(input))
  end
  local d = input:dim()
  if input:size(d - 1) + 2 * (m.padH or 0) < m.kH or input:size(d) + 2 * (m.padW or 0) < m.kW then
    cu.fail(m, 'input of size %s is smaller than the kernel %dx%d (padding %d,%d)',
      table.concat(input:size():totable(), 'x'), m.kW, m.kH, m.padW or 0, m.padH or 0)
  end
  if (m.padW or 0) > m.kW / 2 or (m.padH or 0) > m.kH / 2 then
    cu.fail(m, 'padding %d,%d must be at most half the kernel %dx%d', m.padW, m.padH, m.kW, m.kH)
  end
end

-- The gradInput of a transposed convolution given Torch7's {input, target} (Note [Target-sized
-- output], nn/SpatialFullConvolution.lua): cu.unwrapGradInput leaves the plain gradient buffer
-- that a table call wrapped, cu.wrapGradInput gives a table call {gradInput, zeros like target}.
function cu.unwrapGradInput(m, x)
  if type(m.gradInput) == 'table' then m.gradInput = m.gradInput[1] or x.new() end
end
function cu.wrapGradInput(m, input)
  if type(input) == 'table' then
    if not m._gradTarget or m._gradTarget:type() ~= input[2]:type() then m._gradTarget = input[2].new() end
    m._gradTarget:resizeAs(input[2]):zero()
    m.gradInput = { m.gradInput, m._gradTarget }
  end
  return m.gradInput
end

--- nn.conv_utils.checkPoolGradOutput(module, gradOutput, input): errors (naming the module) unless
--- gradOutput has the size a 2-D pooling module's output has for input; ceil mode drops a last
--- window that would start in the right/bottom padding, as Torch7 and PyTorch do.
function cu.checkPoolGradOutput(m, gradOutput, input)
  local d = input:dim()
  local want = input:size():totable()
  for i, v in ipairs({ { m.kH, m.dH, m.padH or 0 }, { m.kW, m.dW, m.padW or 0 } }) do
    local k, st, p = v[1], v[2], v[3]
    local n = input:size(d - 2 + i)
    local span = (n + 2 * p - k) / st
    local o = (m.ceil_mode and math.ceil(span) or math.floor(span)) + 1
    if m.ceil_mode and (o - 1) * st >= n + p then o = o - 1 end
    want[d - 2 + i] = o
  end
  local ok = torch.isTensor(gradOutput) and gradOutput:dim() == d
  for i = 1, d do ok = ok and gradOutput:size(i) == want[i] end
  if not ok then
    cu.fail(m, 'gradOutput must have the output size %s, got %s', table.concat(want, 'x'), cu.describe(gradOutput))
  end
end

--- nn.conv_utils.sizes(t): t's sizes in the shared int64_t buffer (for the C ops), and its dim count.
function cu.sizes(t)
  local buf = tc.sizes
  for d = 1, t:dim() do buf[d - 1] = t:size(d) end
  return buf, t:dim()
end

return cu
