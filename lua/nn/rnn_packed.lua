-- nn.RNN / nn.LSTM / nn.GRU on a nn.PackedSequence (PyTorch's packed input): the forward by runs
-- of steps with a constant batch size, each sequence's final state at its own last step, and
-- Torch7's backward of a packed call, for nn/RNNBase.lua.
--
-- Note [Recurrent layers on packed sequences]: the sequences of a packed batch are sorted longest
-- first, so between two changes of batchSizes the first b sequences all advance together: such a
-- run of steps is a contiguous block of data (steps x b rows) and one fused torch.rnnLayer call.
-- The forward direction narrows its state to the sequences still running when a run starts (the
-- rows dropped are those sequences' final states); the reverse direction walks the runs from the
-- last one, each sequence starting (from its h0, or zeros) at its own last step, and the rows of
-- sequences that join it are appended to the state. Padding therefore never enters a state, and
-- no data is padded or gathered: the cost is one fused call per distinct length per layer and
-- direction (plus a flip of each run for the reverse one), instead of one for the whole batch.
-- A run is one m:_runLayer call, so an LSTM with projections runs its composite layer there (Note
-- [LSTM projections as a composite]; h is projSize wide, c hiddenSize).
--
-- Note [Torch7 backward of packed calls]: the fused state of many runs would have to be chained
-- by hand, so updateGradInput replays the packed forward from detached inputs with recording on
-- and asks autograd for every gradient (the dropout masks of the last forward are reused), as
-- nn.Module does for modules without updateGradInput (Note [Torch7 calls on autograd modules]):
-- one extra forward per backward; accGradParameters reuses the parameter gradients of that replay.
require 'nn.PackedSequence'
local M = {}

function M.isSequence(x) return torch.typename(x) == 'nn.PackedSequence' end
-- Whether input is a PackedSequence or a table {PackedSequence, h0[, c0]}.
function M.isPacked(input)
  return M.isSequence(input) or (type(input) == 'table' and torch.typename(input) == nil and M.isSequence(input[1]))
end

-- The runs of steps with a constant batch size: { off = rows before, nt = steps, b = batch size }.
local function runs(batchSizes)
  local list, off = {}, 0
  for _, b in ipairs(batchSizes:totable()) do
    local last = list[#list]
    if last and last.b == b then last.nt = last.nt + 1
    else list[#list + 1] = { off = off, nt = 1, b = b } end
    off = off + b
  end
  return list
end

local function block(X, r) return X:narrow(1, r.off + 1, r.nt * r.b):view(r.nt, r.b, X:size(2)) end

-- The forward direction of parameter set k over data X (rows x F): output rows and final states
-- (batch x out and batch x hiddenSize, sorted order).
local function forward_dir(m, k, rs, X, h, c)
  local outs, hfin, cfin = {}, {}, {}
  for i, r in ipairs(rs) do
    if h and h:size(1) > r.b then  -- the sequences of rows b+1.. ended with the previous run
      table.insert(hfin, 1, h:narrow(1, r.b + 1, h:size(1) - r.b))
      if c then table.insert(cfin, 1, c:narrow(1, r.b + 1, c:size(1) - r.b)) end
      h, c = h:narrow(1, 1, r.b), c and c:narrow(1, 1, r.b)
    end
    local y
    y, h, c = m:_runLayer(k, block(X, r), h, c)
    outs[i] = y:view(r.nt * r.b, m:_outSize())
  end
  table.insert(hfin, 1, h)
  if c then table.insert(cfin, 1, c) end
  return torch.cat(outs, 1), torch.cat(hfin, 1), c and torch.cat(cfin, 1)
end

-- The reverse direction: runs from the last; sequences join at their last step with h0 (or zeros).
local function reverse_dir(m, k, rs, X, h0, c0)
  local lstm, H, P = m.mode == 'LSTM', m.hiddenSize, m:_outSize()
  local outs, h, c, have = {}, nil, nil, 0
  local function joined(s, init, n, size)
    local new = init and init:narrow(1, have + 1, n) or X.new(n, size):zero()
    return s and torch.cat(s, new, 1) or new
  end
  for i = #rs, 1, -1 do
    local r = rs[i]
    if r.b > have then
      if have > 0 or h0 then h = joined(h, h0, r.b - have, P) end
      if lstm and (have > 0 or c0) then c = joined(c, c0, r.b - have, H) end
      have = r.b
    end
    local y
    y, h, c = m:_runLayer(k, torch.flip(block(X, r), 1), h, c)
    outs[i] = torch.flip(y, 1):view(r.nt * r.b, P)
  end
  return torch.cat(outs, 1), h, c
end

-- input -> the PackedSequence, h0 and c0 (S x batch x out, S x batch x H in the caller's order, or nil).
local function parse(m, input)
  local ps, h0, c0 = input, nil, nil
  if not M.isSequence(input) then ps, h0, c0 = input[1], input[2], input[3] end
  local x, I = ps.data, m.inputSize
  if x:dim() ~= 2 or x:size(2) ~= I then
    m._fail(m, 'expected packed data of size rows x %d, got %s', I, m._describe(x))
  end
  if torch.type(x) ~= torch.type(m.weight_ih_l0) then
    m._fail(m, 'input is a %s but the parameters are %s (convert one with :type())', torch.type(x),
      torch.type(m.weight_ih_l0))
  end
  if m.mode == 'LSTM' and (h0 == nil) ~= (c0 == nil) then
    m._fail(m, 'expects {input, h0, c0}: give both states or neither')
  end
  if m.mode ~= 'LSTM' and c0 ~= nil then m._fail(m, 'has no cell state: expected {input, h0}, got a third entry') end
  local S, B = m:_numStates(), ps.batchSizes[1]
  return ps, m:_checkState('h0', h0, { S, B, m:_outSize() }), m:_checkState('c0', c0, { S, B, m.hiddenSize })
end

-- The packed forward (Note [Recurrent layers on packed sequences]): output data, hN, cN in the
-- caller's order, and the dropout masks (drawn unless given).
local function run(m, ps, h0, c0, masks)
  local sorted, unsorted = ps.sortedIndices, ps.unsortedIndices
  if sorted then
    sorted = ps._onDevice(sorted, ps.data)
    h0, c0 = h0 and h0:index(2, sorted), c0 and c0:index(2, sorted)
  end
  local rs, L, D, p = runs(ps.batchSizes), m.numLayers, m.bidirectional and 2 or 1, m.dropout
  local drop = p > 0 and m.train ~= false and L > 1
  local hs, cs, cur = {}, {}, ps.data:contiguous()
  masks = masks or {}
  for l = 1, L do
    local outs = {}
    for d = 1, D do
      local k = (l - 1) * D + d
      outs[d], hs[k], cs[k] = (d == 1 and forward_dir or reverse_dir)(m, k, rs, cur, h0 and h0[k], c0 and c0[k])
    end
    cur = D == 2 and torch.cat(outs[1], outs[2], 2) or outs[1]
    if drop and l < L then
      masks[l] = masks[l] or cur.new(cur:size()):bernoulli(1 - p):div(1 - p)
      cur = torch.cmul(cur, masks[l])
    end
  end
  local hN = torch.stack(hs, 1)
  local cN = m.mode == 'LSTM' and torch.stack(cs, 1) or nil
  if unsorted then
    unsorted = ps._onDevice(unsorted, ps.data)
    hN, cN = hN:index(2, unsorted), cN and cN:index(2, unsorted)
  end
  return cur, hN, cN, masks
end

function M.updateOutput(m, input)
  local ps, h0, c0 = parse(m, input)
  local y, hN, cN, masks = run(m, ps, h0, c0)
  m.output = nn.PackedSequence(y, ps.batchSizes, ps.sortedIndices, ps.unsortedIndices)
  m.hN, m.cN = hN, cN
  m._state = { input = input, packed = true, masks = masks }
  return m.output
end

-- gradOutput (a PackedSequence, its data's gradient, or a table {that, gradHN[, gradCN]}) ->
-- the gradients of the output data, hN and cN (nil: zero).
local function parse_grad(m, gradOutput)
  local gy, gh, gc = gradOutput, nil, nil
  if type(gradOutput) == 'table' and not M.isSequence(gradOutput) then
    gy, gh, gc = gradOutput[1], gradOutput[2], gradOutput[3]
  end
  if M.isSequence(gy) then gy = gy.data end
  if gy ~= nil and (not torch.isTensor(gy) or not gy:isSameSizeAs(m.output.data)) then
    m._fail(m, 'gradOutput must be a PackedSequence or a tensor of the packed output size %s (or a table {gradOutput, '
      .. 'gradHN%s}), got %s', table.concat(m.output.data:size():totable(), 'x'), m.mode == 'LSTM' and ', gradCN' or '',
      m._describe(gy))
  end
  return gy, m:_checkState('gradHN', gh, m.hN:size():totable()),
    m.mode == 'LSTM' and m:_checkState('gradCN', gc, m.cN:size():totable()) or nil
end

-- Note [Torch7 backward of packed calls]: the replay; st.grads holds the parameter gradients.
function M.updateGradInput(m, st, gradOutput)
  local ps, h0, c0 = parse(m, st.input)
  local grads = { parse_grad(m, gradOutput) }
  local x = ps.data:detach():requiresGrad()
  local states = { h0 and h0:detach():requiresGrad() or nil, c0 and c0:detach():requiresGrad() or nil }
  local replay = nn.PackedSequence(x, ps.batchSizes, ps.sortedIndices, ps.unsortedIndices)
  local outs = { torch.enableGrad(run, m, replay, states[1], states[2], st.masks) }
  local want = { x, states[1], states[2] }  -- the entries given, then the parameters
  local params = m:parameters()
  for _, p in ipairs(params) do want[#want + 1] = p end
  local os, gs, ask = {}, {}, {}
  for i = 1, 3 do
    if grads[i] and outs[i] then os[#os + 1], gs[#gs + 1] = outs[i], grads[i] end
  end
  for _, t in ipairs(want) do if t:needsGrad() then ask[#ask + 1] = t end end
  local res = #os > 0 and #ask > 0 and torch.autograd.grad(os, ask, gs, { allowUnused = true }) or {}
  local got = {}
  for k, t in ipairs(ask) do got[t] = res[k] end
  local function grad_of(k) return got[want[k]] or want[k].new():resize(want[k]:size()):zero() end
  local gx = nn.PackedSequence(grad_of(1), ps.batchSizes, ps.sortedIndices, ps.unsortedIndices)
  if M.isSequence(st.input) then m.gradInput = gx
  else
    m.gradInput = { gx, h0 and grad_of(2) or nil, c0 and grad_of(3) or nil }
  end
  st.grads, st.gradOutput = {}, gradOutput
  for i = 1, #params do st.grads[i] = got[params[i]] end
  return m.gradInput
end

-- M.accumulateReplay(impl, m, st, gradOutput, scale): adds scale times the parameter gradients of
-- impl's replay (impl.updateGradInput runs it again unless it was for this gradOutput) into the
-- module's gradients; the packed and the projected (nn/rnn_projected.lua) layers share it.
function M.accumulateReplay(impl, m, st, gradOutput, scale)
  if not st.grads or not rawequal(st.gradOutput, gradOutput) then impl.updateGradInput(m, st, gradOutput) end
  local _, gparams = m:parameters()
  for i, g in ipairs(gparams) do
    if st.grads[i] then g:add(scale or 1, st.grads[i]) end
  end
end
function M.accGradParameters(m, st, gradOutput, scale) return M.accumulateReplay(M, m, st, gradOutput, scale) end

return M
