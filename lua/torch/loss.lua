-- The fused class losses nn's ClassNLLCriterion and CrossEntropyCriterion run on (core/ops/loss.h)
-- as torch functions: a Lua number, or a 0-dim tensor when the input requires grad
-- (Note [Full reductions under autograd]).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local tracked = torch._reduce_util.tracked

local target_buf = {}  -- one reusable LongTensor per call site kind, for number targets

-- (target tensor, weight handle or nil) checked; a number target becomes a 1-element LongTensor.
local function class_args(op, input, target, opts)
  if not is_tensor(input) then fail(op, 'expected a tensor of scores, got %s', describe(input)) end
  if type(target) == 'number' then
    -- the shared buffer only where nothing keeps it: a recorded loss saves its target for backward,
    -- and the next call's refill made that backward fail (the saved tensor's version check)
    local t = not tracked(input) and target_buf[op] or nil
    if not t then
      t = torch.LongTensor(1)
      if not tracked(input) then target_buf[op] = t end
    end
    t[1] = target
    target = t
    -- the scores' device: a class number goes with them, as a target tensor would have to
    if input.p.device_type ~= 0 then target = t:to(input:device()) end
  elseif not is_tensor(target) then
    fail(op, 'target must be a class number or a tensor of them, got %s', describe(target))
  elseif target.p.dtype ~= types.I64 and (target.p.dtype == lib.dtype.f32 or target.p.dtype == lib.dtype.f64) then
    -- Torch7 datasets often hold labels as DoubleTensors (cutorch's as CudaTensors): same device, i64
    target = target:to('torch.LongTensor')
  end
  if opts ~= nil and type(opts) ~= 'table' then fail(op, 'options must be a table, got %s', describe(opts)) end
  opts = opts or {}
  local w = opts.weights
  if w ~= nil and not is_tensor(w) then fail(op, 'weights must be a tensor, got %s', describe(w)) end
  local sa = opts.sizeAverage
  if sa == nil then sa = true end
  return target, w and w.p or nil, sa and 1 or 0, opts.ignoreIndex or -100
end

local function class_loss(op, f)
  return function(input, target, opts)
    local t, w, sa, ign = class_args(op, input, target, opts)
    local r = wrap(f(input.p, t.p, w, sa, ign, 1))
    if tracked(input) then return r end
    return types.read(r.p, r.p.storage_offset)
  end
end

--- torch.nllLoss(logProbs, target [, {weights=, sizeAverage=true, ignoreIndex=-100}]): the
--- negative log-likelihood of 1-based class targets (a number or a LongTensor of N) under
--- log-probabilities (a vector of C or N x C), averaged over the total target weight.
--- Example: torch.nllLoss(torch.Tensor({{-0.5, -1}, {-2, -0.1}}), torch.LongTensor({1, 2}))
torch.nllLoss = class_loss('nllLoss', C.tocha_nll_loss)
--- torch.crossEntropy(scores, target [, {weights=, sizeAverage=true, ignoreIndex=-100}]):
--- nllLoss of logSoftmax(scores) along the class dim, computed in one pass.
--- Example: torch.crossEntropy(torch.Tensor({{1, 2, 0}, {0, 0, 3}}), torch.LongTensor({2, 3}))
torch.crossEntropy = class_loss('crossEntropy', C.tocha_cross_entropy)

-- Input gradients for nn's Torch7-style backward (not recorded): torch._classLossBackward(op,
-- grad, input, target, weights, sizeAverage, ignoreIndex[, out]), op 'nllLoss' or
-- 'crossEntropy'; with out (a tensor of the input's type), written into it and returned.
local backward_fn = { nllLoss = C.tocha_nll_loss_backward, crossEntropy = C.tocha_cross_entropy_backward }
function torch._classLossBackward(op, grad, input, target, weights, sizeAverage, ignoreIndex, out)
  local t, w, sa, ign = class_args(op, input, target,
    { weights = weights, sizeAverage = sizeAverage, ignoreIndex = ignoreIndex })
  if out ~= nil then
    lib.check(C.tocha_class_loss_backward_out(out.p, op == 'crossEntropy' and 1 or 0, grad, input.p, t.p, w, sa, ign, 1))
    return out
  end
  return wrap(backward_fn[op](grad, input.p, t.p, w, sa, ign, 1))
end

return torch
