-- ONNX nodes of Tocha's recurrent modules for torch.onnx.export: nn.LSTM, nn.GRU and nn.RNN (tanh
-- and relu) as ONNX's LSTM, GRU and RNN operators, one node per layer (both directions in it when
-- bidirectional), as PyTorch 1.13 exports them: gates reordered to ONNX's, batchFirst as Transposes,
-- initial states sliced per layer from the module's table input {input, h0[, c0]}.
local lib = require 'torch.lib'
local U = require 'torch.onnx_util'

local M = {}
local function fail(fmt, ...) lib.fail('torch.onnx.export', fmt, ...) end

--- onnx_rnn.CLASSES: the recurrent classes exported here (their input is a tensor or a table).
M.CLASSES = { ['nn.LSTM'] = true, ['nn.GRU'] = true, ['nn.RNN'] = true }

-- Note [Gate order in ONNX]: PyTorch (and Tocha) stack an LSTM's gates as i, f, g, o and a GRU's
-- as r, z, n in weight_ih/weight_hh/bias_*; ONNX's operators read i, o, f, c and z, r, h. The
-- blocks of hiddenSize rows are reordered (ORDER lists, for each ONNX gate, PyTorch's gate
-- number). ONNX's GRU default (linear_before_reset = 0) applies the reset gate before the
-- recurrent matrix; PyTorch's applies it after (r * (W_hn h + b_hn)), which is
-- linear_before_reset = 1, as PyTorch exports it.
local ORDER = { LSTM = { 1, 4, 2, 3 }, GRU = { 2, 1, 3 }, RNN_TANH = { 1 }, RNN_RELU = { 1 } }
local OP = { LSTM = 'LSTM', GRU = 'GRU', RNN_TANH = 'RNN', RNN_RELU = 'RNN' }

local function reorder(t, order, H)
  local parts = {}
  for i, g in ipairs(order) do parts[i] = t:narrow(1, (g - 1) * H + 1, H) end
  return torch.cat(parts, 1)
end

-- Note [Recurrent initializers]: W, R and B of layer l stack its directions (ONNX's num_directions
-- dim) after the gate reordering, so they are new tensors, not the state dict's: they are named
-- '<module>.W_l0', '.R_l0', '.B_l0' (B: bias_ih then bias_hh, ONNX's [Wb, Rb]); a module without
-- biases gives no B (ONNX's default is zero).
local function weights(G, m, l, D, ctx)
  local order, H = ORDER[m.mode], m.hiddenSize
  local ws, rs, bs = {}, {}, {}
  for d = 1, D do
    local wih, whh, bih, bhh = m:_layer((l - 1) * D + d)
    ws[d], rs[d] = reorder(wih, order, H), reorder(whh, order, H)
    if bih then bs[d] = torch.cat({ reorder(bih, order, H), reorder(bhh, order, H) }, 1) end
  end
  local tag = '_l' .. (l - 1)
  local W = G:init(U.pname(ctx, 'W' .. tag), torch.stack(ws, 1))
  local R = G:init(U.pname(ctx, 'R' .. tag), torch.stack(rs, 1))
  local B = #bs > 0 and G:init(U.pname(ctx, 'B' .. tag), torch.stack(bs, 1)) or ''
  return W, R, B
end

-- A node whose output feeds the next one: its sample is zeros of the right size (value_info reads
-- only the shape; the module's forward gives the last node's sample).
local function node(G, ctx, op, ins, attrs, like, size, dyn)
  return G:node(ctx.path, op, ins, attrs, like.new(torch.LongStorage(size)):zero(), dyn)
end

-- An initial state (S x B x out, or S x out unbatched) as S x B x out; only its batch dim may vary.
local function state(G, ctx, v, unbatched, what)
  if not v then return nil end
  for k, p in pairs(v.dyn) do
    if unbatched or k ~= 2 then
      fail('dynamicAxes: dim %d (%s) of %s cannot vary through %s (only the batch dim can)', k, tostring(p), what,
        ctx.where)
    end
  end
  if not unbatched then return v end
  local size = { v.shape[1], 1, v.shape[2] }
  return node(G, ctx, 'Unsqueeze', { v, G:constInts(ctx.path, { 1 }) }, nil, v.t, size, {})
end

-- Layer l's slice of a state: rows (l - 1) * D .. l * D - 1 along dim 1 (the whole state for one layer).
local function slice(G, ctx, s, l, D, L)
  if not s or L == 1 then return s end
  local size = { D, s.shape[2], s.shape[3] }
  local p = ctx.path
  return node(G, ctx, 'Slice', { s, G:constInts(p, { (l - 1) * D }), G:constInts(p, { l * D }), G:constInts(p, { 0 }) },
    nil, s.t, size, { [2] = s.dyn[2] })
end

local function attributes(m, D)
  local attrs = {}
  if D == 2 then attrs[#attrs + 1] = { 'direction', 's', 'bidirectional' } end
  attrs[#attrs + 1] = { 'hidden_size', 'i', m.hiddenSize }
  if m.mode == 'GRU' then attrs[#attrs + 1] = { 'linear_before_reset', 'i', 1 } end
  if m.mode == 'RNN_RELU' then -- the default is Tanh for each direction
    local acts = {}
    for d = 1, D do acts[d] = 'Relu' end
    table.insert(attrs, 1, { 'activations', 'strings', acts })
  end
  return attrs
end

-- Note [Recurrent outputs]: Tocha's recurrent modules return the output sequence (the final states
-- are fields, m.hN and m.cN), so the graph's output is that sequence, and each node requests Y
-- only (ONNX's trailing optional outputs Y_h, Y_c are omitted); PyTorch's export has h_n and c_n
-- outputs too because its forward returns them. The export runs in evaluation mode, where the
-- dropout between layers is off (Note [Dropout at export], onnx_act.lua), whatever the train flag.
--- onnx_rnn.convert(G, m, x, y, ctx): the LSTM, GRU or RNN nodes of recurrent module m for input x
--- (a value, or a list {input, h0[, c0]}), y: its forward's output on the sample.
function M.convert(G, m, x, y, ctx)
  local X, H0, C0 = x, nil, nil
  if not x.name then X, H0, C0 = x[1], x[2], x[3] end
  if m:_projected() then
    fail('%s has projections (projSize = %d), which ONNX\'s LSTM operator cannot express (PyTorch 1.13 refuses '
      .. 'them too)', ctx.where, m.projSize)
  end
  local r = #X.shape
  if r ~= 2 and r ~= 3 then fail('%s got a %dD input, expected 2D or 3D', ctx.where, r) end
  if X.dyn[r] then fail('dynamicAxes: the feature dim %d cannot vary through %s', r, ctx.where) end
  local unb, D, H, L, p = r == 2, m.bidirectional and 2 or 1, m.hiddenSize, m.numLayers, ctx.path
  -- time-major batched input T x B x I, and which of its dims vary
  local cur, T, B, seqP, batchP = X, X.shape[1], 1, X.dyn[1], nil
  if unb then
    cur = node(G, ctx, 'Unsqueeze', { X, G:constInts(p, { 1 }) }, nil, X.t, { T, 1, X.shape[2] }, { [1] = seqP })
  elseif m.batchFirst then
    T, B, seqP, batchP = X.shape[2], X.shape[1], X.dyn[2], X.dyn[1]
    cur = node(G, ctx, 'Transpose', { X }, { { 'perm', 'ints', { 1, 0, 2 } } }, X.t, { T, B, X.shape[3] },
      { [1] = seqP, [2] = batchP })
  else
    B, batchP = X.shape[2], X.dyn[2]
  end
  if B == 0 then fail('%s: a sample batch of size 0 is not exported (give a sample with a batch)', ctx.where) end
  local h0 = state(G, ctx, H0, unb, 'h0')
  local c0 = state(G, ctx, C0, unb, 'c0')
  local op, attrs = OP[m.mode], attributes(m, D)
  for l = 1, L do
    local W, R, Bias = weights(G, m, l, D, ctx)
    local ins = { cur, W, R, Bias }
    if h0 then ins[5], ins[6] = '', slice(G, ctx, h0, l, D, L) end
    if c0 then ins[7] = slice(G, ctx, c0, l, D, L) end
    while ins[#ins] == '' do ins[#ins] = nil end
    local Y = node(G, ctx, op, ins, attrs, X.t, { T, D, B, H }, { [1] = seqP, [3] = batchP }) -- T x D x B x H
    local last = l == L
    if last and unb then -- T x D x 1 x H -> T x D*H (forward features first)
      return G:node(p, 'Reshape', { Y, G:constInts(p, { seqP and 0 or T, -1 }) }, nil, y, U.keep(X))
    end
    local bf = last and m.batchFirst
    if D == 1 then
      local sq = { T, B, H }
      if not bf and last then return G:node(p, 'Squeeze', { Y, G:constInts(p, { 1 }) }, nil, y, U.keep(X)) end
      cur = node(G, ctx, 'Squeeze', { Y, G:constInts(p, { 1 }) }, nil, X.t, sq, { [1] = seqP, [2] = batchP })
      if bf then return G:node(p, 'Transpose', { cur }, { { 'perm', 'ints', { 1, 0, 2 } } }, y, U.keep(X)) end
    else -- T x 2 x B x H -> T x B x 2 x H (B x T x 2 x H with batchFirst) -> joined features
      local perm = bf and { 2, 0, 1, 3 } or { 0, 2, 1, 3 }
      local size = bf and { B, T, D, H } or { T, B, D, H }
      local dyn = bf and { [1] = batchP, [2] = seqP } or { [1] = seqP, [2] = batchP }
      local tr = node(G, ctx, 'Transpose', { Y }, { { 'perm', 'ints', perm } }, X.t, size, dyn)
      local target = G:constInts(p, { 0, 0, -1 })
      if last then return G:node(p, 'Reshape', { tr, target }, nil, y, U.keep(X)) end
      cur = node(G, ctx, 'Reshape', { tr, target }, nil, X.t, { T, B, D * H }, dyn)
    end
  end
end

--- onnx_rnn.checkInput(x, ctx): a recurrent module's input: a value, or a list of 2 or 3 values
--- ({input, h0} or {input, h0, c0}).
function M.checkInput(x, ctx)
  if x.name then return end
  if #x < 1 or #x > 3 then
    fail('%s expects a tensor or a table {input, h0[, c0]}, got a table of %d', ctx.where, #x)
  end
  for i, v in ipairs(x) do
    if not v.name then fail('%s: entry %d of its input is a nested table, expected a tensor', ctx.where, i) end
  end
end

return M
