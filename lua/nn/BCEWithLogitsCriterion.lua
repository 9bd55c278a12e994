-- nn.BCEWithLogitsCriterion([weights][, posWeight][, sizeAverage=true]): binary cross-entropy of
-- sigmoid(x) against targets y, computed from the logits x without overflow (PyTorch's
-- BCEWithLogitsLoss): w ((1 - y) x + (1 + (p - 1) y) softplus(-x)), with p the weight of positive
-- examples per column. Divided by the element count when sizeAverage. weights and posWeight
-- broadcast against the input (a vector weighs the last dim).
local BCEWithLogitsCriterion, parent = torch.class('nn.BCEWithLogitsCriterion', 'nn.Criterion')

--- nn.BCEWithLogitsCriterion([weights, posWeight, sizeAverage=true]).
function BCEWithLogitsCriterion:__init(weights, posWeight, sizeAverage)
  parent.__init(self)
  for _, t in ipairs({ { 'weights', weights }, { 'posWeight', posWeight } }) do
    if t[2] ~= nil and not torch.isTensor(t[2]) then
      error(string.format('[nn.BCEWithLogitsCriterion] %s must be a tensor, got %s', t[1], nn.utils.describe(t[2])), torch._lib.user_level())
    end
  end
  self.weights = weights
  self.posWeight = posWeight
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

-- t converted to input's type and checked to broadcast against it.
function BCEWithLogitsCriterion:_broadcast(t, input, name)
  if not t then return nil end
  if t.p.dtype ~= input.p.dtype then t = t:typeAs(input) end
  local nd, td = input:dim(), t:dim()
  local ok = td <= nd
  for i = 0, td - 1 do
    local a, b = t:size(td - i), input:size(nd - i)
    if a ~= b and a ~= 1 then ok = false end
  end
  if not ok then
    error(string.format('[%s] %s %s does not broadcast to the input %s', tostring(self), name,
      nn.utils.describe(t), nn.utils.describe(input)), torch._lib.user_level())
  end
  return t
end

-- (softplus(-x), the per-element factor 1 + (p - 1) y, weights)
function BCEWithLogitsCriterion:_parts(input, target)
  local w = self:_broadcast(self.weights, input, 'weights')
  local pw = self:_broadcast(self.posWeight, input, 'posWeight')
  local sp = torch.abs(nn.utils.buffer(self._sp, input), input):neg():exp():log1p()
  self._m = torch.neg(nn.utils.buffer(self._m, input), input):relu()
  sp:add(self._m)
  self._sp = sp
  local lw
  if pw then
    lw = torch.cmul(nn.utils.buffer(self._lw, input), target, torch.add(pw, -1)):add(1)
    self._lw = lw
  end
  return sp, lw, w
end

function BCEWithLogitsCriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local sp, lw, w = self:_parts(input, target)
  if lw then sp:cmul(lw) end
  -- (1 - y) x + lw sp
  local l = torch.mul(nn.utils.buffer(self._m, input), target, -1):add(1):cmul(input):add(sp)
  self._m = l
  if w then l:cmul(w) end
  local s = l:sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- d/dx = w (sigmoid(x) lw - p y); without posWeight, w (sigmoid(x) - y).
function BCEWithLogitsCriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  local _, lw, w = self:_parts(input, target)
  local g = torch.sigmoid(self.gradInput, input)
  if lw then
    g:cmul(lw)
    local pw = self:_broadcast(self.posWeight, input, 'posWeight')
    g:add(-1, torch.cmul(nn.utils.buffer(self._m, input), target, pw))
  else
    g:add(-1, target)
  end
  if w then g:cmul(w) end
  self.gradInput = g:mul(norm)
  return self.gradInput
end

return BCEWithLogitsCriterion
