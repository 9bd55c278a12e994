-- nn.metrics: classification and regression metrics, as functions of one batch (accuracy, top-k,
-- confusion matrix, precision/recall/F1) and as accumulators that nn.Trainer feeds batch by batch
-- (metrics.create('accuracy'), 'top5', 'precision', 'recall', 'f1', 'confusion', 'mse', 'mae').
-- Outputs are n x classes scores (probabilities, log-probabilities or logits: only the order
-- matters); targets are 1-based class indices, as ClassNLLCriterion takes them.
require 'torch'
local lib = require 'torch.lib'

local metrics = {}
nn.metrics = metrics

local function fail(op, fmt, ...) lib.fail(op, fmt, ...) end

-- Refuses floating-point classes that are not whole numbers: :long() truncated them silently
-- (soft labels, 0.9 for a smoothed 1, were read as class 0).
local function check_whole(op, what, x)
  if not x:isFloatingPoint() or x:nElement() == 0 then return end
  local flat = x:contiguous():view(-1)
  local frac = flat:ne(flat:clone():floor())
  if frac:sum() > 0 then
    local at = frac:nonzero()[1][1]
    fail(op, '%s must be class indices (whole numbers), got %s at position %d', what, tostring(flat[at]), at)
  end
end

-- Targets as a 1D LongTensor of n class indices.
local function class_targets(op, target, n)
  if type(target) == 'number' then target = torch.LongTensor({ target }) end
  if not torch.isTensor(target) then fail(op, 'expected a tensor of class indices, got %s', torch.type(target)) end
  check_whole(op, 'targets', target)
  local t = target:long():view(-1)
  if t:nElement() ~= n then fail(op, 'inconsistent sizes: %d outputs but %d targets', n, t:nElement()) end
  return t
end

-- Scores as an n x classes tensor (a single sample's 1D scores become 1 x classes).
local function scores(op, output)
  if not torch.isTensor(output) then fail(op, 'expected a tensor of scores, got %s', torch.type(output)) end
  -- targets become CPU LongTensors (:long() leaves the GPU, as Torch7's): the predicted indices
  -- must be on the CPU too, or eq/indexAdd would mix devices
  if torch.typename(output):find('Cuda', 1, true) then output = output:double() end
  if output:dim() == 1 then return output:view(1, output:size(1)) end
  if output:dim() ~= 2 then fail(op, 'expected n x classes scores, got %d dimensions', output:dim()) end
  return output
end

local function check_range(op, t, nclasses)
  if t:nElement() == 0 then return end
  local lo, hi = t:min(), t:max()
  if lo < 1 or hi > nclasses then
    local bad = t:lt(1):add(t:gt(nclasses)):nonzero()[1][1]
    fail(op, 'target %d at position %d is out of range 1..%d', t[bad], bad, nclasses)
  end
end

--- nn.metrics.predictions(output): the predicted class of each row of n x classes scores (a
--- LongTensor of n indices).
function metrics.predictions(output)
  local s = scores('predictions', output)
  local _, idx = s:max(2)
  return idx:view(-1)
end

--- nn.metrics.accuracy(output, target): the fraction of rows whose highest score is at the
--- target class. For one column of probabilities (binary), the prediction is output >= 0.5 and
--- targets are 0 or 1.
function metrics.accuracy(output, target)
  -- one score for one sample is a binary probability too: as one class of a multi-class output,
  -- any target 1 counted as right whatever the probability
  if torch.isTensor(output) and (output:dim() == 1 and (torch.isTensor(target) and target:nElement() == output:nElement()
      or output:nElement() == 1) or output:dim() == 2 and output:size(2) == 1) then
    local p = output:contiguous():view(-1):ge(0.5):long()
    local t = class_targets('accuracy', target, p:nElement())
    -- 1-based class indices (1, 2) here would silently count every 2 as wrong
    local bad = t:lt(0):add(t:gt(1))
    if bad:sum() > 0 then
      local at = bad:nonzero()[1][1]
      fail('accuracy', 'binary targets (one probability per sample) must be 0 or 1, got %d at position %d', t[at], at)
    end
    return p:eq(t):sum() / math.max(p:nElement(), 1)
  end
  local s = scores('accuracy', output)
  local t = class_targets('accuracy', target, s:size(1))
  check_range('accuracy', t, s:size(2))
  return metrics.predictions(s):eq(t):sum() / math.max(s:size(1), 1)
end

--- nn.metrics.topk(output, target, k): the fraction of rows whose target is among the k highest
--- scores.
function metrics.topk(output, target, k)
  local s = scores('topk', output)
  if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then fail('topk', 'k must be a positive integer, got %s', tostring(k)) end
  local t = class_targets('topk', target, s:size(1))
  check_range('topk', t, s:size(2))
  k = math.min(k, s:size(2))
  local _, idx = s:topk(k, 2, true)
  return idx:eq(t:view(-1, 1):expandAs(idx)):sum() / math.max(s:size(1), 1)
end

--- nn.metrics.confusionMatrix(output, target[, nclasses]): an nclasses x nclasses LongTensor
--- counting rows by (true class, predicted class), as optim.ConfusionMatrix (rows: targets).
--- output may be scores or a tensor of predicted class indices (then give nclasses).
function metrics.confusionMatrix(output, target, nclasses)
  local pred
  if torch.isTensor(output) and output:dim() == 2 and output:size(2) > 1 then
    nclasses = nclasses or output:size(2)
    pred = metrics.predictions(output)
  else
    if not nclasses then fail('confusionMatrix', 'give nclasses when output holds predicted classes') end
    if not torch.isTensor(output) then fail('confusionMatrix', 'expected a tensor of scores or classes, got %s', torch.type(output)) end
    check_whole('confusionMatrix', 'predicted classes', output)
    pred = output:long():view(-1)
  end
  local t = class_targets('confusionMatrix', target, pred:nElement())
  check_range('confusionMatrix', t, nclasses)
  check_range('confusionMatrix', pred, nclasses)
  local cm = torch.LongTensor(nclasses, nclasses):zero()
  local flat = cm:view(-1)
  local index = t:clone():add(-1):mul(nclasses):add(pred)
  flat:indexAdd(1, index, torch.LongTensor(index:nElement()):fill(1))
  return cm
end

-- Note [Macro averages skip absent classes]: a class that is neither a target nor a prediction
-- (its row and column of the matrix are empty) has no precision or recall at all; counting it
-- as 0 would make a perfect run on a batch or data set that lacks some classes score below 1.
-- The macro averages are over the classes that appear, as scikit-learn's (labels from y_true
-- and y_pred) and torchmetrics' macro averages are; 0 when the matrix is empty.
--- nn.metrics.precisionRecallF1(cm): per-class precision, recall and F1 (DoubleTensors; 0 where
--- undefined) of a confusion matrix, and their macro averages (numbers) over the classes that
--- occur as a target or a prediction.
function metrics.precisionRecallF1(cm)
  -- a non-square matrix read its diagonal against row and column sums of other lengths
  if not torch.isTensor(cm) or cm:dim() ~= 2 or cm:size(1) ~= cm:size(2) then
    fail('precisionRecallF1', 'expected a square confusion matrix, got %s',
      torch.isTensor(cm) and table.concat(cm:size():totable(), 'x') or torch.type(cm))
  end
  local m = cm:double()
  local tp = torch.diag(m)
  local predicted, actual = m:sum(1):view(-1), m:sum(2):view(-1)
  local n = tp:nElement()
  local precision, recall, f1 = torch.DoubleTensor(n), torch.DoubleTensor(n), torch.DoubleTensor(n)
  local present, sp, sr, sf = 0, 0, 0, 0
  for c = 1, n do
    precision[c] = predicted[c] > 0 and tp[c] / predicted[c] or 0
    recall[c] = actual[c] > 0 and tp[c] / actual[c] or 0
    local s = precision[c] + recall[c]
    f1[c] = s > 0 and 2 * precision[c] * recall[c] / s or 0
    if predicted[c] + actual[c] > 0 then
      present, sp, sr, sf = present + 1, sp + precision[c], sr + recall[c], sf + f1[c]
    end
  end
  local k = math.max(present, 1)
  return { precision = precision, recall = recall, f1 = f1, macroPrecision = sp / k, macroRecall = sr / k,
           macroF1 = sf / k }
end

-- ---- accumulators --------------------------------------------------------------------------------

-- Averages a per-batch function, weighted by batch size: samples(output, target), by default the
-- rows of output.
local function averaged(name, fn, samples)
  local acc = { name = name, sum = 0, count = 0 }
  function acc.reset() acc.sum, acc.count = 0, 0 end
  function acc.add(_, output, target)
    local n = samples and samples(output, target)
      or torch.isTensor(output) and (output:dim() > 0 and output:size(1) or 1) or 1
    acc.sum = acc.sum + fn(output, target) * n
    acc.count = acc.count + n
  end
  function acc.value() return acc.count > 0 and acc.sum / acc.count or 0 / 0 end
  return acc
end

-- Accumulates a confusion matrix; value() reads one statistic off it.
local function from_confusion(name, read)
  local acc = { name = name }
  function acc.reset() acc.cm = nil end
  function acc.add(_, output, target)
    local s = scores(name, output)
    if s:size(2) == 1 then
      fail(name, 'needs n x classes scores (two columns for a binary classifier), got one column')
    end
    local cm = metrics.confusionMatrix(s, target, s:size(2))
    if acc.cm then acc.cm:add(cm) else acc.cm = cm end
  end
  function acc.value()
    if not acc.cm then return 0 / 0 end
    return read(acc.cm)
  end
  return acc
end

local function regression(name, fn)
  return averaged(name, function(output, target)
    if not torch.isTensor(output) or not torch.isTensor(target) then
      fail(name, 'expected tensors, got %s and %s', torch.type(output), torch.type(target))
    end
    if output:nElement() ~= target:nElement() then
      fail(name, 'inconsistent sizes: %d outputs but %d targets', output:nElement(), target:nElement())
    end
    local d = output:double():reshape(output:nElement()) - target:double():reshape(target:nElement())
    return fn(d)
  end)
end

-- Classification metrics count one sample per target: a single sample's 1D scores have as many
-- rows as classes, and weighting it by them would outweigh the batches it is averaged with.
local function targets_count(_, target) return torch.isTensor(target) and target:nElement() or 1 end

local builtin = {
  accuracy = function() return averaged('accuracy', metrics.accuracy, targets_count) end,
  precision = function() return from_confusion('precision', function(cm) return metrics.precisionRecallF1(cm).macroPrecision end) end,
  recall = function() return from_confusion('recall', function(cm) return metrics.precisionRecallF1(cm).macroRecall end) end,
  f1 = function() return from_confusion('f1', function(cm) return metrics.precisionRecallF1(cm).macroF1 end) end,
  confusion = function() return from_confusion('confusion', function(cm) return cm:clone() end) end,
  mse = function() return regression('mse', function(d) return d:pow(2):mean() end) end,
  mae = function() return regression('mae', function(d) return d:abs():mean() end) end,
}

--- nn.metrics.create(spec): an accumulator {name, :reset(), :add(output, target), :value()} for a
--- metric: a name ('accuracy', 'topK' such as 'top5', 'precision', 'recall', 'f1' (macro
--- averages), 'confusion' (the matrix), 'mse', 'mae'), a function(output, target) -> number
--- (averaged over samples; named by spec.name when given as {name=, fn=}), or an object that
--- already has reset/add/value.
function metrics.create(spec)
  if type(spec) == 'string' then
    local k = spec:match('^top(%d+)$')
    if k then return averaged(spec, function(o, t) return metrics.topk(o, t, tonumber(k)) end, targets_count) end
    local make = builtin[spec]
    if not make then
      fail('metrics', "unknown metric %s (known: accuracy, topK, precision, recall, f1, confusion, mse, mae)", spec)
    end
    return make()
  elseif type(spec) == 'function' then
    return averaged('metric', spec)
  elseif type(spec) == 'table' and type(spec.fn) == 'function' then
    return averaged(spec.name or 'metric', spec.fn)
  elseif type(spec) == 'table' and type(spec.add) == 'function' and type(spec.value) == 'function' then
    -- without reset it kept counting across epochs (fit failed calling it); without a name its
    -- value had no key in the logs ('table index is nil')
    if type(spec.reset) ~= 'function' then fail('metrics', 'an accumulator needs reset() as well as add() and value()') end
    if type(spec.name) ~= 'string' then fail('metrics', 'an accumulator needs a name (a string), got %s', type(spec.name)) end
    return spec
  end
  fail('metrics', 'expected a metric name, a function or an accumulator, got %s', torch.type(spec))
end

return metrics
