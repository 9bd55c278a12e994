-- Argument checks shared by nn.ops (torchvision.ops): box tensors, pairs of tensors that must
-- share a dtype and device, reductions and options; errors name the nn.ops function.
--
-- Note [Box coordinates]: boxes are positions in the image plane, not indices, so they keep
-- torchvision's frame: x = 0 is the left edge of the first pixel column, a box is (x1, y1, x2, y2)
-- with x1 <= x2 and y1 <= y2 ('xyxy'), and masksToBoxes gives the 0-based pixel positions
-- torchvision gives. A detector's boxes thus mean the same in both engines; what Tocha makes
-- 1-based are indices: those nms, batchedNms and removeSmallBoxes return and the batch column of
-- roiAlign's boxes (Note [Batch indices of boxes], nn/ops/roi.lua).
local lib = require 'torch.lib'
local types = require 'torch.types'
local U = {}

U.fail = lib.fail
U.describe = types.describe

function U.shape(x) return x:dim() == 0 and '[]' or types.shape_str(x.p) end

function U.tensor(op, x, what)
  if not types.is_tensor(x) then U.fail(op, 'expected %s (a tensor), got %s', what, types.describe(x)) end
  return x
end

-- Whether x holds floating-point numbers.
function U.isFloat(x) return nn.utils.isFloating(x) end

-- x, checked to be a 2-D tensor of `cols` columns (boxes: cols = 4).
function U.boxes(op, x, what, cols)
  U.tensor(op, x, what)
  cols = cols or 4
  if x:dim() ~= 2 or x:size(2) ~= cols then
    U.fail(op, '%s must be a K x %d tensor, got size %s', what, cols, U.shape(x))
  end
  return x
end

-- x as a floating tensor: integer boxes become float32 (torchvision's IoUs divide them in float).
function U.floating(x)
  if U.isFloat(x) then return x end
  return x:to('float32')
end

-- Fails unless a and b have one type (dtype and device kind) and one device.
function U.same(op, a, b, an, bn)
  if a:type() ~= b:type() or a:getDevice() ~= b:getDevice() then
    U.fail(op, '%s (%s on device %d) and %s (%s on device %d) must have the same type and device', an,
      a:type(), a:getDevice(), bn, b:type(), b:getDevice())
  end
end

function U.number(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'number' then U.fail(op, 'expected %s (a number), got %s', what, types.describe(v)) end
  return v
end

function U.int(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'number' or v ~= math.floor(v) then
    U.fail(op, 'expected %s (an integer), got %s', what, types.describe(v))
  end
  return v
end

function U.bool(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then U.fail(op, 'expected %s (a boolean), got %s', what, types.describe(v)) end
  return v
end

-- A pair {h, w} from a number or a table of two positive integers.
function U.pair(op, v, what)
  if type(v) == 'number' then v = { v, v } end
  if type(v) ~= 'table' or #v ~= 2 then U.fail(op, 'expected %s as a number or {h, w}, got %s', what, types.describe(v)) end
  for i = 1, 2 do
    if type(v[i]) ~= 'number' or v[i] ~= math.floor(v[i]) or v[i] < 1 then
      U.fail(op, '%s must be positive integers, got %s', what, tostring(v[i]))
    end
  end
  return { v[1], v[2] }
end

-- An options table (nil: {}) whose keys are all in `known` (a set).
function U.opts(op, o, known)
  if o == nil then return {} end
  if type(o) ~= 'table' or torch.isTensor(o) then U.fail(op, 'expected an options table, got %s', types.describe(o)) end
  for k in pairs(o) do
    if not known[k] then U.fail(op, 'unknown option %s', tostring(k)) end
  end
  return o
end

-- torchvision's loss reductions; 'mean' of no elements is 0 (0 * sum) as in its box losses.
local reductions = { none = true, mean = true, sum = true }
function U.reduction(op, r, default)
  r = r == nil and default or r
  if not reductions[r] then U.fail(op, "reduction must be 'none', 'mean' or 'sum', got %s", tostring(r)) end
  return r
end
function U.reduce(loss, r, emptyMeanIsZero)
  if r == 'none' then return loss end
  if r == 'sum' then return loss:sum() end
  if emptyMeanIsZero and loss:nElement() == 0 then
    local s = loss:sum()
    return torch.isTensor(s) and torch.mul(s, 0) or 0 * s
  end
  return loss:mean()
end

-- Column j (1-based) of the last dim of x.
function U.col(x, j) return x:select(x:dim(), j) end

return U
