-- The masks of nn.utils.prune's methods (PyTorch's torch.nn.utils.prune classes): each method is
-- {type = 'unstructured' | 'structured' | 'global', compute = fn(t, defaultMask) -> mask}, and
-- combine() applies a method to a tensor already pruned with PyTorch's PruningContainer rule: the
-- new method sees only the entries (unstructured) or the channels (structured) still unpruned.
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local fail = lib.fail
local M = {}

-- Python's round (half to even), which PyTorch's _compute_nparams_toprune uses.
local function round_half_even(x)
  local r = math.floor(x + 0.5)
  if r - x == 0.5 and r % 2 == 1 then r = r - 1 end
  return r
end

-- Note [Pruning amounts]: PyTorch tells a count (int) from a fraction (float) by the Python type,
-- which Lua numbers do not have. Here an integer amount is a count and a number strictly between
-- 0 and 1 a fraction; {fraction = f} and {count = n} say it explicitly ({fraction = 1} prunes all,
-- where a plain 1 prunes one entry).
function M.count(op, amount, size)
  local frac, count
  if type(amount) == 'table' and getmetatable(amount) == nil then
    frac, count = amount.fraction, amount.count
    if (frac == nil) == (count == nil) then fail(op, 'amount must give one of fraction or count') end
  elseif type(amount) == 'number' then
    if amount == math.floor(amount) then count = amount else frac = amount end
  else
    fail(op, 'amount must be a number or {fraction=} / {count=}, got %s', describe(amount))
  end
  if frac ~= nil then
    if type(frac) ~= 'number' or not (frac >= 0 and frac <= 1) then
      fail(op, 'a fractional amount must be in [0, 1], got %s', tostring(frac))
    end
    return round_half_even(frac * size)
  end
  if type(count) ~= 'number' or count ~= math.floor(count) or count < 0 then
    fail(op, 'amount must be a non-negative integer (a count) or a fraction in (0, 1), got %s', tostring(count))
  end
  if count > size then
    fail(op, 'amount=%d should be smaller than the number of parameters to prune=%d', count, size)
  end
  return count
end

local function check_dim(op, t, dim)
  if t:dim() <= 1 then fail(op, 'structured pruning can only be applied to multidimensional tensors, got %dD', t:dim()) end
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 or dim < -t:dim() or dim > t:dim() then
    fail(op, 'dim must be between 1 and %d (or negative from the end), got %s', t:dim(), tostring(dim))
  end
  return dim < 0 and dim + t:dim() + 1 or dim
end

-- A mask of t's shape, ones on the channels `keep` (a LongTensor of indices along dim), else zeros.
local function channel_mask(t, dim, keep)
  local mask = t.new(t:size()):zero()
  if keep:nElement() > 0 then mask:indexFill(dim, keep, 1) end
  return mask
end

function M.identity()
  return { type = 'unstructured', compute = function(t, default) return default:clone() end }
end

function M.randomUnstructured(op, amount)
  return { type = 'unstructured', compute = function(t, default)
    local k = M.count(op, amount, t:nElement())
    local mask = default:clone()
    if k > 0 then
      local _, idx = torch.topk(torch.rand(t:nElement()):double(), k, 1, true)
      mask:view(-1):indexFill(1, idx, 0)
    end
    return mask
  end }
end

function M.l1Unstructured(op, amount)
  return { type = 'unstructured', compute = function(t, default)
    local k = M.count(op, amount, t:nElement())
    local mask = default:clone()
    if k > 0 then
      local _, idx = torch.topk(torch.abs(t):contiguous():view(-1), k, 1, false)
      mask:view(-1):indexFill(1, idx:typeAs(torch.LongTensor()), 0)
    end
    return mask
  end }
end

function M.randomStructured(op, amount, dim)
  return { type = 'structured', dim = dim, compute = function(t, default)
    local d = check_dim(op, t, dim)
    local n = t:size(d)
    local k = M.count(op, amount, n)
    if k == 0 then return default:clone() end
    local prob = torch.rand(n):double()
    local threshold = torch.kthvalue(prob, k)[1]
    local keep = torch.range(1, n):long():maskedSelect(prob:gt(threshold))
    return torch.cmul(channel_mask(t, d, keep), default)
  end }
end

-- The n-norm of each slice of t along dim (n a number, math.huge, -math.huge or 'fro').
local function slice_norms(op, t, d, n)
  if n == 'fro' then n = 2 end
  if type(n) ~= 'number' or n == 0 then fail(op, "n must be a positive number, inf, -inf or 'fro', got %s", tostring(n)) end
  local flat = t:transpose(1, d):contiguous():view(t:size(d), -1):double()
  -- torch.abs, not flat:abs() (in place): for dim 1 of a contiguous double tensor flat is t itself,
  -- weight_orig or the caller's importanceScores, which lost their signs
  if n == math.huge then return torch.abs(flat):max(2):view(-1) end
  if n == -math.huge then return torch.abs(flat):min(2):view(-1) end
  return torch.norm(flat, n, 2):view(-1)
end

function M.lnStructured(op, amount, n, dim)
  return { type = 'structured', dim = dim, compute = function(t, default)
    local d = check_dim(op, t, dim)
    local size = t:size(d)
    local k = M.count(op, amount, size)
    if k == 0 then return default:clone() end
    local norms = slice_norms(op, t, d, n)
    local _, keep = torch.topk(norms, size - k, 1, true)
    return torch.cmul(channel_mask(t, d, keep:typeAs(torch.LongTensor())), default)
  end }
end

function M.customFromMask(op, mask)
  return { type = 'global', compute = function(t, default)
    if not mask:isSameSizeAs(default) then
      fail(op, 'the mask has size %s but the tensor has size %s', table.concat(mask:size():totable(), 'x'),
        table.concat(default:size():totable(), 'x'))
    end
    return torch.cmul(default, mask:typeAs(default))
  end }
end

-- The mask of method on t when default (the current mask, or ones) is already in force.
function M.combine(method, t, default, already)
  if not already or method.type == 'global' then return method.compute(t, default) end
  local mask = default:clone()
  if method.type == 'unstructured' then
    local flat = default:contiguous():view(-1)
    local idx = torch.range(1, flat:nElement()):long():maskedSelect(flat:eq(1))
    if idx:nElement() == 0 then return mask end
    local sub = t:contiguous():view(-1):index(1, idx)
    local partial = method.compute(sub, default.new(idx:nElement()):fill(1))
    mask:view(-1):indexCopy(1, idx, partial)
    return mask
  end
  local d = method.dim < 0 and method.dim + t:dim() + 1 or method.dim
  local sums = default:transpose(1, d):contiguous():view(default:size(d), -1):sum(2):view(-1)
  local idx = torch.range(1, default:size(d)):long():maskedSelect(sums:ne(0))
  if idx:nElement() == 0 then return mask end
  local partial = method.compute(t:index(d, idx), default:index(d, idx))
  mask:indexCopy(d, idx, partial)
  return mask
end

return M
