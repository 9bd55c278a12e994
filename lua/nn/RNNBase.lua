-- nn.RNNBase: multi-layer recurrent modules over whole sequences (nn.RNN, nn.LSTM, nn.GRU), with
-- PyTorch's parameters (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, ... per layer), gate
-- order and initialization, driving the fused layer op torch.rnnLayer.
--
-- Note [Recurrent modules and autograd]: forward records the fused layers as C++ autograd nodes
-- that keep their own state, so loss:backward() is exact even when a module is applied several
-- times in one graph (cells in a loop). The module also keeps the state of its last forward for
-- Torch7's backward/updateGradInput/accGradParameters, which call the same fused backward; that
-- path checks it is given the input of the last forward (Torch7 silently used stale state). The
-- dropout masks between layers are drawn once per forward and shared by both paths.
-- bidirectional = true adds PyTorch's *_reverse parameters (nn/rnn_bidirectional.lua, Note
-- [Reverse direction by flipping time]); a nn.PackedSequence input runs nn/rnn_packed.lua. An LSTM
-- with projSize > 0 (weight_hr_l*) and a batch of size 0 run composites of differentiable ops
-- instead of the fused op (nn/rnn_projected.lua); every layer goes through m:_runLayer.
local RNNBase, parent = torch.class('nn.RNNBase', 'nn.Module')
local user_level = torch._lib.user_level
local layer = require 'nn.rnn_bidirectional'
local packed = require 'nn.rnn_packed'
local projected = require 'nn.rnn_projected'

local gates = { LSTM = 4, GRU = 3, RNN_TANH = 1, RNN_RELU = 1 }
local known = { numLayers = true, nonlinearity = true, dropout = true, batchFirst = true, bias = true,
                bidirectional = true, projSize = true }
local aliases = { num_layers = 'numLayers', batch_first = 'batchFirst', proj_size = 'projSize' }

local function describe(x)
  if torch.isTensor(x) then return torch.type(x) .. ' of size ' .. table.concat(x:size():totable(), 'x') end
  return torch.type(x)
end
RNNBase._describe = describe

-- Options: nn.LSTM(inputSize, hiddenSize [, numLayers] [, {numLayers=, dropout=, batchFirst=, bias=,
-- bidirectional=, projSize= (LSTM only)}]).
function RNNBase:__init(mode, inputSize, hiddenSize, a3, a4)
  parent.__init(self)
  local cls = torch.typename(self) or 'nn.RNNBase'
  local opts = type(a3) == 'table' and a3 or a4 or {}
  if type(opts) ~= 'table' then error(string.format('[%s] options must be a table, got %s', cls, type(opts)), user_level()) end
  local o = {}
  for k, v in pairs(opts) do
    local name = aliases[k] or k
    if name == 'projSize' and mode ~= 'LSTM' then
      -- PyTorch 1.13 refuses proj_size for RNN and GRU, even 0
      error(string.format('[%s] %s is only supported for nn.LSTM, not nn.RNN or nn.GRU', cls, k), user_level())
    end
    if not known[name] or (name == 'nonlinearity' and cls ~= 'nn.RNN') then
      error(string.format('[%s] unknown option %s', cls, tostring(k)), user_level())
    end
    o[name] = v
  end
  if type(a3) == 'number' then o.numLayers = a3 end
  local layers = o.numLayers or 1
  local sizes = { inputSize, hiddenSize, layers }
  for i = 1, 3 do  -- not ipairs: it stops at a missing (nil) size
    local v = sizes[i]
    if type(v) ~= 'number' or v < 1 or v % 1 ~= 0 then
      error(string.format('[%s] expected positive integer sizes (inputSize, hiddenSize, numLayers), got %s, %s, %s',
        cls, tostring(inputSize), tostring(hiddenSize), tostring(layers)), user_level())
    end
  end
  local proj = o.projSize or 0
  if type(proj) ~= 'number' or proj < 0 or proj % 1 ~= 0 or proj >= hiddenSize then
    error(string.format('[%s] projSize must be an integer in [0, hiddenSize = %d) (0: no projections), got %s', cls,
      hiddenSize, type(proj) == 'number' and tostring(proj) or describe(proj)), user_level())
  end
  local p = o.dropout or 0
  if type(p) ~= 'number' or p < 0 or p >= 1 then
    error(string.format('[%s] dropout must be a number in [0, 1), got %s', cls, tostring(p)), user_level())
  end
  -- A number here (PyTorch's batch_first=1, bias=0) would be read by Lua's truthiness, not
  -- Python's: refuse it rather than silently run another layout or keep the biases.
  for _, flag in ipairs({ 'bidirectional', 'batchFirst', 'bias' }) do
    local v = o[flag]
    if v ~= nil and type(v) ~= 'boolean' then
      error(string.format('[%s] %s must be a boolean, got %s', cls, flag, describe(v)), user_level())
    end
  end
  if mode == 'RNN' then
    local nl = o.nonlinearity or 'tanh'
    if nl ~= 'tanh' and nl ~= 'relu' then
      error(string.format("[%s] nonlinearity must be 'tanh' or 'relu', got %s", cls, tostring(nl)), user_level())
    end
    self.nonlinearity = nl
    mode = nl == 'tanh' and 'RNN_TANH' or 'RNN_RELU'
  end
  self.mode, self.inputSize, self.hiddenSize, self.numLayers = mode, inputSize, hiddenSize, layers
  self.dropout, self.batchFirst, self.bias = p, o.batchFirst == true, o.bias ~= false
  self.bidirectional = o.bidirectional == true
  self.projSize = proj
  self:_makeParams(layers, function(l) return '_l' .. (l - 1) end, self.bidirectional and 2 or 1)
end

-- Creates weight_ih<suffix>, weight_hh, bias_ih, bias_hh (and weight_hr with projections) per layer
-- and direction (the reverse one with PyTorch's suffix _reverse), in PyTorch's order, and their
-- gradWeight*/gradBias*; set k = (l - 1) * dirs + d.
function RNNBase:_makeParams(layers, suffix, dirs)
  dirs = dirs or 1
  local H, P = self.hiddenSize, self:_outSize()
  local gh, names = gates[self.mode] * H, {}
  self._layerNames, self._stateParams = {}, names
  self._projNames = self:_projected() and {} or nil
  for l = 1, layers do
    for d = 1, dirs do
      local s = suffix(l) .. (d == 2 and '_reverse' or '')
      local inSize = l == 1 and self.inputSize or P * dirs
      local ln = { 'weight_ih' .. s, 'weight_hh' .. s }
      if self.bias then ln[3], ln[4] = 'bias_ih' .. s, 'bias_hh' .. s end
      self._layerNames[#self._layerNames + 1] = ln
      local sizes = { { gh, inSize }, { gh, P }, { gh }, { gh } }
      local all = { unpack(ln) }
      if self._projNames then
        self._projNames[#self._layerNames] = 'weight_hr' .. s
        all[#all + 1], sizes[#all + 1] = 'weight_hr' .. s, { P, H }
      end
      for k, name in ipairs(all) do
        self[name] = torch.Tensor(unpack(sizes[k]))
        self[RNNBase._gradName(name)] = torch.Tensor(unpack(sizes[k]))
        names[#names + 1] = name
      end
    end
  end
  self:reset()
end

-- Whether this is an LSTM with projections (modules saved before projSize existed have none).
function RNNBase:_projected() return (self.projSize or 0) > 0 end
-- The size of the hidden state h and of the output features per direction: projSize or hiddenSize.
function RNNBase:_outSize() return self:_projected() and self.projSize or self.hiddenSize end

-- Parameter set k over x (T x B x F, B > 0) from h0, c0 (B x out, B x hiddenSize, or nil): output,
-- hN, cN and the fused op's workspace; the composite of nn/rnn_projected.lua with projections (no
-- workspace then).
function RNNBase:_runLayer(k, x, h0, c0)
  if self:_projected() then return projected.layer(self, k, x, h0, c0) end
  local wih, whh, bih, bhh = self:_layer(k)
  return torch.rnnLayer(self.mode, x, h0, c0, wih, whh, bih, bhh)
end

function RNNBase._gradName(name) return (name:gsub('^weight', 'gradWeight'):gsub('^bias', 'gradBias')) end

-- The parameters of set k (layer and direction): w_ih, w_hh, b_ih, b_hh and their gradients
-- (biases nil without bias).
function RNNBase:_layer(k)
  local n = self._layerNames[k]
  local g = RNNBase._gradName
  return self[n[1]], self[n[2]], n[3] and self[n[3]], n[4] and self[n[4]],
    self[g(n[1])], self[g(n[2])], n[3] and self[g(n[3])], n[4] and self[g(n[4])]
end

--- m:reset([stdv]): every weight and bias uniform(-stdv, stdv), stdv = 1/sqrt(hiddenSize) by
--- default (PyTorch's initialization); zeroes the gradients.
function RNNBase:reset(stdv)
  stdv = stdv or 1 / math.sqrt(self.hiddenSize)
  for _, name in ipairs(self._stateParams) do
    self[name]:uniform(-stdv, stdv)
    self[RNNBase._gradName(name)]:zero()
  end
  nn.utils.linkGradients(self)
  return self
end

--- m:parameters(): per layer weight_ih, weight_hh, bias_ih, bias_hh (and weight_hr with
--- projections), then the same *_reverse ones when bidirectional (PyTorch's order), and the
--- matching gradWeight_*, gradBias_* tensors.
function RNNBase:parameters()
  local ps, gs = {}, {}
  for k, name in ipairs(self._stateParams) do
    ps[k], gs[k] = self[name], self[RNNBase._gradName(name)]
  end
  return ps, gs
end

--- m:share(other, names...): like nn.Module's; 'weight', 'bias', 'gradWeight' and 'gradBias'
--- stand for every weight_*, bias_*, gradWeight_* and gradBias_* tensor of the module.
function RNNBase:share(other, ...)
  local names = {}
  for _, name in ipairs({ ... }) do
    local prefix = ({ weight = 'weight_', bias = 'bias_', gradWeight = 'gradWeight_', gradBias = 'gradBias_' })[name]
    if prefix then
      for _, p in ipairs(self._stateParams) do
        local field = name:sub(1, 4) == 'grad' and RNNBase._gradName(p) or p
        if field:sub(1, #prefix) == prefix then names[#names + 1] = field end
      end
    else
      names[#names + 1] = name
    end
  end
  return parent.share(self, other, unpack(names))
end

--- m:forward(input): runs the module (see updateOutput); m.output, m.hN (and m.cN) are set.
function RNNBase:forward(input)
  -- Not a coarse node: the fused layers record themselves (Note [Recurrent modules and autograd]).
  return self:updateOutput(input)
end

local function fail(self, fmt, ...) error(string.format('[%s] ' .. fmt, tostring(self), ...), user_level()) end
RNNBase._fail = fail

-- Checks a state tensor (h0, c0 or a gradient of hN/cN) against the expected size.
function RNNBase:_checkState(name, t, want)
  if t == nil then return nil end
  if not torch.isTensor(t) or t:dim() ~= #want then
    fail(self, '%s must be a %s tensor, got %s', name, table.concat(want, 'x'), describe(t))
  end
  for d = 1, #want do
    if t:size(d) ~= want[d] then fail(self, '%s must be %s, got %s', name, table.concat(want, 'x'), describe(t)) end
  end
  if torch.type(t) ~= torch.type(self.weight_ih_l0 or self.weight_ih) then
    fail(self, '%s is a %s but the parameters are %s', name, torch.type(t), torch.type(self.weight_ih_l0 or self.weight_ih))
  end
  return t
end

-- input -> x (time-major, batched), h0, c0 (layers x batch x hidden or nil), unbatched.
function RNNBase:_parse(input)
  local x, h0, c0
  if torch.isTensor(input) then x = input
  elseif type(input) == 'table' then x, h0, c0 = input[1], input[2], input[3]
  else fail(self, 'expected a tensor or a table {input, h0%s}, got %s', self.mode == 'LSTM' and ', c0' or '', describe(input)) end
  local I = self.inputSize
  local layout = self.batchFirst and 'batch x seqLen' or 'seqLen x batch'
  if not torch.isTensor(x) or (x:dim() ~= 3 and x:dim() ~= 2) or x:size(x:dim()) ~= I then
    fail(self, 'expected input of size %s x %d (or seqLen x %d), got %s', layout, I, I, describe(x))
  end
  if torch.type(x) ~= torch.type(self.weight_ih_l0) then
    fail(self, 'input is a %s but the parameters are %s (convert one with :type())', torch.type(x), torch.type(self.weight_ih_l0))
  end
  if self.mode == 'LSTM' and (h0 == nil) ~= (c0 == nil) then fail(self, 'expects {input, h0, c0}: give both states or neither') end
  if self.mode ~= 'LSTM' and c0 ~= nil then fail(self, 'has no cell state: expected {input, h0}, got a third entry') end
  local unbatched = x:dim() == 2
  local given = x
  if self.batchFirst and not unbatched then x = x:transpose(1, 2) end
  if x:size(1) == 0 then
    -- PyTorch 1.13 refuses it too ("Expected sequence length to be larger than 0 in RNN")
    fail(self, 'expected a sequence length of at least 1, got input %s (the sequence length and the batch size '
      .. 'must be positive, except a batch of size 0, which gives empty outputs)', describe(given))
  end
  local L, B, H, P = self:_numStates(), x:size(unbatched and 1 or 2), self.hiddenSize, self:_outSize()
  h0 = self:_checkState('h0', h0, unbatched and { L, P } or { L, B, P })
  c0 = self:_checkState('c0', c0, unbatched and { L, H } or { L, B, H })
  if unbatched then
    x = x:unsqueeze(2)
    h0, c0 = h0 and h0:unsqueeze(2), c0 and c0:unsqueeze(2)
  end
  return x, h0, c0, unbatched
end

-- A sequence-major B-batched tensor back in the caller's layout (and the reverse).
function RNNBase:_toCaller(t, unbatched)
  if unbatched then return t:squeeze(2) end
  if self.batchFirst then return t:transpose(1, 2):contiguous() end
  return t
end
local function stack_states(list, unbatched)
  local s = #list == 1 and list[1]:unsqueeze(1) or torch.stack(list, 1)
  return unbatched and s:squeeze(2) or s
end

-- The number of initial/final states: numLayers, times 2 when bidirectional.
function RNNBase:_numStates() return self.numLayers * (self.bidirectional and 2 or 1) end

--- m:updateOutput(input): input is a sequence (seqLen x batch x inputSize, batch x seqLen x
--- inputSize with batchFirst, or seqLen x inputSize unbatched), a nn.PackedSequence, or a table
--- {input, h0} ({input, h0, c0} for LSTM) with initial states of size S x batch x hiddenSize, S =
--- numLayers (2 * numLayers when bidirectional: layer 1 forward, layer 1 reverse, layer 2...).
--- Returns the last layer's hidden state at every step (seqLen x batch x hiddenSize, 2 *
--- hiddenSize when bidirectional: forward then reverse features, in the input's layout; a
--- PackedSequence for a packed input, which batchFirst does not apply to, as in PyTorch); m.hN (and
--- m.cN for LSTM) hold the final states (S x batch x hiddenSize; a packed sequence's at its own
--- last step, in the caller's batch order). With projSize = P, h0, hN and the output features are
--- of size P instead (c0 and cN keep hiddenSize). A batch of size 0 gives empty outputs and states.
--- Example: nn.LSTM(3, 4, 2, {projSize = 2, bidirectional = true}):forward(torch.randn(5, 1, 3))
function RNNBase:updateOutput(input)
  if packed.isPacked(input) then return packed.updateOutput(self, input) end
  local x, h0, c0, unbatched = self:_parse(input)
  if x:size(2) == 0 then  -- Note [Recurrent layers over an empty batch]
    local y
    y, self.hN, self.cN = projected.empty(self, x, h0, c0)
    self.output = self:_toCaller(y, false)
    self._state = { input = input, empty = true, hasH0 = h0 ~= nil }
    return self.output
  end
  local cur, hs, cs, layers, masks = self:_run(x, h0, c0)
  self.output = self:_toCaller(cur, unbatched)
  self.hN = stack_states(hs, unbatched)
  self.cN = self.mode == 'LSTM' and stack_states(cs, unbatched) or nil
  self._state = { input = input, layers = layers, unbatched = unbatched, hasH0 = h0 ~= nil, masks = masks,
                  projected = self:_projected() }
  return self.output
end

-- The layers over x (time-major, batched) from h0, c0: the last one's output, the final states of
-- each parameter set, the state of each layer for backward and the dropout masks between layers
-- (drawn unless given: a replay reuses those of its forward).
function RNNBase:_run(x, h0, c0, masks)
  local L, p = self.numLayers, self.dropout
  local draw = masks == nil and p > 0 and self.train ~= false and L > 1
  masks = masks or {}
  local layers, hs, cs, cur = {}, {}, {}, x
  for l = 1, L do
    local y, dirs = layer.forward(self, l, cur, h0, c0, hs, cs)
    layers[l] = { dirs = dirs }
    cur = y
    if draw and l < L then masks[l] = y.new(y:size()):bernoulli(1 - p):div(1 - p) end
    if masks[l] and l < L then
      layers[l].mask = masks[l]
      cur = torch.cmul(y, masks[l])
    end
  end
  return cur, hs, cs, layers, masks
end

-- Whether a and b hold the same values (the same view, or equal elements), elementwise in tables.
local function same_input(a, b)
  if rawequal(a, b) then return true end
  if torch.isTensor(a) and torch.isTensor(b) then
    local p, q = a.p, b.p
    if p.ndim ~= q.ndim then return false end
    local same_view = p.storage == q.storage and p.storage_offset == q.storage_offset
    for d = 0, p.ndim - 1 do
      if p.size[d] ~= q.size[d] then return false end
      if p.stride[d] ~= q.stride[d] then same_view = false end
    end
    -- A copy of the input (m:backward(x:float(), ...)) is as good as the input itself.
    return same_view or torch.equal(a, b)
  elseif packed.isSequence(a) or packed.isSequence(b) then
    return packed.isSequence(a) and packed.isSequence(b) and same_input(a.data, b.data)
      and torch.equal(a.batchSizes, b.batchSizes) and same_input(a.sortedIndices, b.sortedIndices)
  elseif type(a) == 'table' and type(b) == 'table' then
    for i = 1, math.max(#a, #b, 3) do
      if not same_input(a[i], b[i]) then return false end
    end
    return true
  end
  return false
end

-- The state of the last forward, refusing a backward for another input (see the Note above).
function RNNBase:_lastForward(input)
  local st = self._state
  if not st then fail(self, 'backward called before forward') end
  if not same_input(st.input, input) then
    fail(self, "backward got another input than the last forward (Torch7-style backward uses the state of the last "
      .. "forward): clone the module for each use (m:clone('weight', 'bias', 'gradWeight', 'gradBias')) or use loss:backward()")
  end
  return st
end

-- gradOutput -> gradient of the output (time-major, batched), of hN and of cN (layers x B x H).
function RNNBase:_parseGrad(st, gradOutput)
  local gy, gh, gc = gradOutput, nil, nil
  if type(gradOutput) == 'table' then gy, gh, gc = gradOutput[1], gradOutput[2], gradOutput[3] end
  if gy ~= nil and (not torch.isTensor(gy) or not gy:isSameSizeAs(self.output)) then
    fail(self, 'gradOutput must be a tensor of the output size %s (or a table {gradOutput, gradHN%s}), got %s',
      table.concat(self.output:size():totable(), 'x'), self.mode == 'LSTM' and ', gradCN' or '', describe(gy))
  end
  gh = self:_checkState('gradHN', gh, self.hN:size():totable())
  gc = self.mode == 'LSTM' and self:_checkState('gradCN', gc, self.cN:size():totable()) or nil
  if st.unbatched then
    gy, gh, gc = gy and gy:unsqueeze(2), gh and gh:unsqueeze(2), gc and gc:unsqueeze(2)
  elseif gy and self.batchFirst then
    gy = gy:transpose(1, 2)
  end
  return gy, gh, gc
end

--- m:updateGradInput(input, gradOutput): Torch7's backward for the input and initial states.
--- gradOutput is the gradient of the output, or a table {gradOutput, gradHN[, gradCN]} (nil
--- entries are zero). gradInput matches input: a tensor, or {gradInput, gradH0[, gradC0]}. For a
--- packed input gradOutput's first entry is a PackedSequence (or its data's gradient) and so is
--- gradInput's (Note [Torch7 backward of packed calls] in nn/rnn_packed.lua).
function RNNBase:updateGradInput(input, gradOutput)
  local st = self:_lastForward(input)
  if st.packed then return packed.updateGradInput(self, st, gradOutput) end
  if st.projected then return projected.updateGradInput(self, st, gradOutput) end
  if st.empty then return projected.emptyGradInput(self, st) end
  local dy, gh, gc = self:_parseGrad(st, gradOutput)
  local L = self.numLayers
  local dh0s, dc0s, dx = {}, {}, nil
  for l = L, 1, -1 do
    dx = layer.backward(self, st.layers[l].dirs, dy, gh, gc, dh0s, dc0s)
    local below = st.layers[l - 1]
    if below then dy = below.mask and torch.cmul(dx, below.mask) or dx end
  end
  st.gradOutput = gradOutput
  local gx = self:_toCaller(dx, st.unbatched)
  if torch.isTensor(input) then
    self.gradInput = gx
  else
    self.gradInput = { gx }
    if st.hasH0 then
      self.gradInput[2] = stack_states(dh0s, st.unbatched)
      if self.mode == 'LSTM' then self.gradInput[3] = stack_states(dc0s, st.unbatched) end
    end
  end
  return self.gradInput
end

--- m:accGradParameters(input, gradOutput[, scale]): adds scale times the parameter gradients into
--- gradWeight_* and gradBias_* (one GEMM per weight over the whole sequence).
function RNNBase:accGradParameters(input, gradOutput, scale)
  local st = self:_lastForward(input)
  if st.packed then return packed.accGradParameters(self, st, gradOutput, scale) end
  if st.projected then return projected.accGradParameters(self, st, gradOutput, scale) end
  if st.empty then return end  -- an empty batch adds nothing
  if not rawequal(st.gradOutput, gradOutput) or not st.layers[1].dirs[1].dg then self:updateGradInput(input, gradOutput) end
  for l = 1, self.numLayers do layer.weightGrads(self, st.layers[l].dirs, scale or 1) end
end

--- m:clearState(): drops the state kept for backward, the output and the final states.
function RNNBase:clearState()
  self:_dropState()
  return parent.clearState(self)
end

--- m:type(name): converts the parameters (the state of the last forward is dropped).
function RNNBase:type(name, cache)
  if name then self:_dropState() end
  return parent.type(self, name, cache)
end

-- Drops the state of the last forward; a packed output or gradInput goes too (converting it would
-- turn its index tensors into floats).
function RNNBase:_dropState()
  self._state, self.hN, self.cN = nil, nil, nil
  if packed.isPacked(self.output) then self.output = torch.Tensor() end
  if packed.isPacked(self.gradInput) then self.gradInput = torch.Tensor() end
end

function RNNBase:__tostring__()
  local extra = {}
  if self.numLayers > 1 then extra[#extra + 1] = self.numLayers .. ' layers' end
  if self:_projected() then extra[#extra + 1] = 'projSize ' .. self.projSize end
  if self.bidirectional then extra[#extra + 1] = 'bidirectional' end
  if self.mode == 'RNN_RELU' then extra[#extra + 1] = 'relu' end
  if self.dropout > 0 then extra[#extra + 1] = 'dropout ' .. self.dropout end
  if self.batchFirst then extra[#extra + 1] = 'batchFirst' end
  if not self.bias then extra[#extra + 1] = 'without bias' end
  return string.format('%s(%d -> %d%s)', torch.typename(self), self.inputSize, self.hiddenSize,
    #extra > 0 and ', ' .. table.concat(extra, ', ') or '')
end

return RNNBase
