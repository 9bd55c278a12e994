-- Argument checks shared by nn.functional's activations and losses (functional_act.lua,
-- functional_loss.lua) and the modules built on them: errors name the function and what it got.
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, describe, is_tensor = lib.fail, types.describe, types.is_tensor

local A = {}
A.fail = fail

-- "2x3" (or "[]" for a 0-dim tensor).
function A.shape(x) return x:dim() == 0 and '[]' or types.shape_str(x.p) end

function A.tensor(op, x, what)
  if not is_tensor(x) then fail(op, 'expected %s (a tensor), got %s', what or 'a tensor', describe(x)) end
  return x
end
function A.float(op, x, what)
  A.tensor(op, x, what)
  if not nn.utils.isFloating(x) then fail(op, 'expected %s of a floating dtype, got %s', what or 'a tensor', describe(x)) end
  return x
end
function A.number(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'number' then fail(op, 'expected %s (a number), got %s', what, describe(v)) end
  return v
end
function A.int(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'number' or v ~= math.floor(v) then fail(op, 'expected %s (an integer), got %s', what, describe(v)) end
  return v
end
-- A required integer: nil is refused (A.int returns the default, nil, and the caller then compared it).
function A.requiredInt(op, v, what)
  if v == nil then fail(op, 'expected %s (an integer), got nil', what) end
  return A.int(op, v, what)
end
function A.bool(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then fail(op, 'expected %s (a boolean), got %s', what, describe(v)) end
  return v
end
-- Note [Inplace flags]: PyTorch's `inplace` argument of an activation or dropout (F.relu(x, inplace=True)),
-- at PyTorch's position: true writes the result into x and returns x, through the helper of
-- nn.functional.relu_ and the other in-place activations (Note [In-place functional activations],
-- functional_more2.lua, which stores it in A.inplace_helper); nil or false returns a new tensor, any
-- other value is an error. A.inplace_flag checks the flag; A.inplace(name, f, x, ...) is the helper.
function A.inplace_flag(op, v) return A.bool(op, v, 'inplace', false) end
function A.inplace(name, f, x, ...)
  if A.inplace_helper == nil then require 'nn.functional_more2' end
  return A.inplace_helper(name, f, x, ...)
end
-- x, checked to be a LongTensor (indices, offsets) on any device.
function A.long(op, x, what)
  A.tensor(op, x, what)
  if x.p.dtype ~= lib.dtype.i64 then fail(op, '%s must be a LongTensor, got %s', what, describe(x)) end
  return x
end
-- A 1-based dim of x, negative counting from the end.
function A.dim(op, x, d, default)
  d = A.int(op, d, 'a dim', default)
  local n = math.max(x:dim(), 1)
  local w = d < 0 and d + n + 1 or d
  if w < 1 or w > n then fail(op, 'dim %d out of range for a %d-D tensor', d, x:dim()) end
  return w
end
-- An options table (nil: {}) whose keys are all in `known`.
function A.opts(op, o, known)
  if o == nil then return {} end
  if type(o) ~= 'table' then fail(op, 'expected an options table, got %s', describe(o)) end
  for k in pairs(o) do
    if not known[k] then fail(op, 'unknown option %s', tostring(k)) end
  end
  return o
end
-- Two tensors of one size (the elementwise losses do not broadcast their target).
function A.same_size(op, x, y, xn, yn)
  A.tensor(op, x, xn or 'an input')
  A.tensor(op, y, yn or 'a target')
  if not x:isSameSizeAs(y) then
    fail(op, '%s of size %s and %s of size %s differ', xn or 'input', A.shape(x), yn or 'target', A.shape(y))
  end
end
-- y as a tensor of x's dtype and device.
function A.like(y, x)
  if y.p.dtype ~= x.p.dtype or y.p.device_type ~= x.p.device_type then return y:typeAs(x) end
  return y
end

-- Note [Functional losses] (nn/functional_loss.lua): the options table of a loss (a string: the
-- reduction) with `known` keys plus reduction, and the reduction ('mean' by default).
local reductions = { mean = true, sum = true, none = true }
function A.loss_options(op, o, known, extra_red)
  if type(o) == 'string' then o = { reduction = o } end
  known = known or {}
  known.reduction = true
  o = A.opts(op, o, known)
  local r = o.reduction or 'mean'
  if not reductions[r] and r ~= extra_red then
    fail(op, "reduction must be 'mean', 'sum' or 'none'%s, got %s", extra_red and (" or '" .. extra_red .. "'") or '',
      tostring(r))
  end
  return o, r
end
function A.reduce(l, r)
  if r == 'none' then return l elseif r == 'sum' then return l:sum() end
  return l:mean()
end
-- s / d for a reduced loss s (a number, or a 0-dim tensor under autograd) and a number d.
function A.div(s, d)
  if torch.isTensor(s) then return torch.div(s, d) end
  return s / d
end

return A
