-- optim.ConfusionMatrix: counts of (target, prediction) pairs, per-class and global accuracies,
-- and Torch7's printed table.
local lib = require 'torch.lib'

local ConfusionMatrix = torch.class('optim.ConfusionMatrix')
local NAME = 'optim.ConfusionMatrix'

--- optim.ConfusionMatrix(nclasses | {classnames}[, classnames]): an empty matrix; rows are
--- targets, columns predictions (mat, a LongTensor). Fields after updateValids(): valids
--- (per-class accuracy), unionvalids, totalValid (global accuracy), averageValid,
--- averageUnionValid.
function ConfusionMatrix:__init(nclasses, classes)
  if type(nclasses) == 'table' then classes, nclasses = nclasses, #nclasses end
  if type(nclasses) ~= 'number' or nclasses < 1 or nclasses ~= math.floor(nclasses) then
    lib.fail(NAME, 'expected a number of classes or a list of class names, got %s', tostring(nclasses))
  end
  if classes ~= nil and type(classes) ~= 'table' then lib.fail(NAME, 'classes must be a list of names, got %s', type(classes)) end
  self.mat = torch.LongTensor(nclasses, nclasses):zero()
  self.valids = torch.FloatTensor(nclasses):zero()
  self.unionvalids = torch.FloatTensor(nclasses):zero()
  self.nclasses = nclasses
  self.totalValid = 0
  self.averageValid = 0
  self.averageUnionValid = 0
  self.classes = classes or {}
end

local function check_class(v, what, n, allow_missing)
  -- inf passed the integer test and was printed by %d as -9223372036854775808
  if type(v) ~= 'number' or v ~= math.floor(v) or v == math.huge or v == -math.huge then
    lib.fail(NAME, '%s must be a class index, got %s', what, tostring(v))
  end
  if v > n or (v < 1 and not allow_missing) then lib.fail(NAME, '%s %s is not a class in 1..%d', what, tostring(v), n) end
end

--- cm:_add(p, t): counts one prediction p for target t; targets <= 0 are missing and ignored.
function ConfusionMatrix:_add(p, t)
  check_class(t, 'target', self.nclasses, true)
  if t > 0 then
    check_class(p, 'prediction', self.nclasses)
    self.mat[t][p] = self.mat[t][p] + 1
  end
end

-- Note [Scores for every class]: a score vector or matrix must hold one score per class: with
-- fewer (or more) columns the argmax was still a valid class often enough to be counted without
-- a word (Torch7 did not check).
-- The class of a score vector: its argmax (the first on ties).
local function argmax(v, what, n)
  if v:dim() ~= 1 then lib.fail(NAME, 'expected a vector of class scores, got %d dimensions', v:dim()) end
  if v:nElement() == 0 then lib.fail(NAME, 'expected a vector of class scores, got an empty tensor') end
  if v:size(1) ~= n then lib.fail(NAME, '%s has %d scores for %d classes', what, v:size(1), n) end
  local _, i = torch.max(v:double(), 1)
  return i[1]
end

--- cm:add(prediction, target): counts one sample: prediction is a class index or a vector of
--- scores (its argmax counts), target a class index or a one-hot/score vector.
function ConfusionMatrix:add(prediction, target)
  -- a 0-dim tensor is a class index (Torch7's target:squeeze() of a one-element target was a number)
  if torch.isTensor(target) then target = target:dim() == 0 and target:item() or argmax(target, 'target', self.nclasses) end
  if torch.isTensor(prediction) then
    prediction = prediction:dim() == 0 and prediction:item() or argmax(prediction, 'prediction', self.nclasses)
  end
  self:_add(prediction, target)
end

-- Class indices of a batch: a vector of classes, an n x 1 matrix, or an n x k score matrix.
local function batch_classes(t, what, n)
  if not torch.isTensor(t) then lib.fail(NAME, '%s must be a tensor, got %s', what, type(t)) end
  if t:dim() == 1 then return t:double():totable() end
  if t:dim() == 2 then
    if t:size(2) == 1 then return t:double():view(-1):totable() end
    if t:size(2) == 0 then lib.fail(NAME, '%s has no classes (size %dx0)', what, t:size(1)) end
    if t:size(2) ~= n then lib.fail(NAME, '%s has %d scores per sample for %d classes', what, t:size(2), n) end
    local _, idx = torch.max(t:double(), 2)
    return idx:view(-1):totable()
  end
  lib.fail(NAME, '%s has an invalid number of dimensions (%d)', what, t:dim())
end

--- cm:batchAdd(predictions, targets): counts a batch; each may be a vector of classes or a
--- matrix of scores/one-hot rows (one row per sample).
function ConfusionMatrix:batchAdd(predictions, targets)
  local preds, targs = batch_classes(predictions, 'predictions', self.nclasses),
    batch_classes(targets, 'targets', self.nclasses)
  if #preds ~= #targs then lib.fail(NAME, '%d predictions for %d targets', #preds, #targs) end
  local n = self.nclasses
  for i = 1, #targs do
    check_class(targs[i], 'target', n, true)
    if targs[i] > 0 then check_class(preds[i], 'prediction', n) end
  end
  local counts = self.mat:view(-1)
  local flat = {}
  for i = 1, #targs do
    local t = targs[i]
    if t > 0 then
      local k = (t - 1) * n + preds[i]
      flat[k] = (flat[k] or 0) + 1
    end
  end
  for k, c in pairs(flat) do counts[k] = counts[k] + c end
end

--- cm:zero(): clears the counts and the accuracies.
function ConfusionMatrix:zero()
  self.mat:zero()
  self.valids:zero()
  self.unionvalids:zero()
  self.totalValid = 0
  self.averageValid = 0
  self.averageUnionValid = 0
end

--- cm:updateValids(): computes valids (per-class accuracy: diagonal / row sum), unionvalids
--- (diagonal / (row + column - diagonal)), totalValid and the averages over classes with samples.
function ConfusionMatrix:updateValids()
  local mat = self.mat:double()
  local rows, cols = mat:sum(2):view(-1), mat:sum(1):view(-1)
  local total = 0
  for t = 1, self.nclasses do
    local d = mat[t][t]
    self.valids[t] = d / rows[t]
    self.unionvalids[t] = d / (rows[t] + cols[t] - d)
    total = total + d
  end
  self.totalValid = total / mat:sum()
  local sum, n, usum, un = 0, 0, 0, 0
  for t = 1, self.nclasses do
    local v, u = self.valids[t], self.unionvalids[t]
    if v == v then
      sum, n = sum + v, n + 1
      if u == u then usum, un = usum + u, un + 1 end
    end
  end
  self.averageValid = sum / n
  self.averageUnionValid = usum / un
end

--- cm:classAccuracy(c): the accuracy of class c (its row's diagonal share), updated now.
function ConfusionMatrix:classAccuracy(c)
  check_class(c, 'class', self.nclasses)
  self:updateValids()
  return self.valids[c]
end

--- cm:farFrr(): false acceptance and rejection rates per class (Torch7's farFrr): classFrrs,
--- classFars (-1 for classes without samples), and the rates of the classes with samples.
function ConfusionMatrix:farFrr()
  local cmat = self.mat:double()
  local n = self.nclasses
  local counts = cmat:sum(2):view(-1)
  local classFrrs, classFars = torch.DoubleTensor(n):fill(-1), torch.DoubleTensor(n):fill(-1)
  local frrs, fars = {}, {}
  for i = 1, n do
    if counts[i] ~= 0 then
      local frr = 1 - cmat[i][i] / counts[i]
      local num, den = 0, 0
      for j = 1, n do
        if i ~= j and counts[j] ~= 0 then num, den = num + cmat[j][i] / counts[j], den + 1 end
      end
      local far = num / den
      classFrrs[i], classFars[i] = frr, far
      frrs[#frrs + 1], fars[#fars + 1] = frr, far
    end
  end
  return classFrrs, classFars, torch.DoubleTensor(frrs), torch.DoubleTensor(fars)
end

--- cm:__tostring__(): Torch7's table: one row of counts per target class with its accuracy and
--- name, then the average row, average row-union-column (VOC) and global accuracies.
function ConfusionMatrix:__tostring__()
  self:updateValids()
  local str = { 'ConfusionMatrix:\n' }
  local n = self.nclasses
  str[#str + 1] = '['
  -- Torch7's %8d columns, widened past 7 digits to keep a space between counts (the width was
  -- 1 + ceil(log10(max)): no space at exact powers of ten, 10000000 printed as 8 digits in 8)
  local nDigits = math.max(8, #string.format('%d', self.mat:max()) + 1)
  local named = self.classes and self.classes[1]
  for t = 1, n do
    local pclass = string.format('%2.3f', self.valids[t] * 100)
    str[#str + 1] = t == 1 and '[' or ' ['
    for p = 1, n do str[#str + 1] = string.format('%' .. nDigits .. 'd', self.mat[t][p]) end
    local close = t == n and ']]  ' or ']   '
    if named then
      str[#str + 1] = close .. pclass .. '% \t[class: ' .. (self.classes[t] or '') .. ']\n'
    else
      str[#str + 1] = close .. pclass .. '% \n'
    end
  end
  str[#str + 1] = ' + average row correct: ' .. (self.averageValid * 100) .. '% \n'
  str[#str + 1] = ' + average rowUcol correct (VOC measure): ' .. (self.averageUnionValid * 100) .. '% \n'
  str[#str + 1] = ' + global correct: ' .. (self.totalValid * 100) .. '%'
  return table.concat(str)
end
