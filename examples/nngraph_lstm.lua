-- A char-rnn-style LSTM built with nngraph, as Torch7 scripts write it: one LSTM cell as an
-- nn.gModule (inputs {x, prev_c, prev_h}, outputs {next_c, next_h, log-probabilities}), cloned
-- per time step with shared parameters, trained by backpropagation through time on a toy
-- repeating sequence. The loss printed falls from ln(vocabulary) towards 0.
--   tocha examples/nngraph_lstm.lua [--iterations 150] [--quick]
require 'nn'
require 'nngraph'
require 'optim'

local cmd = torch.CmdLine()
cmd:option('--iterations', 150, 'training steps')
cmd:option('--seqLength', 10, 'time steps per sequence')
cmd:option('--batchSize', 8, 'sequences per step')
cmd:option('--hidden', 32, 'LSTM size')
cmd:option('--lr', 1e-2, 'Adam learning rate')
cmd:option('--quick', false, 'a short run (a smoke test)')
local opt = cmd:parse(arg)
if opt.quick then opt.iterations = 60 end
torch.manualSeed(1)

-- The toy text and its character codes 1..V.
local text = string.rep('hello nngraph world. ', 20)
local chars, index = {}, {}
for c in text:gmatch('.') do if not index[c] then chars[#chars + 1] = c; index[c] = #chars end end
local V, R, T, B = #chars, opt.hidden, opt.seqLength, opt.batchSize
local codes = torch.LongTensor(#text)
for i = 1, #text do codes[i] = index[text:sub(i, i)] end

-- One LSTM step, written as in karpathy's char-rnn (model/LSTM.lua), one layer.
local function lstm(inputSize, rnnSize)
  local x, prev_c, prev_h = nn.Identity()(), nn.Identity()(), nn.Identity()()
  local i2h = nn.Linear(inputSize, 4 * rnnSize)(nn.OneHot(inputSize)(x)):annotate{name = 'i2h'}
  local h2h = nn.Linear(rnnSize, 4 * rnnSize)(prev_h):annotate{name = 'h2h'}
  local sums = nn.Reshape(4, rnnSize)(nn.CAddTable()({i2h, h2h}))
  local n1, n2, n3, n4 = nn.SplitTable(2)(sums):split(4)
  local in_gate, forget_gate = nn.Sigmoid()(n1), nn.Sigmoid()(n2)
  local out_gate, in_transform = nn.Sigmoid()(n3), nn.Tanh()(n4)
  local next_c = nn.CAddTable()({
    nn.CMulTable()({forget_gate, prev_c}),
    nn.CMulTable()({in_gate, in_transform})
  })
  local next_h = nn.CMulTable()({out_gate, nn.Tanh()(next_c)})
  local logsoft = nn.LogSoftMax()(nn.Linear(rnnSize, inputSize)(next_h):annotate{name = 'decoder'})
  return nn.gModule({x, prev_c, prev_h}, {next_c, next_h, logsoft})
end

local proto = lstm(V, R)
local criterion = nn.ClassNLLCriterion()
local params, grads = proto:getParameters()
params:uniform(-0.1, 0.1)
-- char-rnn's forget-gate bias of 1, found by the node's annotation
for _, node in ipairs(proto.forwardnodes) do
  if node.data.annotations.name == 'i2h' then node.data.module.bias[{{R + 1, 2 * R}}]:fill(1) end
end
-- one clone per time step, sharing the parameters and their gradients with the prototype
local clones = {}
for t = 1, T do clones[t] = proto:clone('weight', 'bias', 'gradWeight', 'gradBias') end

-- A batch: B windows of T + 1 characters at random offsets.
local function batch()
  local x, y = torch.LongTensor(T, B), torch.LongTensor(T, B)
  for b = 1, B do
    local s = torch.random(1, #text - T - 1)
    x[{{}, b}]:copy(codes:narrow(1, s, T))
    y[{{}, b}]:copy(codes:narrow(1, s + 1, T))
  end
  return x, y
end

local function feval()
  local x, y = batch()
  grads:zero()
  local c, h = {[0] = torch.zeros(B, R)}, {[0] = torch.zeros(B, R)}
  local out, loss = {}, 0
  for t = 1, T do
    out[t] = clones[t]:forward({x[t], c[t - 1], h[t - 1]})
    c[t], h[t] = out[t][1], out[t][2]
    loss = loss + criterion:forward(out[t][3], y[t])
  end
  -- backpropagation through time
  local dc, dh = torch.zeros(B, R), torch.zeros(B, R)
  for t = T, 1, -1 do
    local dlog = criterion:backward(out[t][3], y[t])
    local gi = clones[t]:backward({x[t], c[t - 1], h[t - 1]}, {dc, dh, dlog})
    dc, dh = gi[2]:clone(), gi[3]:clone()
  end
  grads:clamp(-5, 5)
  return loss / T, grads
end

local state = {learningRate = opt.lr}
local first, last
for it = 1, opt.iterations do
  local _, loss = optim.adam(feval, params, state)
  first = first or loss[1]
  last = loss[1]
  if it == 1 or it % 20 == 0 then print(string.format('step %4d  loss %.4f', it, loss[1])) end
end
print(string.format('loss %.4f -> %.4f (ln V = %.4f)', first, last, math.log(V)))
assert(last < first * 0.5, 'the loss should fall')
