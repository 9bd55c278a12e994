-- nn.AdaptiveLogSoftmaxWithLoss(inFeatures, nClasses, cutoffs [, divValue = 4, headBias = false]):
-- PyTorch's adaptive softmax (Grave et al. 2016): a head nn.Linear(inFeatures, cutoffs[1] +
-- #cutoffs) scoring the shortlist classes and one entry per cluster, and per cluster i a tail
-- nn.Sequential(nn.Linear(inFeatures, floor(inFeatures / divValue^i), no bias), nn.Linear(..,
-- cluster size, no bias)), held as self.head and self.tail (an nn.ModuleList), so m:stateDict()
-- has PyTorch's keys (head.weight, head.bias, tail.0.0.weight, tail.0.1.weight...) and PyTorch
-- state dicts load. Forward is recorded ops, backward autograd's (Note [Modules and autograd]).
--
-- Note [Adaptive softmax classes]: targets and predictions are 1-based classes (Tocha's
-- indices); cutoffs keep PyTorch's values, which count classes: cutoffs {2, 5} of 8 classes put
-- classes 1-2 in the head, 3-5 in the first cluster, 6-8 in the second.
-- Note [Adaptive softmax output]: PyTorch's forward(input, target) returns the namedtuple
-- (output, loss); here m:forward({input, target}) (or m(input, target)) returns the table
-- {output, loss, output = output, loss = loss}: the array part lets containers, autograd and
-- Torch7's backward see both tensors (its gradOutput is {gradOutput, gradLoss}, both tensors:
-- zeros for the one a loss does not use), the names read as PyTorch's. output holds each sample's log-probability of its target, loss
-- is -mean(output), a 0-dim tensor.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.Linear'
require 'nn.Sequential'
require 'nn.ModuleList'
local ASM, parent = torch.class('nn.AdaptiveLogSoftmaxWithLoss', 'nn.Module')
local NAME = 'nn.AdaptiveLogSoftmaxWithLoss'
ASM._fieldChildren = true  -- head and tail are children (Note [Submodules in fields])

function ASM:__init(...)
  parent.__init(self)
  local o = P.parse(NAME, { 'inFeatures', 'nClasses', 'cutoffs', 'divValue', 'headBias' }, ...)
  local inF, n = P.int(NAME, 'inFeatures', o.inFeatures), P.int(NAME, 'nClasses', o.nClasses)
  local c = o.cutoffs
  if type(c) ~= 'table' or torch.isTensor(c) or #c == 0 then
    lib.fail(NAME, 'cutoffs should be a non-empty table of class counts, got %s', nn.utils.describe(c))
  end
  for i, v in ipairs(c) do
    if type(v) ~= 'number' or v ~= math.floor(v) or v < 1 or v > n - 1 or (i > 1 and v <= c[i - 1]) then
      lib.fail(NAME, 'cutoffs should be unique positive integers sorted in increasing order, each between 1 and '
        .. 'nClasses - 1 = %d, got {%s}', n - 1, table.concat(c, ', '))
    end
  end
  self.divValue = P.number(NAME, 'divValue', o.divValue, 4)
  self.headBias = P.bool(NAME, 'headBias', o.headBias, false)
  self.inFeatures, self.nClasses = inF, n
  self.cutoffs = {}
  for i, v in ipairs(c) do self.cutoffs[i] = v end
  self.cutoffs[#c + 1] = n
  self.shortlistSize, self.nClusters = c[1], #c
  self.headSize = self.shortlistSize + self.nClusters
  self.head = nn.Linear(inF, self.headSize, self.headBias)
  self.tail = nn.ModuleList()
  for i = 1, self.nClusters do
    local hsz = math.floor(inF / self.divValue ^ i)
    local osz = self.cutoffs[i + 1] - self.cutoffs[i]
    if hsz < 1 then lib.fail(NAME, 'inFeatures / divValue^%d is below 1: use a smaller divValue', i) end
    self.tail:append(nn.Sequential():add(nn.Linear(inF, hsz, false)):add(nn.Linear(hsz, osz, false)))
  end
end

--- m:reset(): PyTorch's init of the head and tail linear layers (U(-1/sqrt(fanIn), 1/sqrt(fanIn))).
--- Example: nn.AdaptiveLogSoftmaxWithLoss(8, 10, {4}):reset()
function ASM:reset()
  self.head:reset()
  for _, t in ipairs(self.tail) do t:apply(function(m) if m.reset and m.weight then m:reset() end end) end
  return self
end

local function check_input(self, x, batched)
  if not torch.isTensor(x) or not nn.utils.isFloating(x) then
    lib.fail(NAME, 'expected a floating input, got %s', nn.utils.describe(x))
  end
  if x:dim() ~= (batched and 2 or 1) or x:size(x:dim()) ~= self.inFeatures then
    lib.fail(NAME, 'expected an input of size %s%d, got %s', batched and 'N x ' or '', self.inFeatures, nn.utils.describe(x))
  end
end

-- Splits {input, target}; a number or 0-dim target goes with a 1-D input (one sample).
local function args(self, input)
  if type(input) ~= 'table' or torch.isTensor(input) then
    lib.fail(NAME, 'expected {input, target} (or m(input, target)), got %s', nn.utils.describe(input))
  end
  local x, t = input[1], input[2]
  if type(t) == 'number' then t = torch.LongTensor({ t }):view(torch.LongStorage({})) end
  if not torch.isTensor(t) or nn.utils.isFloating(t) then
    lib.fail(NAME, 'expected integer class targets, got %s', nn.utils.describe(t))
  end
  if t:dim() == 1 then
    check_input(self, x, true)
    if x:size(1) ~= t:size(1) then
      lib.fail(NAME, 'input and target should have the same size in the batch dim, got %d and %d', x:size(1), t:size(1))
    end
    return x, t:long(), true
  elseif t:dim() == 0 then
    check_input(self, x, false)
    return x:view(1, -1), t:long():view(1), false
  end
  lib.fail(NAME, 'expected a 0-D or 1-D target (multi-target is not supported), got %s', nn.utils.describe(t))
end

function ASM:updateOutput(input)
  local x, t, batched = args(self, input)
  local n = t:size(1)
  local cpu_t = t:isCuda() and t:to('cpu') or t  -- read on the host: which rows go to which cluster
  local lo, hi = 1, 1  -- an empty batch: an empty output and a nan loss (PyTorch's)
  if n > 0 then lo, hi = cpu_t:min(), cpu_t:max() end
  if lo < 1 or hi > self.nClasses then
    lib.fail(NAME, 'target values should be in 1..%d, got values in %d..%d', self.nClasses, lo, hi)
  end
  -- per sample: the head column to read (its class, or its cluster's entry) and its rows per cluster
  local gather_idx = cpu_t:clone()
  local out = x.new(n):zero()
  local dev = x:device()
  for i = 1, self.nClusters do
    local low, high = self.cutoffs[i], self.cutoffs[i + 1]
    local rows = {}
    for r = 1, n do
      local v = cpu_t[r]
      if v > low and v <= high then rows[#rows + 1] = r end
    end
    if #rows > 0 then
      local R = torch.LongTensor(rows)
      gather_idx:indexFill(1, R, self.shortlistSize + i)
      local rel = cpu_t:index(1, R):add(-low):view(-1, 1):to(dev)
      local Rd = R:to(dev)
      local lp = torch.logSoftmax(self.tail[i]:forward(x:index(1, Rd)), 2)
      out = torch.indexAdd(out, 1, Rd, lp:gather(2, rel):view(-1))
    end
  end
  local head_lp = torch.logSoftmax(self.head:forward(x), 2)
  out = torch.add(out, head_lp:gather(2, gather_idx:view(-1, 1):to(dev)):view(-1))
  local loss = torch.neg(out):mean()
  if not batched then out = out:view(torch.LongStorage({})) end
  self.output = { out, loss, output = out, loss = loss }
  return self.output
end

--- m(input, target): PyTorch's call form, m:forward({input, target}) (Note [Adaptive softmax output]).
--- Example: local m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, {4}) print(m(torch.randn(3, 8), torch.LongTensor{1, 5, 10}).loss)
function ASM:__call__(input, target)
  if torch.isTensor(input) and target ~= nil then return self:forward({ input, target }) end
  return parent.__call__(self, input, target)
end

-- The full N x nClasses log-probabilities of x (N x inFeatures).
local function full_log_prob(self, x)
  local head_lp = torch.logSoftmax(self.head:forward(x), 2)
  local parts = { head_lp:narrow(2, 1, self.shortlistSize) }
  for i = 1, self.nClusters do
    local lp = torch.logSoftmax(self.tail[i]:forward(x), 2)
    parts[#parts + 1] = torch.add(lp, head_lp:narrow(2, self.shortlistSize + i, 1):expandAs(lp))
  end
  return torch.cat(parts, 2)
end

--- m:logProb(input): the log-probabilities of every class, N x nClasses for an N x inFeatures input
--- (nClasses for one sample); differentiable (PyTorch's log_prob).
--- Example: print(nn.AdaptiveLogSoftmaxWithLoss(8, 10, {4}):logProb(torch.randn(2, 8)):exp():sum(2))
function ASM:logProb(input)
  local batched = torch.isTensor(input) and input:dim() == 2
  check_input(self, input, batched)
  local lp = full_log_prob(self, batched and input or input:view(1, -1))
  return batched and lp or lp:view(-1)
end

--- m:predict(input): the most likely class of each row of input, a LongTensor of 1-based classes
--- (PyTorch's predict; the same as the argmax of m:logProb(input)).
--- Example: print(nn.AdaptiveLogSoftmaxWithLoss(8, 10, {4}):predict(torch.randn(3, 8)))
function ASM:predict(input)
  check_input(self, input, true)
  return torch.noGrad(function()
    local head = self.head:forward(input)
    local _, best = torch.max(head, 2)
    best = best:view(-1)
    -- the head's best class is the answer where it is in the shortlist: a cluster class's
    -- log-probability is at most its cluster's head entry
    if best:max() <= self.shortlistSize then return best end
    local _, full = torch.max(full_log_prob(self, input), 2)
    return full:view(-1)
  end)
end

function ASM:__tostring__()
  return string.format('nn.AdaptiveLogSoftmaxWithLoss(%d, %d, cutoffs={%s}, divValue=%g%s)', self.inFeatures,
    self.nClasses, table.concat(self.cutoffs, ', ', 1, self.nClusters), self.divValue,
    self.headBias and ', headBias' or '')
end

return ASM
