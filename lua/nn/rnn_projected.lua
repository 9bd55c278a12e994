-- The recurrent layers the fused op torch.rnnLayer does not run, as composites of differentiable
-- ops for nn/RNNBase.lua: PyTorch 1.13's LSTM with projections (projSize > 0), a batch of size 0,
-- and the Torch7-style backward of a projected module.
--
-- Note [LSTM projections as a composite]: with projSize = P the hidden state is h_t = W_hr (o_t *
-- tanh(c_t)) (P values; c_t keeps hiddenSize), which the fused layer cannot hold: its state is of
-- the hidden size. The projected layer is a loop over time steps of mm/addmm, sigmoid, tanh and
-- cmul that autograd records like any other ops, so loss:backward(), gradcheck, the reverse
-- direction (Note [Reverse direction by flipping time]) and packed sequences (Note [Recurrent
-- layers on packed sequences]) need nothing more: they call it where they call torch.rnnLayer
-- (m:_runLayer). The input's part of the gates is one GEMM over all steps; each step adds one GEMM
-- for the recurrence and one for the projection. Torch7's backward replays the forward from
-- detached inputs with recording on and asks autograd, as for packed calls (Note [Torch7 backward
-- of packed calls]): one extra forward per backward, the dropout masks of the last forward reused.
--
-- Note [Recurrent layers over an empty batch]: the fused op refuses a batch of size 0 ("[rnnLayer]
-- input is 5x0x3: the sequence length and the batch size must be positive"); PyTorch 1.13 returns
-- empty outputs and states for it. M.empty builds them from the input, states and weights with
-- GEMMs over no rows, so they are recorded: loss:backward() and autograd.grad reach every input
-- and weight with empty (or zero) gradients, as PyTorch's.
local M = {}

-- An empty state of n x size, like x.
local function zeros(x, n, size) return x.new(n, size):zero() end

-- A 0 x 1 tensor recorded as a function of x (T x 0 x F) and of every parameter of m: GEMMs over
-- no rows. (torch.cat and torch.stack do not pass gradients to empty inputs, so the outputs are not
-- assembled from per-layer pieces.)
local function connector(m, x)
  local F = x:size(3)
  local e = torch.mm(x:contiguous():view(0, F), zeros(x, F, 1))
  for _, p in ipairs(m:parameters()) do
    local p2 = p:dim() == 1 and p:view(-1, 1) or p
    e = e + torch.mm(torch.mm(zeros(x, 0, p2:size(1)), p2), zeros(x, p2:size(2), 1))
  end
  return e:view(1, 0, 1)
end

--- M.empty(m, x, h0, c0): m over x (T x 0 x F, time-major) from h0, c0 (S x 0 x out, S x 0 x
--- hiddenSize, or nil): the output (T x 0 x D*out), hN and cN (LSTM) of PyTorch's shapes, recorded
--- as functions of x, the states and every parameter (Note [Recurrent layers over an empty batch]).
--- Example: require('nn.rnn_projected').empty(nn.GRU(3, 4), torch.randn(5, 0, 3))
function M.empty(m, x, h0, c0)
  local T, S, P, H = x:size(1), m:_numStates(), m:_outSize(), m.hiddenSize
  local e = connector(m, x)
  local y = e:expand(T, 0, (m.bidirectional and 2 or 1) * P):contiguous()
  local hN = e:expand(S, 0, P):contiguous()
  if h0 then hN = hN + h0 end
  local cN = m.mode == 'LSTM' and e:expand(S, 0, H):contiguous() or nil
  if cN and c0 then cN = cN + c0 end
  return y, hN, cN
end

--- M.layer(m, k, x, h0, c0): parameter set k of an LSTM with projections over x (T x B x F), h0 (B
--- x projSize) and c0 (B x hiddenSize) or nil (zeros): output (T x B x projSize), hN and cN, all
--- recorded by autograd (Note [LSTM projections as a composite]).
--- Example: require('nn.rnn_projected').layer(nn.LSTM(3, 4, {projSize = 2}), 1, torch.randn(5, 2, 3))
function M.layer(m, k, x, h0, c0)
  local wih, whh, bih, bhh = m:_layer(k)
  local whr = m[m._projNames[k]]
  local T, B, F = x:size(1), x:size(2), x:size(3)
  local H = m.hiddenSize
  -- Both biases join the input's part of the gates once, rather than at every step.
  local xg = torch.mm(x:contiguous():view(T * B, F), wih:t())
  if bih then xg = xg + bih:view(1, -1):expandAs(xg) end
  if bhh then xg = xg + bhh:view(1, -1):expandAs(xg) end
  xg = xg:view(T, B, 4 * H)
  local h, c = h0 or zeros(x, B, m.projSize), c0 or zeros(x, B, H)
  local whrT, whhT, ys = whr:t(), whh:t(), {}
  for t = 1, T do
    local g = torch.addmm(xg:select(1, t), h, whhT)
    local s = torch.sigmoid(g)  -- PyTorch's gate order i, f, g, o; the g part is unused here
    local i, f, o = s:narrow(2, 1, H), s:narrow(2, H + 1, H), s:narrow(2, 3 * H + 1, H)
    c = torch.cmul(f, c) + torch.cmul(i, torch.tanh(g:narrow(2, 2 * H + 1, H)))
    h = torch.mm(torch.cmul(o, torch.tanh(c)), whrT)
    ys[t] = h
  end
  return torch.stack(ys, 1), h, c
end

-- M.emptyGradInput(m, st): Torch7's gradInput of a call over an empty batch: zeros of the
-- input's sizes (a tensor, or {gradX, gradH0[, gradC0]} like the input table).
function M.emptyGradInput(m, st)
  local function zero(t) return t and t.new(t:size()):zero() or nil end
  local input = st.input
  m.gradInput = torch.isTensor(input) and zero(input) or { zero(input[1]), zero(input[2]), zero(input[3]) }
  return m.gradInput
end

local function stacked(list) return #list == 1 and list[1]:unsqueeze(1) or torch.stack(list, 1) end
local function detached(t) return t and t:detach():requiresGrad() or nil end

-- M.updateGradInput(m, st, gradOutput): Torch7's backward of a projected module (not packed) by
-- replaying its last forward (Note [LSTM projections as a composite]); st.grads keeps the
-- parameter gradients for M.accGradParameters.
function M.updateGradInput(m, st, gradOutput)
  local x, h0, c0, unbatched = m:_parse(st.input)
  local gy, gh, gc = m:_parseGrad(st, gradOutput)
  local xd, h0d, c0d = detached(x), detached(h0), detached(c0)
  local y, hN, cN = torch.enableGrad(function()
    local out, hs, cs = m:_run(xd, h0d, c0d, st.masks)
    return out, stacked(hs), stacked(cs)
  end)
  local params = m:parameters()
  local want = { xd, h0d, c0d }  -- the entries given (nil ones are skipped), then the parameters
  for i, p in ipairs(params) do want[3 + i] = p end
  local os, gs, ask = {}, {}, {}
  for _, pair in ipairs({ { y, gy }, { hN, gh }, { cN, gc } }) do
    if pair[2] then os[#os + 1], gs[#gs + 1] = pair[1], pair[2] end
  end
  for i = 1, 3 + #params do
    if want[i] and want[i]:needsGrad() then ask[#ask + 1] = want[i] end
  end
  local res = #os > 0 and #ask > 0 and torch.autograd.grad(os, ask, gs, { allowUnused = true }) or {}
  local got = {}
  for i, t in ipairs(ask) do got[t] = res[i] end
  local function grad_of(t) return got[t] or t.new(t:size()):zero() end
  local gx = m:_toCaller(grad_of(xd), unbatched)
  if torch.isTensor(st.input) then
    m.gradInput = gx
  else
    local function state(t) return t and (unbatched and grad_of(t):squeeze(2) or grad_of(t)) or nil end
    m.gradInput = { gx, state(h0d), state(c0d) }
  end
  st.grads, st.gradOutput = {}, gradOutput
  for i, p in ipairs(params) do st.grads[i] = got[p] end
  return m.gradInput
end

-- M.accGradParameters(m, st, gradOutput, scale): adds scale times the parameter gradients of the
-- replay (run again unless it was for this gradOutput) into gradWeight_* and gradBias_*.
function M.accGradParameters(m, st, gradOutput, scale)
  return require('nn.rnn_packed').accumulateReplay(M, m, st, gradOutput, scale)
end

return M
