-- nn.IndexLinear(inputSize, outputSize[, doGradInput, keysOffset, weight, bias, normalize]):
-- Torch7's linear layer on sparse input given as keys and values (nn's IndexLinear.lua and THNN's
-- generic/IndexLinear.c), in tensor ops: y = b + sum_i values[i] * weight[keys[i]] per sample.
-- The weight is inputSize x outputSize (the transpose of nn.Linear's), plus 4 leading columns
-- per feature with normalize = true (max |value| seen, its inverse, an update scale, a feature
-- bias). Gradients are kept per key occurrence (Torch7's "running" buffers) and applied sparsely
-- by updateParameters / accUpdateGradParameters: only the rows of the keys seen change.
local S = require 'nn.support'
local IndexLinear, parent = torch.class('nn.IndexLinear', 'nn.Module')

local NAME = 'nn.IndexLinear'

-- Note [IndexLinear parameters]: Torch7's parameters() returned {weight, bias}, {running,
-- gradBias}, a table where a gradient tensor belongs, which Tocha's module machinery (:type(),
-- torch.load's gradient linking) cannot take. Here the gradients are {gradWeight, gradBias}:
-- gradWeight is Torch7's per-occurrence buffer (nnz x outputSize, x 2*outputSize when
-- normalizing) of the last updateParameters, not a dense matrix; m.running keeps Torch7's layout.

--- nn.IndexLinear(inputSize, outputSize[, doGradInput = false, keysOffset = 0, weight, bias,
--- normalize = false]): keys k address weight row k + keysOffset (keysOffset = 1 for 0-based
--- keys). Input: {keys, values} (one sample: 1-D LongTensor and 1-D values -> outputSize),
--- {{keys1, ...}, {values1, ...}} (a batch -> N x outputSize) or {keys, values, sizes} (a batch
--- concatenated, sizes: N counts or one number). weight (inputSize x (outputSize [+ 4])) and
--- bias may be given to share them. Starts from zero weights, as Torch7 (m:reset() draws them).
--- Example: local m = nn.IndexLinear(10, 2); m:forward({torch.LongTensor{1, 7}, torch.Tensor{0.5, -1}})
function IndexLinear:__init(inputSize, outputSize, doGradInput, keysOffset, weight, bias, normalize)
  parent.__init(self)
  self.normalize = normalize and 4 or 0
  if weight ~= nil then
    if not torch.isTensor(weight) or weight:dim() ~= 2 or weight:size(2) <= self.normalize
        or not nn.utils.isFloating(weight) then
      S.fail(NAME, 'weight must be a floating-point inputSize x (outputSize%s) tensor, got %s',
        self.normalize > 0 and ' + 4' or '', S.describe(weight))
    end
  else
    S.argInt(NAME, 'inputSize', inputSize, 1)
    S.argInt(NAME, 'outputSize', outputSize, 1)
    weight = S.alloc(NAME, inputSize, outputSize + self.normalize):zero()
  end
  self.weight = weight
  self.inputSize = weight:size(1)
  self.outputSize = weight:size(2) - self.normalize
  if bias ~= nil then
    if not torch.isTensor(bias) or bias:dim() ~= 1 or bias:size(1) ~= self.outputSize then
      S.fail(NAME, 'bias must be a tensor of %d elements, got %s', self.outputSize, S.describe(bias))
    end
  else
    bias = weight.new(self.outputSize):zero()
  end
  self.bias = bias
  self.gradWeight = weight.new()
  self.gradBias = weight.new(self.outputSize):zero()
  self.normalizedValues = weight.new()
  self.running = { cumSumSizes = {}, keys = {}, gradWeight = {}, counter = 1 }
  self.weightDecay = 0
  self.doGradInput = S.argBool(NAME, 'doGradInput', doGradInput)
  if keysOffset ~= nil then S.argInt(NAME, 'keysOffset', keysOffset) end
  self.offset = keysOffset and keysOffset - 1 or -1  -- Torch7's field: added to a key, a 0-based row
  self.gradInput = {}
end

function IndexLinear:__tostring__()
  return string.format('nn.IndexLinear(%d -> %d%s)', self.inputSize, self.outputSize,
    self.normalize > 0 and ', normalize' or '')
end

--- m:reset([stdv]): weight uniform in (-stdv, stdv) (stdv = 1/sqrt(weight:size(2)) by default,
--- else stdv * sqrt(3)), a bias 1e-6 times smaller, and the normalization columns zeroed (Torch7).
--- Example: nn.IndexLinear(10, 2):reset()
function IndexLinear:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(2))
  torch.noGrad(function()
    self.weight:uniform(-stdv, stdv)
    self.bias:uniform(-stdv, stdv):mul(0.000001)
    if self.normalize > 0 then self.weight:narrow(2, 1, self.normalize):zero() end
  end)
  return self
end

-- ---- input ---------------------------------------------------------------------------------

local function is1d(t) return torch.isTensor(t) and (t:dim() == 1 or t:nElement() == 0) end
-- t as a contiguous vector (an empty one too).
local function flat(t) return t:nElement() == 0 and t.new(0) or t:contiguous():view(-1) end

-- keys as a CPU LongTensor; integral values of another type are accepted.
local function long_keys(self, k)
  if k:type() == 'torch.LongTensor' then return flat(k) end
  local l = flat(k:long())
  if nn.utils.isFloating(k) and l:nElement() > 0 and not torch.eq(l:double(), flat(k):double()):all() then
    S.fail(tostring(self), 'keys must be integers, got %s', S.describe(k))
  end
  return l
end

-- The input as keys, values and sizes (1-D, CPU keys and sizes), whether it came in Torch7's flat
-- form and whether it is one sample.
local function parse(self, input)
  local fmt = 'expected {keys, values}, {{keys...}, {values...}} or {keys, values, sizes}, got %s'
  if type(input) ~= 'table' or torch.isTensor(input) then S.fail(tostring(self), fmt, S.describe(input)) end
  local n = #input
  if n == 3 then
    local keys, values, sizes = input[1], input[2], input[3]
    if not (is1d(keys) and is1d(values)) or keys:nElement() ~= values:nElement() then
      S.fail(tostring(self), 'keys and values must be 1-D tensors of one size, got %s', S.describe(input))
    end
    if type(sizes) == 'number' then sizes = torch.LongTensor({ sizes })
    elseif is1d(sizes) then sizes = long_keys(self, sizes)
    else S.fail(tostring(self), 'sizes must be a 1-D tensor or a number, got %s', S.describe(sizes)) end
    local total = sizes:nElement() > 0 and sizes:sum() or 0
    if (sizes:nElement() > 0 and sizes:min() < 0) or total ~= keys:nElement() then
      S.fail(tostring(self), 'sizes must be non-negative and add up to the %d keys, got %s', keys:nElement(),
        table.concat(sizes:totable(), ', '))
    end
    return long_keys(self, keys), flat(values), sizes, true, false
  elseif n == 2 and torch.isTensor(input[1]) and torch.isTensor(input[2]) then
    local keys, values = input[1], input[2]
    if not (is1d(keys) and is1d(values)) or keys:nElement() ~= values:nElement() then
      S.fail(tostring(self), 'keys and values should be 1-D tensors of one size, got %s', S.describe(input))
    end
    return long_keys(self, keys), flat(values), torch.LongTensor({ keys:nElement() }), false, true
  elseif n == 2 and type(input[1]) == 'table' and type(input[2]) == 'table' and #input[1] == #input[2] then
    local lk, lv, sizes = {}, {}, torch.LongTensor(#input[1])
    for i = 1, #input[1] do
      local k, v = input[1][i], input[2][i]
      if not (is1d(k) and is1d(v)) or k:nElement() ~= v:nElement() then
        S.fail(tostring(self), 'keys and values should be 1-D tensors of one size, got %s and %s at sample %d',
          S.describe(k), S.describe(v), i)
      end
      lk[i], lv[i], sizes[i] = long_keys(self, k), flat(v), k:nElement()
    end
    local keys = #lk > 0 and torch.cat(lk, 1) or torch.LongTensor()
    local values = #lv > 0 and torch.cat(lv, 1) or self.weight.new()
    return keys, values, sizes, false, false
  end
  S.fail(tostring(self), fmt, S.describe(input))
end

-- The 1-based sample of each of the nnz keys from the samples' sizes.
local function sample_index(sizes, nnz)
  local B = sizes:nElement()
  local marks = torch.LongTensor(nnz + 1):zero()
  if B > 1 then
    local starts = torch.cumsum(sizes, 1):narrow(1, 1, B - 1):add(1)
    marks:indexAdd(1, starts, torch.LongTensor(B - 1):fill(1))
  end
  return torch.cumsum(marks:narrow(1, 1, nnz), 1):add(1)
end

-- ---- segmented scans (the sequential updates of THNN, vectorised) -------------------------
-- Note [IndexLinear's sequential updates]: THNN walks the keys in order, and a key seen twice
-- sees the first occurrence's effect (the running maximum of normalize's forward, the weight
-- decayed and updated by the first gradient). Here the occurrences are sorted by row (a stable
-- sort keeps their order) and a Hillis-Steele scan over each row's run composes the steps in
-- ceil(log2(largest multiplicity)) tensor passes; keys seen once cost one pass.

-- Whether position i and i - d (for i > d) are in one run of equal rows.
local function same_run(seg, d)
  local n = seg:size(1)
  return torch.eq(seg:narrow(1, d + 1, n - d), seg:narrow(1, 1, n - d))
end

-- The running maximum of a within each run of seg.
local function scan_max(a, seg)
  local n, d = a:size(1), 1
  while d < n do
    local same = same_run(seg, d)
    if not same:any() then break end
    local cur = a:narrow(1, d + 1, n - d)
    local new = a:clone()
    new:narrow(1, d + 1, n - d):copy(torch.where(same, torch.cmax(cur, a:narrow(1, 1, n - d)), cur))
    a, d = new, d * 2
  end
  return a
end

-- The composition, within each run, of the affine steps w -> A[i] * w + B[i] (A: n, B: n x O):
-- entry i becomes the steps of its run up to i applied in order.
local function scan_affine(A, B, seg)
  local n, d = A:size(1), 1
  while d < n do
    local same = same_run(seg, d)
    if not same:any() then break end
    local m = n - d
    local Acur, Bcur = A:narrow(1, d + 1, m), B:narrow(1, d + 1, m)
    local nA, nB = A:clone(), B:clone()
    nA:narrow(1, d + 1, m):copy(torch.where(same, torch.cmul(Acur, A:narrow(1, 1, m)), Acur))
    local composed = torch.cmul(B:narrow(1, 1, m), Acur:view(m, 1):expandAs(Bcur)):add(Bcur)
    nB:narrow(1, d + 1, m):copy(torch.where(same:view(m, 1), composed, Bcur))
    A, B, d = nA, nB, d * 2
  end
  return A, B
end

-- The occurrences sorted by row (stable): the permutation, the sorted rows and the positions
-- (in sorted order) of the last occurrence of each row.
local function runs(rows)
  local srows, perm = torch.sort(rows)
  local n = rows:size(1)
  local last = srows.new(n):fill(1)
  if n > 1 then last:narrow(1, 1, n - 1):copy(torch.ne(srows:narrow(1, 1, n - 1), srows:narrow(1, 2, n - 1))) end
  local pos = srows.new(n):copy(torch.LongTensor(n):range(1, n))
  return perm, srows, pos:maskedSelect(torch.eq(last, 1))
end

-- ---- forward -------------------------------------------------------------------------------

-- normalize's values: v / (max |v| of the feature) + feature bias; in training the maxima grow
-- with the values seen (in order, Note [IndexLinear's sequential updates]) and the update scale
-- of every feature seen is set to 1; in evaluation a value above the maximum gives sign(v).
local function normalized(self, rows, v)
  local w = self.weight
  local maxAbs, inv, fbias = w:select(2, 1), w:select(2, 2), w:select(2, 4)
  local absv = torch.abs(v)
  local m0 = maxAbs:index(1, rows)
  local x
  if self.train ~= false then
    local perm, srows, last = runs(rows)
    local a = scan_max(torch.cmax(absv:index(1, perm), m0:index(1, perm)), srows)
    local r = a.new(a:size(1)):indexCopy(1, perm, a)  -- the maximum when each value is read
    local updated = torch.gt(r, m0)
    local scale = torch.where(updated, r.new(r:size(1)):fill(1):cdiv(r), inv:index(1, rows))
    x = torch.cmul(v, scale)
    local frows, fmax = srows:index(1, last), a:index(1, last)
    local grew = torch.gt(fmax, maxAbs:index(1, frows))
    if grew:any() then
      local grows, gmax = frows:maskedSelect(grew), fmax:maskedSelect(grew)
      maxAbs:indexCopy(1, grows, gmax)
      inv:indexCopy(1, grows, gmax.new(gmax:size(1)):fill(1):cdiv(gmax))
    end
    w:select(2, 3):indexFill(1, rows, 1)
  else
    x = torch.where(torch.gt(absv, m0), torch.sign(v), torch.cmul(v, inv:index(1, rows)))
  end
  return x:add(fbias:index(1, rows))
end

function IndexLinear:updateOutput(input)
  local keys, values, sizes, isFlat, noBatch = parse(self, input)
  local nnz, B, O = keys:nElement(), sizes:nElement(), self.outputSize
  if nnz > 0 then
    local lo, hi = keys:min() + self.offset + 1, keys:max() + self.offset + 1
    if lo < 1 or hi > self.inputSize then
      S.fail(tostring(self), 'keys + keysOffset must address rows 1..%d, got keys from %d to %d (keysOffset %d)',
        self.inputSize, keys:min(), keys:max(), self.offset + 1)
    end
  end
  self.isFlat, self.noBatch = isFlat, noBatch
  self.keys, self.sizes = keys, sizes
  self.cumSumSizes = B > 0 and torch.cumsum(sizes, 1) or torch.LongTensor()
  local like = self.weight
  self.rows = nn.utils.longBuffer(nil, like):resize(nnz):copy(keys:clone():add(self.offset + 1))
  self.batchIdx = nn.utils.longBuffer(nil, like):resize(nnz)
  if nnz > 0 then self.batchIdx:copy(sample_index(sizes, nnz)) end
  self.values = values:type() == like:type() and values or values:type(like:type())
  torch.noGrad(function()
    local out = like.new(B, O)
    if B > 0 then out:copy(self.bias:view(1, O):expand(B, O)) end
    if nnz > 0 then
      local x, W = self.values, self.weight
      if self.normalize > 0 then
        x = normalized(self, self.rows, x)
        self.normalizedValues = x
        W = W:narrow(2, self.normalize + 1, O)
      end
      local rowsW = W:index(1, self.rows)
      out:indexAdd(1, self.batchIdx, rowsW:cmul(x:view(nnz, 1):expandAs(rowsW)))
    end
    self.output = noBatch and out:view(O) or out
  end)
  return self.output
end

-- ---- backward ------------------------------------------------------------------------------

-- gradOutput as B x O after checking it against the output.
local function grad_rows(self, gradOutput)
  if not self.rows then S.fail(tostring(self), 'backward called before forward') end
  S.gradLike(tostring(self), gradOutput, self.output)
  return gradOutput:contiguous():view(self.sizes:nElement(), self.outputSize)
end

--- m:updateGradInput(input, gradOutput): {} unless the layer was built with doGradInput; then the
--- gradient for every input index as Torch7 gave it: {indices, gradients} (N x inputSize each
--- for the flat form; tables of N vectors for the table form; vectors for one sample). Not
--- defined with normalize (Torch7).
--- Example: local m = nn.IndexLinear(4, 2, true); local x = {torch.LongTensor{2}, torch.Tensor{1}}; m:forward(x); m:updateGradInput(x, torch.ones(2))
function IndexLinear:updateGradInput(input, gradOutput)
  self.gradInput = {}
  if not self.doGradInput then return self.gradInput end
  if self.normalize > 0 then S.fail(tostring(self), 'updateGradInput is not implemented in max-normalize mode') end
  local go = grad_rows(self, gradOutput)
  local B, ini = go:size(1), self.inputSize
  local gi = torch.noGrad(function() return torch.mm(go, self.weight:t()) end)
  local indices = nn.utils.longBuffer(nil, self.weight):resize(ini):copy(torch.LongTensor(ini):range(1, ini))
  if self.isFlat then
    self.gradInput = { indices:view(1, ini):expand(B, ini):clone(), gi }
  else
    self.gradInput = { {}, {} }
    for i = 1, B do  -- one pair of tensors per sample: Torch7's table form
      self.gradInput[1][i], self.gradInput[2][i] = indices:clone(), gi[i]:clone()
    end
    if self.noBatch then self.gradInput = { self.gradInput[1][1], self.gradInput[2][1] } end
  end
  return self.gradInput
end

-- The per-occurrence gradients for scale: nnz x O (weights), and with normalize the gradient of
-- each feature's bias as the O-vector it multiplies with the weight row.
local function occurrence_grads(self, go, scale)
  if self.rows:nElement() == 0 then
    local e = go.new(0, self.outputSize)
    return self.normalize > 0 and e or nil, e
  end
  local gs = go:index(1, self.batchIdx)
  local x = self.normalize > 0 and self.normalizedValues or self.values
  local g2 = torch.cmul(gs, x:view(-1, 1):expandAs(gs)):mul(scale)
  return self.normalize > 0 and gs:mul(scale) or nil, g2
end

--- m:accGradParameters(input, gradOutput[, scale = 1]): stores this batch's per-occurrence weight
--- gradients in m.running (applied by updateParameters) and adds to gradBias (Torch7).
--- Example: local m = nn.IndexLinear(4, 2); local x = {torch.LongTensor{2}, torch.Tensor{1}}; m:forward(x); m:backward(x, torch.ones(2))
function IndexLinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if type(scale) ~= 'number' then S.fail(tostring(self), 'scale must be a number, got %s', S.describe(scale)) end
  local go = grad_rows(self, gradOutput)
  torch.noGrad(function()
    local g1, g2 = occurrence_grads(self, go, scale)
    local c = self.running.counter
    self.running.keys[c] = self.rows
    self.running.gradWeight[c] = g1 and torch.cat({ g1, g2 }, 2) or g2
    self.running.cumSumSizes[c] = self.cumSumSizes
    self.running.counter = c + 1
    if go:size(1) > 0 then self.gradBias:add(scale, go:sum(1):view(-1)) end
  end)
end

-- Note [IndexLinear's sparse updates]: each key occurrence updates its row in order: with
-- normalize, s = the row's update scale (column 3), first the feature bias (column 4) -= lr * s *
-- <gradOutput, weight row>, then the weight row *= (1 - weightDecay * s) and -= lr * s * value *
-- gradOutput; without it the row *= (1 - weightDecay) and -= lr * value * gradOutput (weight
-- decay on the rows seen only, once per occurrence, not scaled by lr: THNN's). THNN's special
-- case for outputSize == 1 with normalize added the weight decay (a sign slip) and reset the
-- update scales to 0 after accUpdateGradParameters; here every outputSize follows the general
-- rule above.
local function sparse_update(self, rows, g1, g2, lr)
  local n, O, wd = rows:nElement(), self.outputSize, self.weightDecay or 0
  if n == 0 then return end
  local w = self.weight
  local W = self.normalize > 0 and w:narrow(2, self.normalize + 1, O) or w
  if g1 == nil and wd == 0 then
    W:indexAdd(1, rows, torch.mul(g2, -lr))
    return
  end
  local perm, srows, last = runs(rows)
  local s = self.normalize > 0 and w:select(2, 3):index(1, srows) or w.new(n):fill(1)
  local lrs = torch.mul(s, lr)
  local A = torch.mul(s, -wd):add(1)
  local Bm = g2:index(1, perm)
  Bm:cmul(lrs:view(n, 1):expandAs(Bm)):mul(-1)
  A, Bm = scan_affine(A, Bm, srows)
  local W0 = W:index(1, srows)
  local after = torch.cmul(W0, A:view(n, 1):expandAs(W0)):add(Bm)
  if g1 ~= nil then
    local before = W0:clone()
    if n > 1 then
      local same = torch.eq(srows:narrow(1, 2, n - 1), srows:narrow(1, 1, n - 1)):view(n - 1, 1)
      before:narrow(1, 2, n - 1):copy(torch.where(same, after:narrow(1, 1, n - 1), W0:narrow(1, 2, n - 1)))
    end
    local dot = torch.cmul(g1:index(1, perm), before):sum(2):view(n)
    w:select(2, 4):indexAdd(1, srows, dot:cmul(lrs):mul(-1))
  end
  W:indexCopy(1, srows:index(1, last), after:index(1, last))
end

--- m:updateParameters(lr): applies the gradients accumulated since zeroGradParameters to the rows
--- of the keys seen (Note [IndexLinear's sparse updates]) and bias -= lr * gradBias; nothing when
--- no gradient was accumulated.
--- Example: local m = nn.IndexLinear(4, 2); local x = {torch.LongTensor{2}, torch.Tensor{1}}; m:forward(x); m:backward(x, torch.ones(2)); m:updateParameters(0.1)
function IndexLinear:updateParameters(lr)
  if type(lr) ~= 'number' then S.fail(tostring(self), 'you must specify a learning rate, got %s', S.describe(lr)) end
  local c = self.running.counter
  if c <= 1 then return end
  local keys, grads = {}, {}
  for i = 1, c - 1 do keys[i], grads[i] = self.running.keys[i], self.running.gradWeight[i] end
  self.updateKeys = #keys == 1 and keys[1] or torch.cat(keys, 1)
  self.gradWeight = #grads == 1 and grads[1] or torch.cat(grads, 1)
  local O = self.outputSize
  torch.noGrad(function()
    self.bias:add(-lr, self.gradBias)
    local g = self.gradWeight
    if self.normalize > 0 then
      sparse_update(self, self.updateKeys, g:narrow(2, 1, O), g:narrow(2, O + 1, O), lr)
    else
      sparse_update(self, self.updateKeys, nil, g, lr)
    end
  end)
end

--- m:accUpdateGradParameters(input, gradOutput, lr): updates the weight rows of the last forward's
--- keys and the bias directly (Note [IndexLinear's sparse updates]), leaving m.running alone.
--- Example: local m = nn.IndexLinear(4, 2); local x = {torch.LongTensor{2}, torch.Tensor{1}}; m:forward(x); m:accUpdateGradParameters(x, torch.ones(2), 0.1)
function IndexLinear:accUpdateGradParameters(input, gradOutput, lr)
  lr = lr or 1
  if type(lr) ~= 'number' then S.fail(tostring(self), 'lr must be a number, got %s', S.describe(lr)) end
  local go = grad_rows(self, gradOutput)
  torch.noGrad(function()
    if go:size(1) > 0 then self.bias:add(-lr, go:sum(1):view(-1)) end
    local g1, g2 = occurrence_grads(self, go, 1)
    sparse_update(self, self.rows, g1, g2, lr)
  end)
end

--- m:zeroGradParameters(): zeroes gradBias and forgets the accumulated weight gradients.
--- Example: nn.IndexLinear(4, 2):zeroGradParameters()
function IndexLinear:zeroGradParameters()
  self.gradBias:zero()
  self.running.keys, self.running.gradWeight, self.running.cumSumSizes = {}, {}, {}
  self.running.counter = 1
end

function IndexLinear:parameters()
  return { self.weight, self.bias }, { self.gradWeight, self.gradBias }
end

-- The index tensors stay LongTensors (on the new device) when the module changes type.
local LONG_FIELDS = { 'keys', 'sizes', 'cumSumSizes', 'rows', 'batchIdx', 'updateKeys' }

function IndexLinear:type(name, cache)
  if not name then return self._type end
  self.gradInput = {}  -- may hold index tensors (doGradInput), which stay LongTensors
  local saved, running = {}, self.running
  for _, k in ipairs(LONG_FIELDS) do saved[k], self[k] = self[k], nil end
  self.running = nil
  parent.type(self, name, cache)
  self.running = running
  for i, g in pairs(running.gradWeight) do running.gradWeight[i] = g:type(name) end
  local function long(t) return nn.utils.longBuffer(nil, self.weight):resize(t:nElement()):copy(t) end
  for i, k in pairs(running.keys) do running.keys[i] = long(k) end
  for _, k in ipairs({ 'rows', 'batchIdx', 'updateKeys' }) do if saved[k] then saved[k] = long(saved[k]) end end
  for _, k in ipairs(LONG_FIELDS) do self[k] = saved[k] end
  return self
end

function IndexLinear:clearState()
  self.running.keys, self.running.gradWeight, self.running.cumSumSizes = {}, {}, {}
  self.running.counter = 1  -- Torch7 kept the counter, so updateParameters then read missing buffers
  for _, k in ipairs(LONG_FIELDS) do self[k] = nil end
  self.values = nil
  self.normalizedValues = self.weight.new()
  self.gradWeight = self.weight.new()
  parent.clearState(self)
  self.gradInput = {}
  return self
end

return IndexLinear
