-- Recurrent layers as torch functions (bindings/tocha_rnn.h): torch.rnnLayer runs one RNN, LSTM
-- or GRU layer over a whole sequence and is differentiable; the fused backward and weight-gradient
-- steps are exposed (as torch._rnnLayer*) for the Torch7-style nn modules built on them.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

local modes = { RNN_TANH = 0, tanh = 0, RNN_RELU = 1, relu = 1, LSTM = 2, lstm = 2, GRU = 3, gru = 3 }
local results = ffi.new('tocha_tensor *[4]')

local function mode_of(op, mode)
  local m = modes[mode]
  if not m then fail(op, "mode must be 'LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU', got %s", describe(mode)) end
  return m
end

-- The C pointer of an optional tensor argument (nil/false: NULL).
local function opt(op, t, name)
  if t == nil or t == false then return nil end
  if not is_tensor(t) then fail(op, '%s must be a tensor or nil, got %s', name, describe(t)) end
  return t.p
end
local function req(op, t, name)
  if not is_tensor(t) then fail(op, '%s must be a tensor, got %s', name, describe(t)) end
  return t.p
end

-- Wraps the 4 result slots (NULL -> nil).
local function take()
  local r = {}
  for k = 0, 3 do
    if results[k] ~= nil then r[k + 1] = wrap(results[k]) end
    results[k] = nil
  end
  return r[1], r[2], r[3], r[4]
end

--- torch.rnnLayer(mode, input, h0, c0, weightIh, weightHh [, biasIh, biasHh]): one recurrent layer
--- over a whole sequence, with PyTorch's gate order and weight layout. mode is 'LSTM', 'GRU',
--- 'RNN_TANH' or 'RNN_RELU'; input is seqLen x batch x inputSize; h0 and c0 (LSTM only) are
--- batch x hiddenSize or nil (zeros); weightIh is (gates*hiddenSize) x inputSize, weightHh
--- (gates*hiddenSize) x hiddenSize with gates 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n) or 1.
--- Returns output (seqLen x batch x hiddenSize), hN, cN (LSTM; nil otherwise) and the workspace
--- the backward uses. Differentiable with respect to every tensor argument.
--- Example: torch.rnnLayer('GRU', torch.randn(5, 2, 3), nil, nil, torch.randn(12, 3), torch.randn(12, 4))
function torch.rnnLayer(mode, input, h0, c0, wih, whh, bih, bhh)
  local op = 'rnnLayer'
  local m = mode_of(op, mode)
  check(C.tocha_rnn_layer(m, req(op, input, 'input'), opt(op, h0, 'h0'), opt(op, c0, 'c0'), req(op, wih, 'weightIh'),
    req(op, whh, 'weightHh'), opt(op, bih, 'biasIh'), opt(op, bhh, 'biasHh'), results))
  return take()
end

-- torch._rnnLayerBackward(mode, input, h0, c0, wIh, wHh, output, workspace, dy, dhN, dcN, needDx)
-- -> dx, dh0, dc0, dgates: the fused backward of torch.rnnLayer, not recorded.
function torch._rnnLayerBackward(mode, input, h0, c0, wih, whh, output, ws, dy, dhn, dcn, need_dx)
  local op = 'rnnLayerBackward'
  check(C.tocha_rnn_layer_backward(mode_of(op, mode), req(op, input, 'input'), opt(op, h0, 'h0'), opt(op, c0, 'c0'),
    req(op, wih, 'weightIh'), req(op, whh, 'weightHh'), req(op, output, 'output'), req(op, ws, 'workspace'),
    opt(op, dy, 'dy'), opt(op, dhn, 'dhN'), opt(op, dcn, 'dcN'), need_dx and 1 or 0, results))
  return take()
end

-- torch._rnnLayerWeightGrads(mode, input, h0, output, dgates, scale, gwIh, gwHh, gbIh, gbHh):
-- accumulates scale * the weight gradients into the given tensors (nil ones are skipped).
function torch._rnnLayerWeightGrads(mode, input, h0, output, dgates, scale, gwih, gwhh, gbih, gbhh)
  local op = 'rnnLayerWeightGrads'
  check(C.tocha_rnn_layer_weight_grads(mode_of(op, mode), req(op, input, 'input'), opt(op, h0, 'h0'),
    req(op, output, 'output'), req(op, dgates, 'dgates'), scale or 1, 1, opt(op, gwih, 'gradWeightIh'),
    opt(op, gwhh, 'gradWeightHh'), opt(op, gbih, 'gradBiasIh'), opt(op, gbhh, 'gradBiasHh')))
end

return torch
