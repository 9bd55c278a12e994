-- nn.RNNCellBase: one time step of a recurrent layer (nn.RNNCell, nn.LSTMCell, nn.GRUCell) with
-- PyTorch's parameters (weight_ih, weight_hh, bias_ih, bias_hh). A cell is a one-layer RNN run for
-- one step, so it shares nn.RNNBase's parameter plumbing and its fused op; applied in a loop it
-- stays exact under loss:backward() (Note [Recurrent modules and autograd] in nn/RNNBase.lua). A
-- batch of size 0 gives empty states, as PyTorch's (Note [Recurrent layers over an empty batch]).
require 'nn.RNNBase'
local projected = require 'nn.rnn_projected'
local RNNCellBase, parent = torch.class('nn.RNNCellBase', 'nn.RNNBase')
local describe, fail = nn.RNNBase._describe, nn.RNNBase._fail

-- mode: 'LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU'; bias defaults to true.
function RNNCellBase:__init(mode, inputSize, hiddenSize, bias)
  nn.Module.__init(self)
  local cls = torch.typename(self) or 'nn.RNNCellBase'
  if type(inputSize) ~= 'number' or type(hiddenSize) ~= 'number' or inputSize < 1 or hiddenSize < 1
      or inputSize % 1 ~= 0 or hiddenSize % 1 ~= 0 then
    error(string.format('[%s] expected positive integer sizes (inputSize, hiddenSize), got %s and %s', cls,
      tostring(inputSize), tostring(hiddenSize)), torch._lib.user_level())
  end
  -- A non-boolean bias is a mistake (nn.RNNCell(3, 4, 'relu') meant the nonlinearity; PyTorch's
  -- bias=0 means none), not a true value.
  if bias ~= nil and type(bias) ~= 'boolean' then
    error(string.format('[%s] bias must be a boolean, got %s', cls, type(bias) == 'string' and "'" .. bias .. "'"
      or type(bias) == 'number' and tostring(bias) or describe(bias)), torch._lib.user_level())
  end
  self.mode, self.inputSize, self.hiddenSize, self.numLayers = mode, inputSize, hiddenSize, 1
  self.dropout, self.batchFirst, self.bias = 0, false, bias ~= false
  self:_makeParams(1, function() return '' end)
end

-- input -> x (1 x B x I), h (B x H or nil), c, unbatched.
function RNNCellBase:_parse(input)
  local x, h, c
  local lstm = self.mode == 'LSTM'
  if torch.isTensor(input) then x = input
  elseif type(input) == 'table' then x, h, c = input[1], input[2], input[3]
  else fail(self, 'expected a tensor or a table {input, h%s}, got %s', lstm and ', c' or '', describe(input)) end
  local I = self.inputSize
  if not torch.isTensor(x) or (x:dim() ~= 2 and x:dim() ~= 1) or x:size(x:dim()) ~= I then
    fail(self, 'expected input of size batch x %d (or %d), got %s', I, I, describe(x))
  end
  if torch.type(x) ~= torch.type(self.weight_ih) then
    fail(self, 'input is a %s but the parameters are %s (convert one with :type())', torch.type(x), torch.type(self.weight_ih))
  end
  if lstm and (h == nil) ~= (c == nil) then fail(self, 'expects {input, h, c}: give both states or neither') end
  if not lstm and c ~= nil then fail(self, 'has no cell state: expected {input, h}, got a third entry') end
  local unbatched = x:dim() == 1
  local want = unbatched and { self.hiddenSize } or { x:size(1), self.hiddenSize }
  h = self:_checkState('h', h, want)
  c = self:_checkState('c', c, want)
  if unbatched then
    x = x:view(1, I)
    h, c = h and h:view(1, -1), c and c:view(1, -1)
  end
  return x:unsqueeze(1), h, c, unbatched
end

--- m:updateOutput(input): input is x (batch x inputSize, or inputSize) or {x, h} ({x, h, c} for
--- LSTMCell), with states of size batch x hiddenSize (zeros when absent). Returns the next h, or
--- {h, c} for LSTMCell (of size 0 x hiddenSize for a batch of size 0).
--- Example: nn.LSTMCell(3, 4):forward({torch.randn(2, 3), torch.zeros(2, 4), torch.zeros(2, 4)})
function RNNCellBase:updateOutput(input)
  local x, h, c, unbatched = self:_parse(input)
  if x:size(2) == 0 then  -- Note [Recurrent layers over an empty batch]
    local _, hN, cN = projected.empty(self, x, h and h:unsqueeze(1), c and c:unsqueeze(1))
    self.output = self.mode == 'LSTM' and { hN:select(1, 1), cN:select(1, 1) } or hN:select(1, 1)
    self._state = { input = input, empty = true }
    return self.output
  end
  local y, hn, cn, ws = self:_runLayer(1, x, h, c)
  if unbatched then hn, cn = hn:view(-1), cn and cn:view(-1) end
  self.output = self.mode == 'LSTM' and { hn, cn } or hn
  self._state = { input = input, x = x, h = h, c = c, y = y, ws = ws, unbatched = unbatched }
  return self.output
end

--- m:updateGradInput(input, gradOutput): gradOutput is the gradient of h ({gradH, gradC} for
--- LSTMCell; a nil entry is zero). gradInput matches input: a tensor, or {gradX, gradH[, gradC]}.
function RNNCellBase:updateGradInput(input, gradOutput)
  local st = self:_lastForward(input)
  if st.empty then return projected.emptyGradInput(self, st) end
  local gh, gc = gradOutput, nil
  if self.mode == 'LSTM' then
    if type(gradOutput) ~= 'table' then fail(self, 'gradOutput must be a table {gradH, gradC}, got %s', describe(gradOutput)) end
    gh, gc = gradOutput[1], gradOutput[2]
  end
  local want = st.unbatched and { self.hiddenSize } or { st.x:size(2), self.hiddenSize }
  gh = self:_checkState('gradH', gh, want)
  gc = self:_checkState('gradC', gc, want)
  if st.unbatched then gh, gc = gh and gh:view(1, -1), gc and gc:view(1, -1) end
  local wih, whh = self:_layer(1)
  local dx, dh, dc
  dx, dh, dc, st.dg = torch._rnnLayerBackward(self.mode, st.x, st.h, st.c, wih, whh, st.y, st.ws, nil, gh, gc, true)
  dx = dx:select(1, 1)
  if st.unbatched then dx, dh, dc = dx:view(-1), dh and dh:view(-1), dc and dc:view(-1) end
  st.gradOutput = gradOutput
  if torch.isTensor(input) then self.gradInput = dx
  else self.gradInput = { dx, dh, dc } end
  return self.gradInput
end

--- m:accGradParameters(input, gradOutput[, scale]): adds scale times the parameter gradients into
--- gradWeight_ih, gradWeight_hh, gradBias_ih and gradBias_hh.
function RNNCellBase:accGradParameters(input, gradOutput, scale)
  local st = self:_lastForward(input)
  if st.empty then return end  -- an empty batch adds nothing
  if not rawequal(st.gradOutput, gradOutput) or not st.dg then self:updateGradInput(input, gradOutput) end
  local _, _, _, _, gwih, gwhh, gbih, gbhh = self:_layer(1)
  torch._rnnLayerWeightGrads(self.mode, st.x, st.h, st.y, st.dg, scale or 1, gwih, gwhh, gbih, gbhh)
end

function RNNCellBase:__tostring__()
  local extra = {}
  if self.mode == 'RNN_RELU' then extra[#extra + 1] = 'relu' end
  if not self.bias then extra[#extra + 1] = 'without bias' end
  return string.format('%s(%d -> %d%s)', torch.typename(self), self.inputSize, self.hiddenSize,
    #extra > 0 and ', ' .. table.concat(extra, ', ') or '')
end

return RNNCellBase
