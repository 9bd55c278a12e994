-- nn.ClassNLLCriterion([weights][, sizeAverage][, ignoreIndex]): -input[target] for log
-- probabilities (a vector with a class number, or a batch with a LongTensor of classes; 1-based).
local ClassNLLCriterion, parent = torch.class('nn.ClassNLLCriterion', 'nn.Criterion')

function ClassNLLCriterion:__init(weights, sizeAverage, ignoreIndex)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
  self.weights = weights
  self.ignoreIndex = ignoreIndex or -100
end

-- (batch of log-probabilities, LongTensor targets as a column, per-row weights)
local function prepare(self, input, target)
  local batch = input:dim() == 2 and input or input:view(1, -1)
  local t
  if type(target) == 'number' then t = torch.LongTensor({ target })
  elseif torch.isTensor(target) then t = target:long():view(-1)
  else error('[nn.ClassNLLCriterion] target must be a number or a tensor, got ' .. torch.type(target), 0) end
  local n, c = batch:size(1), batch:size(2)
  if t:nElement() ~= n then
    error(string.format('[nn.ClassNLLCriterion] %d targets for a batch of %d', t:nElement(), n), 0)
  end
  local valid = torch.ne(t, self.ignoreIndex)
  local safe = torch.where(valid, t, 1)
  if safe:nElement() > 0 and (safe:min() < 1 or safe:max() > c) then
    error(string.format('[nn.ClassNLLCriterion] target out of range: classes are 1..%d, got %d..%d', c,
      safe:min(), safe:max()), 0)
  end
  local w = valid:typeAs(batch)
  if self.weights then w:cmul(self.weights:typeAs(batch):index(1, safe)) end
  return batch, safe:view(n, 1), w
end

function ClassNLLCriterion:updateOutput(input, target)
  local batch, t, w = prepare(self, input, target)
  local picked = batch:gather(2, t):view(-1)
  local total = -torch.dot(picked, w)
  local norm = self.sizeAverage and w:sum() or 1
  self.total_weight = norm
  self.output = norm ~= 0 and total / norm or 0
  return self.output
end

function ClassNLLCriterion:updateGradInput(input, target)
  local batch, t, w = prepare(self, input, target)
  local norm = self.sizeAverage and w:sum() or 1
  local g = batch.new(batch:size()):zero()
  if norm ~= 0 then g:scatter(2, t, torch.mul(w, -1 / norm):view(-1, 1)) end
  self.gradInput = g:viewAs(input)
  return self.gradInput
end

return ClassNLLCriterion
