-- nn.functional.conv1d/2d/3d with PyTorch's string paddings 'same' and 'valid'; a numeric padding
-- goes to the torch.convNd functions unchanged (functional_conv.lua made them nn.functional's).
require 'nn.functional_conv'
local A = require 'nn.functional_args'
local F = nn.functional
local fail = A.fail
local describe = require('torch.types').describe
local bases = F._convBases or { torch.conv1d, torch.conv2d, torch.conv3d }
F._convBases = bases

-- Note [String padding]: 'same' pads dilation * (k - 1) in total per dim, the smaller half on the
-- left (PyTorch's rule, its odd cell on the right); an even total goes to the convolution's own
-- symmetric padding, an odd one pads the input explicitly first (F.pad, recorded). As PyTorch,
-- 'same' refuses strides other than 1.
local function conv(n, x, w, b, stride, padding, dilation, groups)
  local base = bases[n]
  if type(padding) ~= 'string' then return base(x, w, b, stride, padding, dilation, groups) end
  local name = 'nn.functional.conv' .. n .. 'd'
  if padding == 'valid' then return base(x, w, b, stride, 0, dilation, groups) end
  if padding ~= 'same' then fail(name, "padding must be a number, a table, 'same' or 'valid', got '%s'", padding) end
  A.float(name, x, 'an input')
  A.float(name, w, 'a weight')
  if w:dim() ~= n + 2 then fail(name, 'expected a %d-D weight, got size %s', n + 2, A.shape(w)) end
  local function each(v, what)
    local t = {}
    for i = 1, n do t[i] = type(v) == 'table' and v[i] or v or 1 end
    -- (a table of another length was cut to n entries: dilation {2, 1, 5} of a conv2d was {2, 1})
    local ok = type(v) ~= 'table' or #v == n
    for i = 1, n do ok = ok and type(t[i]) == 'number' end
    if not ok then fail(name, '%s must be a number or a table of %d numbers, got %s', what, n, describe(v)) end
    return t
  end
  local s, d = each(stride, 'stride'), each(dilation, 'dilation')
  for i = 1, n do
    if s[i] ~= 1 then fail(name, "padding = 'same' is not supported for strided convolutions (stride %d)", s[i]) end
  end
  local sym, pads, odd = {}, {}, false
  for i = 1, n do
    local total = d[i] * (w:size(2 + i) - 1)
    local left = math.floor(total / 2)
    sym[i] = left
    -- F.pad lists the last dim first
    pads[2 * (n - i) + 1], pads[2 * (n - i) + 2] = 0, total - 2 * left
    if total % 2 == 1 then odd = true end
  end
  if odd then x = F.pad(x, pads) end
  return base(x, w, b, 1, n == 1 and sym[1] or sym, d, groups)
end

--- nn.functional.conv1d(x, weight [, bias] [, stride = 1] [, padding = 0] [, dilation = 1] [, groups = 1]):
--- torch.conv1d, with padding also 'valid' (0) or 'same' (output length = input length; stride 1).
--- Example: nn.functional.conv1d(torch.randn(1, 2, 7), torch.randn(3, 2, 4), nil, 1, 'same')
function F.conv1d(x, w, b, stride, padding, dilation, groups) return conv(1, x, w, b, stride, padding, dilation, groups) end
--- nn.functional.conv2d(x, weight [, bias] [, stride = 1] [, padding = 0] [, dilation = 1] [, groups = 1]):
--- torch.conv2d, with padding also 'valid' (0) or 'same' (output size = input size; stride 1).
--- Example: nn.functional.conv2d(torch.randn(1, 2, 5, 6), torch.randn(3, 2, 2, 3), nil, 1, 'same')
function F.conv2d(x, w, b, stride, padding, dilation, groups) return conv(2, x, w, b, stride, padding, dilation, groups) end
--- nn.functional.conv3d(x, weight [, bias] [, stride = 1] [, padding = 0] [, dilation = 1] [, groups = 1]):
--- torch.conv3d, with padding also 'valid' (0) or 'same' (output size = input size; stride 1).
--- Example: nn.functional.conv3d(torch.randn(1, 1, 4, 4, 4), torch.randn(2, 1, 2, 3, 3), nil, 1, 'same')
function F.conv3d(x, w, b, stride, padding, dilation, groups) return conv(3, x, w, b, stride, padding, dilation, groups) end
