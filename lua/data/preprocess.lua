-- Preprocessing fitted on training data and applied to any split: data.StandardScaler,
-- data.MinMaxScaler, data.LabelEncoder / data.labelEncode, data.oneHot.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'

-- The data as an n x d floating matrix (a 1D tensor is one feature).
local function as_matrix(op, x)
  if not torch.isTensor(x) then util.fail(op, 'expected a tensor, got %s', torch.type(x)) end
  if x:dim() == 1 then return x:view(x:size(1), 1) end
  if x:dim() ~= 2 then util.fail(op, 'expected an n x features tensor, got %d dimensions', x:dim()) end
  return x
end

-- Note [Scaled integers are doubles]: transform and inverseTransform keep a floating input's
-- type but give a DoubleTensor for an integer one (as scikit-learn gives float64): scaled values
-- are fractions, and typeAs(x) truncated them (StandardScaler mapped 1 to -1 instead of -1.34).
local function result_type(out, x)
  if x:isFloatingPoint() then return out:typeAs(x):viewAs(x) end
  return out:viewAs(x)
end

local function check_fitted(self, op, x)
  if not self.fitted then util.fail(op, 'call fit(train) first') end
  local m = as_matrix(op, x)
  if m:size(2) ~= self.features then
    util.fail(op, 'fitted on %d features, got a tensor with %d', self.features, m:size(2))
  end
  return m
end

local StandardScaler = torch.class('data.StandardScaler', data)

--- data.StandardScaler(): scales each column to mean 0 and standard deviation 1 (the population
--- standard deviation, as scikit-learn; a constant column is only centered). Fit it on the
--- training set, then transform every split with the same statistics.
function StandardScaler:__init(...)
  if select('#', ...) > 0 then util.fail('StandardScaler', 'takes no arguments, got %s', torch.type((...))) end
  self.fitted = false
end

--- s:fit(x): learns the mean and standard deviation of each column of x (n x features); returns s.
function StandardScaler:fit(x)
  local m = as_matrix('StandardScaler', x):double()
  if m:size(1) == 0 then util.fail('StandardScaler', 'cannot fit on 0 rows') end
  self.mean = m:mean(1):view(-1)
  self.std = m:std(1, true):view(-1)  -- true: divide by n, not n - 1
  self.scale = self.std:clone()
  self.scale:maskedFill(self.scale:eq(0), 1)
  self.features, self.fitted = m:size(2), true
  return self
end

--- s:transform(x): (x - mean) / std, a new tensor of x's shape and type (a DoubleTensor for an
--- integer x: Note [Scaled integers are doubles]).
function StandardScaler:transform(x)
  local m = check_fitted(self, 'StandardScaler', x)
  local out = m:double():add(-1, self.mean:view(1, -1):expandAs(m)):cdiv(self.scale:view(1, -1):expandAs(m))
  return result_type(out, x)
end

--- s:fitTransform(x): s:fit(x):transform(x).
function StandardScaler:fitTransform(x) return self:fit(x):transform(x) end

--- s:inverseTransform(y): undoes transform.
function StandardScaler:inverseTransform(y)
  local m = check_fitted(self, 'StandardScaler', y)
  local out = m:double():cmul(self.scale:view(1, -1):expandAs(m)):add(self.mean:view(1, -1):expandAs(m))
  return result_type(out, y)
end

local MinMaxScaler = torch.class('data.MinMaxScaler', data)

--- data.MinMaxScaler([range]): maps each column linearly so that its training minimum and
--- maximum become range[1] and range[2] (default {0, 1}); a constant column maps to range[1].
function MinMaxScaler:__init(range)
  range = range or { 0, 1 }
  if type(range) ~= 'table' or type(range[1]) ~= 'number' or type(range[2]) ~= 'number' or range[1] >= range[2] then
    util.fail('MinMaxScaler', 'range must be {low, high} with low < high')
  end
  self.range, self.fitted = { range[1], range[2] }, false
end

--- s:fit(x): learns the minimum and maximum of each column; returns s.
function MinMaxScaler:fit(x)
  local m = as_matrix('MinMaxScaler', x):double()
  if m:size(1) == 0 then util.fail('MinMaxScaler', 'cannot fit on 0 rows') end
  self.min = m:min(1):view(-1)
  self.max = m:max(1):view(-1)
  local span = self.max - self.min
  span:maskedFill(span:eq(0), 1)
  self.scale = torch.DoubleTensor(span:size()):fill(self.range[2] - self.range[1]):cdiv(span)
  self.features, self.fitted = m:size(2), true
  return self
end

--- s:transform(x): range[1] + (x - min) * (range[2] - range[1]) / (max - min).
function MinMaxScaler:transform(x)
  local m = check_fitted(self, 'MinMaxScaler', x)
  local out = m:double():add(-1, self.min:view(1, -1):expandAs(m)):cmul(self.scale:view(1, -1):expandAs(m))
    :add(self.range[1])
  return result_type(out, x)
end

--- s:fitTransform(x): s:fit(x):transform(x).
function MinMaxScaler:fitTransform(x) return self:fit(x):transform(x) end

--- s:inverseTransform(y): undoes transform.
function MinMaxScaler:inverseTransform(y)
  local m = check_fitted(self, 'MinMaxScaler', y)
  local out = m:double():add(-self.range[1]):cdiv(self.scale:view(1, -1):expandAs(m))
    :add(self.min:view(1, -1):expandAs(m))
  return result_type(out, y)
end

-- ---- labels ------------------------------------------------------------------------------------

local function values_of(op, v)
  if torch.isTensor(v) then
    local list = {}
    local flat = v:contiguous():view(-1)
    for i = 1, flat:nElement() do list[i] = flat[i] end
    return list
  end
  if type(v) ~= 'table' then util.fail(op, 'expected a list or a 1D tensor, got %s', torch.type(v)) end
  return v
end

local LabelEncoder = torch.class('data.LabelEncoder', data)

--- data.LabelEncoder(): maps labels (strings or numbers) to class indices 1..K; .classes lists
--- the labels in sorted order (numbers before strings).
function LabelEncoder:__init(...)
  if select('#', ...) > 0 then util.fail('LabelEncoder', 'takes no arguments, got %s', torch.type((...))) end
  self.classes = nil
end

--- e:fit(values): learns the classes (a list or a 1D tensor); returns e.
function LabelEncoder:fit(values)
  local set, classes = {}, {}
  for i, v in ipairs(values_of('LabelEncoder', values)) do
    if v == nil or (type(v) ~= 'string' and type(v) ~= 'number') then
      util.fail('LabelEncoder', 'value %d is a %s, expected a string or a number', i, type(v))
    end
    if v ~= v then util.fail('LabelEncoder', 'value %d is NaN, expected a string or a number', i) end
    if not set[v] then set[v] = true classes[#classes + 1] = v end
  end
  table.sort(classes, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == 'number'
  end)
  self.classes, self.index = classes, {}
  for i, c in ipairs(classes) do self.index[c] = i end
  return self
end

--- e:transform(values): a LongTensor of class indices; an unknown label is an error naming its
--- position.
function LabelEncoder:transform(values)
  if not self.classes then util.fail('LabelEncoder', 'call fit(values) first') end
  local list = values_of('LabelEncoder', values)
  local out = torch.LongTensor(#list)
  for i, v in ipairs(list) do
    local k = self.index[v]
    if not k then util.fail('LabelEncoder', 'unknown label %s at position %d (not seen by fit)', tostring(v), i) end
    out[i] = k
  end
  return out
end

--- e:fitTransform(values): e:fit(values):transform(values).
function LabelEncoder:fitTransform(values) return self:fit(values):transform(values) end

--- e:inverseTransform(codes): the labels of class indices, as a Lua list.
function LabelEncoder:inverseTransform(codes)
  local out = {}
  for i, k in ipairs(values_of('LabelEncoder', codes)) do
    local c = self.classes[k]
    if c == nil then util.fail('LabelEncoder', 'class index %s at position %d is out of range 1..%d', tostring(k), i,
      #self.classes) end
    out[i] = c
  end
  return out
end

--- data.labelEncode(values): class indices (a LongTensor, 1-based) and the sorted list of
--- distinct labels.
--- Example: local y, classes = data.labelEncode({'b', 'a', 'b'})  -- {2, 1, 2}, {'a', 'b'}
function data.labelEncode(values)
  local e = data.LabelEncoder()
  local codes = e:fitTransform(values)
  return codes, e.classes
end

--- data.oneHot(labels, n): an N x n FloatTensor with a 1 in column labels[i] of row i (labels:
--- 1-based class indices, a tensor or a list). A label outside 1..n is an error naming its position.
--- Example: data.oneHot({2, 1}, 3)
function data.oneHot(labels, n)
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then util.fail('oneHot', 'n must be a positive integer, got %s', tostring(n)) end
  local list = values_of('oneHot', labels)
  local out = torch.FloatTensor(#list, n):zero()
  for i, k in ipairs(list) do
    if type(k) ~= 'number' or k ~= math.floor(k) or k < 1 or k > n then
      util.fail('oneHot', 'label %s at position %d is out of range 1..%d', tostring(k), i, n)
    end
    out[i][k] = 1
  end
  return out
end

return data
