-- nn.functional's activations, normalizations and small layers under PyTorch's torch.nn.functional
-- names (camelCased): thin forwards to the differentiable torch functions, plus the few made here
-- of recorded ops (mish, hardswish, linear, embedding, normalize...), so all are differentiable.
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail

-- The `inplace` arguments below are PyTorch's (Note [Inplace flags], functional_args.lua).

-- Note [Gradients at clamp bounds]: PyTorch's hardtanh, relu6 (hardtanh from 0 to 6) and hardsigmoid
-- pass no gradient where x sits exactly on a bound (hardtanh_backward keeps lo < x < hi), while
-- torch.clamp's gradient is 1 on the closed interval [lo, hi] (as PyTorch's clamp): relu6 at 0 and 6,
-- hardtanh at -1 and 1 had gradient 1. The bounds are pinned with maskedFill (no gradient where it
-- fills); NaN passes through with gradient 1, as PyTorch's.
local function hard_clamp(x, lo, hi)
  return torch.maskedFill(torch.maskedFill(x, torch.le(x, lo), lo), torch.ge(x, hi), hi)
end

--- nn.functional.relu(x [, inplace = false]): max(x, 0) (a new tensor; with inplace, written into x,
--- which is returned, as nn.functional.relu_).
function F.relu(x, inplace)
  if A.inplace_flag('relu', inplace) then return A.inplace('relu', F.relu, x) end
  return torch.relu(A.tensor('relu', x))
end
--- nn.functional.relu6(x [, inplace = false]): min(max(x, 0), 6) (with inplace, written into x, which
--- is returned).
function F.relu6(x, inplace)
  if A.inplace_flag('relu6', inplace) then return A.inplace('relu6', F.relu6, x) end
  return hard_clamp(A.float('relu6', x), 0, 6)
end
--- nn.functional.hardtanh(x [, minVal = -1] [, maxVal = 1] [, inplace = false]): x clamped to
--- [minVal, maxVal] (with inplace, written into x, which is returned, as nn.functional.hardtanh_).
function F.hardtanh(x, lo, hi, inplace)
  if A.inplace_flag('hardtanh', inplace) then return A.inplace('hardtanh', F.hardtanh, x, lo, hi) end
  lo, hi = A.number('hardtanh', lo, 'minVal', -1), A.number('hardtanh', hi, 'maxVal', 1)
  if lo > hi then fail('hardtanh', 'minVal %g is above maxVal %g', lo, hi) end
  return hard_clamp(A.float('hardtanh', x), lo, hi)
end
--- nn.functional.gelu(x [, approximate = 'none']): x * Phi(x); approximate = 'tanh' uses
--- 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
function F.gelu(x, approximate)
  A.float('gelu', x)
  if approximate == nil or approximate == 'none' then return torch.gelu(x) end
  if approximate ~= 'tanh' then fail('gelu', "approximate must be 'none' or 'tanh', got %s", tostring(approximate)) end
  local inner = torch.mul(torch.add(x, torch.mul(torch.pow(x, 3), 0.044715)), math.sqrt(2 / math.pi))
  return torch.mul(torch.cmul(x, torch.add(torch.tanh(inner), 1)), 0.5)
end
--- nn.functional.silu(x [, inplace = false]): x * sigmoid(x) (with inplace, written into x, which is
--- returned).
function F.silu(x, inplace)
  if A.inplace_flag('silu', inplace) then return A.inplace('silu', F.silu, x) end
  return torch.silu(A.float('silu', x))
end
--- nn.functional.mish(x [, inplace = false]): x * tanh(softplus(x)) (with inplace, written into x,
--- which is returned).
function F.mish(x, inplace)
  if A.inplace_flag('mish', inplace) then return A.inplace('mish', F.mish, x) end
  return torch.cmul(x, torch.tanh(torch.softplus(A.float('mish', x))))
end
--- nn.functional.hardsigmoid(x [, inplace = false]): relu6(x + 3) / 6 (with inplace, written into x,
--- which is returned).
function F.hardsigmoid(x, inplace)
  if A.inplace_flag('hardsigmoid', inplace) then return A.inplace('hardsigmoid', F.hardsigmoid, x) end
  A.float('hardsigmoid', x)
  -- no gradient at -3 and 3 themselves (Note [Gradients at clamp bounds])
  return torch.maskedFill(torch.maskedFill(torch.div(torch.add(x, 3), 6), torch.le(x, -3), 0), torch.ge(x, 3), 1)
end
--- nn.functional.hardswish(x [, inplace = false]): x * relu6(x + 3) / 6 (with inplace, written into x,
--- which is returned).
function F.hardswish(x, inplace)
  if A.inplace_flag('hardswish', inplace) then return A.inplace('hardswish', F.hardswish, x) end
  return torch.div(torch.cmul(x, torch.clamp(torch.add(A.float('hardswish', x), 3), 0, 6)), 6)
end
--- nn.functional.elu(x [, alpha = 1] [, inplace = false]): torch.elu (with inplace, written into x,
--- which is returned, as nn.functional.elu_).
function F.elu(x, alpha, inplace)
  if A.inplace_flag('elu', inplace) then return A.inplace('elu', F.elu, x, alpha) end
  return torch.elu(A.float('elu', x), A.number('elu', alpha, 'alpha', 1))
end
--- nn.functional.selu(x [, inplace = false]): torch.selu (with inplace, written into x, which is
--- returned, as nn.functional.selu_).
function F.selu(x, inplace)
  if A.inplace_flag('selu', inplace) then return A.inplace('selu', F.selu, x) end
  return torch.selu(A.float('selu', x))
end
--- nn.functional.leakyRelu(x [, slope = 0.01] [, inplace = false]): torch.leakyRelu (with inplace,
--- written into x, which is returned, as nn.functional.leakyRelu_).
function F.leakyRelu(x, slope, inplace)
  if A.inplace_flag('leakyRelu', inplace) then return A.inplace('leakyRelu', F.leakyRelu, x, slope) end
  return torch.leakyRelu(A.float('leakyRelu', x), A.number('leakyRelu', slope, 'slope', 0.01))
end
--- nn.functional.softplus(x [, beta = 1] [, threshold = 20]): torch.softplus.
function F.softplus(x, beta, threshold)
  return torch.softplus(A.float('softplus', x), A.number('softplus', beta, 'beta', 1),
    A.number('softplus', threshold, 'threshold', 20))
end
--- nn.functional.sigmoid(x): torch.sigmoid (a new tensor).
function F.sigmoid(x) return torch.sigmoid(A.float('sigmoid', x)) end
--- nn.functional.tanh(x): torch.tanh (a new tensor).
function F.tanh(x) return torch.tanh(A.float('tanh', x)) end
--- nn.functional.logSigmoid(x): log(sigmoid(x)) = -softplus(-x), stable for large |x|.
function F.logSigmoid(x) return torch.neg(torch.softplus(torch.neg(A.float('logSigmoid', x)))) end
--- nn.functional.softsign(x): x / (1 + |x|).
function F.softsign(x) return torch.cdiv(x, torch.add(torch.abs(A.float('softsign', x)), 1)) end
--- nn.functional.softmax(x [, dim = last] [, {dtype = ...}]): along dim (1-based; PyTorch's
--- implicit-dim rule is not followed: the default is the last dim), in dtype when given.
function F.softmax(x, dim, opts) return torch.softmax(A.float('softmax', x), dim, opts) end
--- nn.functional.logSoftmax(x [, dim = last] [, {dtype = ...}]): log(softmax(x)), computed stably.
function F.logSoftmax(x, dim, opts) return torch.logSoftmax(A.float('logSoftmax', x), dim, opts) end
--- nn.functional.softmin(x [, dim = last] [, {dtype = ...}]): softmax(-x).
function F.softmin(x, dim, opts) return torch.softmax(torch.neg(A.float('softmin', x)), dim, opts) end

--- nn.functional.dropout(x [, p = 0.5] [, training = true] [, inplace = false]): zeroes each element
--- with probability p and scales the others by 1 / (1 - p); the identity (x itself) when not
--- training or p = 0. With inplace, the result is written into x, which is returned.
function F.dropout(x, p, training, inplace)
  inplace = A.inplace_flag('dropout', inplace)
  A.float('dropout', x)
  p = A.number('dropout', p, 'p', 0.5)
  if p < 0 or p > 1 then fail('dropout', 'p must be in [0, 1], got %g', p) end
  if A.bool('dropout', training, 'training', true) == false or p == 0 then return x end
  -- (after the identity cases: PyTorch lets those through on a leaf that requires grad)
  if inplace then return A.inplace('dropout', F.dropout, x, p, training) end
  if p == 1 then return torch.mul(x, 0) end
  local mask = x.new(x:size()):bernoulli(1 - p):div(1 - p)
  return torch.cmul(x, mask)
end

--- nn.functional.linear(x, weight [, bias]): x weight^T + bias, x of size ... x in, weight out x in.
function F.linear(x, w, b)
  A.float('linear', x, 'an input')
  A.float('linear', w, 'a weight')
  if w:dim() ~= 2 or x:dim() < 1 or x:size(x:dim()) ~= w:size(2) then
    fail('linear', 'input of size %s does not match weight of size %s (out x in)', A.shape(x), A.shape(w))
  end
  local y = torch.matmul(x, w:t())
  if b ~= nil then y = torch.add(y, A.float('linear', b, 'a bias')) end
  return y
end

--- nn.functional.embedding(indices, weight [, paddingIdx]): the rows of weight (num x dim) picked
--- by a LongTensor of 1-based indices, shaped indices' size x dim. Rows at paddingIdx get no
--- gradient (PyTorch's padding_idx; the row itself is returned as stored).
function F.embedding(idx, w, paddingIdx)
  A.long('embedding', idx, 'indices')
  A.float('embedding', w, 'a weight')
  if w:dim() ~= 2 then fail('embedding', 'weight must be 2-D (num x dim), got size %s', A.shape(w)) end
  local flat = idx:contiguous():view(-1)
  if flat:nElement() > 0 and (flat:min() < 1 or flat:max() > w:size(1)) then
    fail('embedding', 'index out of range: weight has %d rows, indices span [%d, %d]', w:size(1), flat:min(), flat:max())
  end
  local rows = torch.index(w, 1, flat)
  if paddingIdx ~= nil then
    A.int('embedding', paddingIdx, 'paddingIdx')
    -- PyTorch's range: a negative index counts from the end (it matched no index here before)
    if paddingIdx == 0 or paddingIdx > w:size(1) or paddingIdx < -w:size(1) then
      fail('embedding', 'paddingIdx %d out of range for %d rows', paddingIdx, w:size(1))
    end
    if paddingIdx < 0 then paddingIdx = paddingIdx + w:size(1) + 1 end
    local keep = torch.ne(flat, paddingIdx):typeAs(rows):view(-1, 1)
    rows = torch.add(torch.cmul(rows, keep), torch.cmul(rows:detach(), torch.mul(keep, -1):add(1)))
  end
  local size = idx:dim() == 0 and {} or idx:size():totable()
  size[#size + 1] = w:size(2)
  return rows:view(torch.LongStorage(size))
end

--- nn.functional.oneHot(indices [, numClasses = max index]): a LongTensor of indices' size x
--- numClasses with a 1 at each 1-based class index.
function F.oneHot(idx, n)
  A.long('oneHot', idx, 'indices')
  local flat = idx:contiguous():view(-1)
  local hi = flat:nElement() > 0 and flat:max() or 0
  n = A.int('oneHot', n, 'numClasses', -1)
  if n < -1 then fail('oneHot', 'numClasses must be -1 (inferred) or a class count, got %d', n) end
  if n == -1 then
    -- PyTorch refuses to infer a count from no indices (a N x 0 result was returned)
    if flat:nElement() == 0 then fail('oneHot', 'cannot infer the number of classes from empty indices; pass numClasses') end
    n = hi
  end
  if flat:nElement() > 0 and (flat:min() < 1 or hi > n) then
    fail('oneHot', 'class index out of range [1, %d]: indices span [%d, %d]', n, flat:min(), hi)
  end
  local out = idx.new(flat:nElement(), n):zero()
  if flat:nElement() > 0 then out:scatter(2, flat:view(-1, 1), 1) end
  local size = idx:dim() == 0 and {} or idx:size():totable()
  size[#size + 1] = n
  return out:view(torch.LongStorage(size))
end

--- nn.functional.normalize(x [, p = 2] [, dim = 2] [, eps = 1e-12]): x / max(||x||_p, eps) along
--- dim (PyTorch's default dim 1 is dim 2 here, 1-based; a vector normalizes along its only dim).
function F.normalize(x, p, dim, eps)
  A.float('normalize', x)
  p = A.number('normalize', p, 'p', 2)
  dim = A.dim('normalize', x, dim, x:dim() == 1 and 1 or 2)
  eps = A.number('normalize', eps, 'eps', 1e-12)
  local n = torch.clamp(torch.norm(x, p, dim), eps, math.huge)
  return torch.cdiv(x, n:expandAs(x))
end

--- nn.functional.cosineSimilarity(x1, x2 [, dim = 2] [, eps = 1e-8]): sum(x1 x2) /
--- (max(||x1||, eps) max(||x2||, eps)) along dim of the broadcast x1, x2 (a vector pair uses dim
--- 1). As PyTorch 1.13, the eps clamp (of the squared norms) is invisible to the gradient.
--- torch.cosineSimilarity (lua/torch/stats_more.lua) is the same function.
function F.cosineSimilarity(x1, x2, dim, eps)
  A.float('cosineSimilarity', x1, 'x1')
  A.float('cosineSimilarity', x2, 'x2')
  return torch.cosineSimilarity(x1, x2, dim, A.number('cosineSimilarity', eps, 'eps', 1e-8))
end

--- nn.functional.pairwiseDistance(x1, x2 [, p = 2] [, eps = 1e-6] [, keepdim = false]):
--- ||x1 - x2 + eps||_p along the last dim (torch.pairwiseDistance, but a vector pair gives a
--- 1-element tensor, as nn.PairwiseDistance).
function F.pairwiseDistance(x1, x2, p, eps, keepdim)
  A.float('pairwiseDistance', x1, 'x1')
  A.float('pairwiseDistance', x2, 'x2')
  p, eps = A.number('pairwiseDistance', p, 'p', 2), A.number('pairwiseDistance', eps, 'eps', 1e-6)
  local n = torch.pairwiseDistance(x1, x2, p, eps, true)
  if keepdim then return n end
  return n:dim() > 1 and n:squeeze(n:dim()) or n:view(1)
end

return F
