-- nn.functional.ctcLoss: the connectionist temporal classification loss (PyTorch's ctc_loss),
-- computed by the forward (alpha) recursion in log space with recorded tensor ops, so autograd
-- gives its gradient on every device. nn.CTCCriterion wraps it.
--
-- Note [CTC by recorded ops]: targets are expanded to l' = (blank, l1, blank, l2, ..., lL, blank)
-- (width 2 Smax + 1, Smax the longest target of the batch), and log p(l'[s] at t) is gathered
-- once for all t (T x N x 2Smax+1). Each time step is one vectorized update over batch and
-- positions: alpha_t(s) = lp_t(l'[s]) + logsumexp(alpha(s), alpha(s - 1), alpha(s - 2) where
-- l'[s] ~= blank and l'[s] ~= l'[s - 2]); it starts from a virtual step with alpha(1) = 0 (so that
-- step 1 may begin at l'[1] or l'[2]), and a sample past its input length keeps its alpha. The loss
-- is -logsumexp(alpha_T(2L + 1), alpha_T(2L)). "log 0" is a finite NEG = -1e30, not -inf: a
-- logsumexp of all -inf has a NaN gradient, which would reach every real path through the 0
-- weights multiplying it; with NEG the unreachable states get exact-0 weights (exp(NEG - real) =
-- 0). A loss above -NEG / 2 means no alignment exists: it reads +inf and its sample's gradient is
-- not finite (NaN or +-inf; PyTorch's is NaN), or with zeroInfinity both are 0. The gradient is
-- autograd's, the true one in logProbs; PyTorch's backward returns the gradient in the logits
-- behind a log_softmax instead (it adds exp(logProbs) times the incoming gradient; PyTorch issues
-- 52241, 82545), so the two agree through a logSoftmax, the documented use, and only Tocha's
-- passes gradcheck on logProbs themselves. Memory: about 5 T N (2 Smax + 1) elements kept for
-- backward (PyTorch's fused kernel keeps T N (2 Smax + 1) alphas), and T small ops per call.
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail

local lib = require 'torch.lib'
local F32, F64 = lib.dtype.f32, lib.dtype.f64
local NEG = -1e30
local IMPOSSIBLE = -NEG / 2

-- A table of integers from a table or a 1-D integer tensor (any device); `n` checks the count.
local function int_list(op, v, what, n)
  if type(v) == 'number' then v = { v } end
  if torch.isTensor(v) then
    if nn.utils.isFloating(v) or v:dim() > 1 then
      fail(op, '%s must be a table or a 1-D integer tensor, got %s', what, nn.utils.describe(v))
    end
    v = v:dim() == 0 and { v:item() } or v:cpu():totable()
  elseif type(v) ~= 'table' then
    fail(op, '%s must be a table or a 1-D integer tensor, got %s', what, nn.utils.describe(v))
  end
  if #v ~= n then fail(op, '%s must hold %d lengths (one per sample), got %d', what, n, #v) end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= 'number' or x ~= math.floor(x) or x < 0 then
      fail(op, '%s[%d] must be an integer >= 0, got %s', what, i, tostring(x))
    end
  end
  return v
end

-- The targets of each sample as tables of labels (1-based), from N x S padded targets or their
-- 1-D concatenation; checks lengths and labels.
local function target_lists(op, targets, lens, N, C, blank)
  A.tensor(op, targets, 'targets')
  if nn.utils.isFloating(targets) then fail(op, 'targets must be an integer tensor, got %s', nn.utils.describe(targets)) end
  local flat, rows = targets:dim() == 1, nil
  if targets:dim() == 2 then
    if targets:size(1) ~= N then fail(op, 'targets of size %s must have %d rows (one per sample)', A.shape(targets), N) end
  elseif not flat then
    fail(op, 'targets must be N x S (padded) or 1-D (concatenated), got %s', A.shape(targets))
  end
  local all = targets:nElement() > 0 and targets:cpu():totable() or {}
  local out, pos = {}, 0
  for n = 1, N do
    local L = lens[n]
    local width = flat and #all - pos or (targets:size(2))
    if L > width then
      if flat then fail(op, 'targetLengths sum to more than the %d targets', #all) end
      fail(op, 'targetLengths[%d] = %d is longer than the targets (%d)', n, L, width)
    end
    local row = {}
    for i = 1, L do
      local c = flat and all[pos + i] or all[n][i]
      if c < 1 or c > C then fail(op, 'target %d of sample %d is %d, outside the classes 1..%d', i, n, c, C) end
      if c == blank then fail(op, 'target %d of sample %d is the blank (%d)', i, n, blank) end
      row[i] = c
    end
    pos = pos + L
    out[n] = row
  end
  return out
end

-- The expanded labels l' (N x W LongTensor) and the skip mask (N x W, 1 where s - 2 -> s is allowed).
local function expand(rows, N, W, blank)
  local ext, skip = torch.LongTensor(N, W):fill(blank), torch.DoubleTensor(N, W):zero()
  for n = 1, N do
    local row = rows[n]
    for i = 1, #row do
      ext[n][2 * i] = row[i]
      if i > 1 and row[i] ~= row[i - 1] then skip[n][2 * i] = 1 end
    end
  end
  return ext, skip
end

local function alpha_step(alpha, lp_t, skip, neg_skip, negcol, W)
  local a1 = W > 1 and torch.cat({ negcol, alpha:narrow(2, 1, W - 1) }, 2) or negcol
  local a2
  if W > 2 then
    a2 = torch.cat({ negcol, negcol, alpha:narrow(2, 1, W - 2) }, 2)
    a2 = torch.add(torch.cmul(a2, skip), neg_skip)
  else
    a2 = negcol:expand(alpha:size(1), W)
  end
  local lse = torch.logsumexp(torch.stack({ alpha, a1, a2 }, 3), 3):select(3, 1)
  return torch.add(lse, lp_t)
end

--- nn.functional.ctcLoss(logProbs, targets, inputLengths, targetLengths [, {blank = 1, reduction =
--- 'mean', zeroInfinity = false}]): the CTC loss -log p(target | input) of log-softmax outputs
--- logProbs (T x N x C, or T x C for one sample), targets N x S (padded) or 1-D (concatenated),
--- lengths as tables or integer tensors. blank is a 1-based class (PyTorch's 0 is Tocha's 1);
--- 'mean' divides each loss by its target length then averages (PyTorch), 'sum', 'none'. An
--- impossible alignment costs +inf (0 with zeroInfinity). Differentiable in logProbs.
--- Example: nn.functional.ctcLoss(torch.randn(5, 2, 4):logSoftmax(3), torch.LongTensor{{2, 3}, {4, 4}}, {5, 5}, {2, 2})
function F.ctcLoss(logProbs, targets, inputLengths, targetLengths, o)
  local op = 'ctcLoss'
  local opts, r = A.loss_options(op, o, { blank = true, zeroInfinity = true })
  local zero_inf = A.bool(op, opts.zeroInfinity, 'zeroInfinity', false)
  A.float(op, logProbs, 'logProbs')
  local ty = logProbs.p.dtype
  if ty ~= F32 and ty ~= F64 then  -- NEG (Note [CTC by recorded ops]) needs float's range
    fail(op, 'logProbs must be float or double, got %s (convert with :float())', nn.utils.describe(logProbs))
  end
  local single = logProbs:dim() == 2
  if single then
    logProbs = logProbs:view(logProbs:size(1), 1, logProbs:size(2))
    if torch.isTensor(targets) and targets:dim() == 1 then targets = targets:view(1, -1) end
  elseif logProbs:dim() ~= 3 then
    fail(op, 'expected logProbs of size T x N x C (or T x C), got %s', A.shape(logProbs))
  end
  local T, N, C = logProbs:size(1), logProbs:size(2), logProbs:size(3)
  local blank = A.int(op, opts.blank, 'blank', 1)
  if blank < 1 or blank > C then fail(op, 'blank must be a class in 1..%d, got %d', C, blank) end
  local ilen = int_list(op, inputLengths, 'inputLengths', N)
  local tlen = int_list(op, targetLengths, 'targetLengths', N)
  for n = 1, N do
    if ilen[n] > T then fail(op, 'inputLengths[%d] = %d exceeds the %d time steps of logProbs', n, ilen[n], T) end
  end
  local rows = target_lists(op, targets, tlen, N, C, blank)

  local Smax, Tmax = 0, 0
  for n = 1, N do Smax, Tmax = math.max(Smax, tlen[n]), math.max(Tmax, ilen[n]) end
  local W = 2 * Smax + 1
  local ext, skip = expand(rows, N, W, blank)
  local dev = logProbs:isCuda() and logProbs:device() or nil
  if dev then ext = ext:to(dev) end
  skip = A.like(skip, logProbs)
  local neg_skip = torch.mul(torch.add(torch.neg(skip), 1), NEG)
  local negcol = A.like(torch.DoubleTensor(N, 1):fill(NEG), logProbs)
  local lpe = torch.gather(logProbs, 3, ext:view(1, N, W):expand(T, N, W):contiguous())
  lpe = torch.clamp(lpe, NEG, math.huge)  -- a log-probability of -inf is NEG too

  local alpha = A.like(torch.DoubleTensor(N, W):fill(NEG), logProbs)
  alpha:select(2, 1):fill(0)  -- the virtual step before t = 1
  local ilen_t = A.like(torch.DoubleTensor(ilen):view(N, 1), logProbs)
  for t = 1, Tmax do
    local new = alpha_step(alpha, lpe[t], skip, neg_skip, negcol, W)
    local live = 0
    for n = 1, N do if ilen[n] >= t then live = live + 1 end end
    if live == N then alpha = new
    else  -- samples whose input has ended keep their alpha
      -- (where, not a 0/1 blend: an impossible sample's NaN gradient must not reach its later steps)
      alpha = torch.where(torch.ge(ilen_t, t):expand(N, W), new, alpha)
    end
  end

  -- the last blank (2L + 1) and the last label (2L; none when L = 0)
  local last, has_label = torch.LongTensor(N, 2), torch.DoubleTensor(N, 2):fill(1)
  for n = 1, N do
    last[n][1] = 2 * tlen[n] + 1
    last[n][2] = math.max(2 * tlen[n], 1)
    if tlen[n] == 0 then has_label[n][2] = 0 end
  end
  if dev then last = last:to(dev) end
  has_label = A.like(has_label, logProbs)
  local no_label = torch.mul(torch.add(torch.neg(has_label), 1), NEG)
  local ends = torch.add(torch.cmul(torch.gather(alpha, 2, last), has_label), no_label)
  local loss = torch.neg(torch.logsumexp(ends, 2):view(N))

  -- Impossible alignments: +inf with a non-finite gradient, or 0 with a 0 gradient (zeroInfinity).
  local impossible = torch.gt(loss:detach(), IMPOSSIBLE)
  local factor = torch.add(torch.neg(impossible:typeAs(loss)), 1)
  if not zero_inf then factor:maskedFill(impossible, math.huge) end
  loss = torch.cmul(loss, factor)

  if r == 'none' then return single and loss:view(1):select(1, 1) or loss end
  if r == 'sum' then return loss:sum() end
  local L = A.like(torch.DoubleTensor(tlen):clamp(1, math.huge), logProbs)
  return torch.cdiv(loss, L):mean()
end

return F
