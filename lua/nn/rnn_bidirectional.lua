-- One layer of nn.RNN / nn.LSTM / nn.GRU in one or both directions (bidirectional = true) on the
-- fused op: the forward of a layer, its Torch7-style backward and its weight gradients, for
-- nn/RNNBase.lua. Parameter set k = (layer - 1) * directions + direction, PyTorch's order. An LSTM
-- with projections runs its layers here too (m:_runLayer) but has its own backward, and a batch of
-- size 0 does not come here (nn/rnn_projected.lua).
--
-- Note [Reverse direction by flipping time]: the reverse direction of a layer is the fused layer
-- torch.rnnLayer run on the sequence flipped along time (torch.flip, differentiable), its output
-- flipped back, so loss:backward() differentiates it like any other op. The state kept for
-- Torch7's backward holds the flipped input and the flipped-time output: the fused backward and
-- weight-gradient steps then serve the reverse direction unchanged, with the gradient of its
-- output flipped before and its input gradient flipped after. No autograd replay is needed, and
-- the reverse direction costs the forward one's GEMMs plus a copy of its input and output each way.
local M = {}

local function flip_time(t) return torch.flip(t, 1) end

-- Layer l on cur (T x B x F): the output (T x B x D*out, the forward direction's features first);
-- fills hs[k], cs[k] with the final states and returns the state of each direction for backward.
function M.forward(m, l, cur, h0, c0, hs, cs)
  local D = m.bidirectional and 2 or 1
  local dirs, outs = {}, {}
  for d = 1, D do
    local k = (l - 1) * D + d
    local x = d == 2 and flip_time(cur) or cur
    local lh0, lc0 = h0 and h0[k], c0 and c0[k]
    local y, hn, cn, ws = m:_runLayer(k, x, lh0, lc0)
    dirs[d] = { k = k, x = x, h0 = lh0, c0 = lc0, y = y, ws = ws }
    hs[k], cs[k] = hn, cn
    outs[d] = d == 2 and flip_time(y) or y
  end
  return D == 2 and torch.cat(outs[1], outs[2], 3) or outs[1], dirs
end

-- Torch7-style backward of one layer (dirs: what forward returned) for the gradient dy of its
-- output (nil: zero) and gh, gc of the final states (nil: zero); the gradients of the initial
-- states go to dh0s[k], dc0s[k]. Returns the gradient of the layer's input.
function M.backward(m, dirs, dy, gh, gc, dh0s, dc0s)
  local H, dx = m:_outSize(), nil
  for d, st in ipairs(dirs) do
    local wih, whh = m:_layer(st.k)
    local dyd = dy
    if dy and #dirs == 2 then dyd = dy:narrow(3, (d - 1) * H + 1, H):contiguous() end
    if dyd and d == 2 then dyd = flip_time(dyd) end
    local ddx, dh0, dc0
    ddx, dh0, dc0, st.dg = torch._rnnLayerBackward(m.mode, st.x, st.h0, st.c0, wih, whh, st.y, st.ws, dyd,
      gh and gh[st.k], gc and gc[st.k], true)
    if d == 2 then ddx = flip_time(ddx) end
    dx = dx and dx:add(ddx) or ddx
    dh0s[st.k], dc0s[st.k] = dh0, dc0
  end
  return dx
end

-- Adds scale times the weight gradients of one layer (after backward) into gradWeight_*/gradBias_*.
function M.weightGrads(m, dirs, scale)
  for _, st in ipairs(dirs) do
    local _, _, _, _, gwih, gwhh, gbih, gbhh = m:_layer(st.k)
    torch._rnnLayerWeightGrads(m.mode, st.x, st.h0, st.y, st.dg, scale, gwih, gwhh, gbih, gbhh)
  end
end

return M
