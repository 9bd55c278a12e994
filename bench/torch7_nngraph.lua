-- char-rnn's training step, unmodified Torch7 style: a 2-layer LSTM built with nngraph (rnn_size
-- 128, vocab 65, batch 50, seq 50), cloned per time step (clone_many_times through a MemoryFile),
-- forward over the sequence, ClassNLLCriterion per step, backward over the sequence, gradient
-- clamp and optim.rmsprop (or optim.adam) on getParameters' flat tensors. Against the same cell in
-- PyTorch eager (bench/torch7_nngraph_ref.py: nn.Linear + gates, a Python loop over time), and
-- against the same gModule called over time without clones, through autograd (loss:backward()).
-- Then the graph's own cost: one clone's forward/backward through gModule against the same module
-- calls made directly in a precomputed order (the modules' work), per node.
-- Usage: tocha bench/torch7_nngraph.lua [threads=1] [steps=4]   (steps 0: the per-node profile alone;
-- BENCH_DOUBLE=1: doubles, for the gradient check; BENCH_CHECK_ONLY=1: stop after that check)
require 'nngraph'
require 'optim'
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')

local threads, steps = tonumber(arg[1] or '1'), tonumber(arg[2] or '4')
torch.setnumthreads(threads)
torch.setdefaulttensortype(os.getenv('BENCH_DOUBLE') and 'torch.DoubleTensor' or 'torch.FloatTensor')
torch.manualSeed(123)
local V, R, L, B, T = 65, 128, 2, 50, 50

-- char-rnn's util/OneHot.lua, except that each call returns a new output: char-rnn's refilled one
-- buffer, which the gModule called over time under autograd cannot use (the Linear it feeds keeps
-- each step's input: Note [Inputs written after the forward] refuses the backward).
local OneHotCls, parent = torch.class('OneHot', 'nn.Module')
function OneHotCls:__init(outputSize)
  parent.__init(self)
  self.outputSize = outputSize
  self._eye = torch.eye(outputSize)
end
function OneHotCls:updateOutput(input)
  if self._indices == nil then self._indices = torch.LongTensor() end
  self._indices:resize(input:size()):copy(input)
  self.output = self._eye:index(1, self._indices)
  return self.output
end

-- char-rnn's model/LSTM.lua (dropout 0)
local function lstm(input_size, rnn_size, n)
  local inputs = {}
  table.insert(inputs, nn.Identity()())
  for _ = 1, n do
    table.insert(inputs, nn.Identity()())
    table.insert(inputs, nn.Identity()())
  end
  local x, input_size_L
  local outputs = {}
  for Li = 1, n do
    local prev_h = inputs[Li * 2 + 1]
    local prev_c = inputs[Li * 2]
    if Li == 1 then
      x = OneHot(input_size)(inputs[1])
      input_size_L = input_size
    else
      x = outputs[(Li - 1) * 2]
      input_size_L = rnn_size
    end
    local i2h = nn.Linear(input_size_L, 4 * rnn_size)(x):annotate{ name = 'i2h_' .. Li }
    local h2h = nn.Linear(rnn_size, 4 * rnn_size)(prev_h):annotate{ name = 'h2h_' .. Li }
    local all_input_sums = nn.CAddTable()({ i2h, h2h })
    local reshaped = nn.Reshape(4, rnn_size)(all_input_sums)
    local n1, n2, n3, n4 = nn.SplitTable(2)(reshaped):split(4)
    local in_gate = nn.Sigmoid()(n1)
    local forget_gate = nn.Sigmoid()(n2)
    local out_gate = nn.Sigmoid()(n3)
    local in_transform = nn.Tanh()(n4)
    local next_c = nn.CAddTable()({
      nn.CMulTable()({ forget_gate, prev_c }),
      nn.CMulTable()({ in_gate, in_transform }),
    })
    local next_h = nn.CMulTable()({ out_gate, nn.Tanh()(next_c) })
    table.insert(outputs, next_c)
    table.insert(outputs, next_h)
  end
  local top_h = outputs[#outputs]
  local proj = nn.Linear(rnn_size, input_size)(top_h):annotate{ name = 'decoder' }
  table.insert(outputs, nn.LogSoftMax()(proj))
  return nn.gModule(inputs, outputs)
end

-- char-rnn's util/model_utils.lua clone_many_times
local function clone_many_times(net, n)
  local clones = {}
  local params, gradParams
  if net.parameters then
    params, gradParams = net:parameters()
    if params == nil then params = {} end
  end
  local mem = torch.MemoryFile('w'):binary()
  mem:writeObject(net)
  for t = 1, n do
    local reader = torch.MemoryFile(mem:storage(), 'r'):binary()
    local clone = reader:readObject()
    reader:close()
    if net.parameters then
      local cloneParams, cloneGradParams = clone:parameters()
      for i = 1, #params do
        cloneParams[i]:set(params[i])
        cloneGradParams[i]:set(gradParams[i])
      end
    end
    clones[t] = clone
    collectgarbage()
  end
  mem:close()
  return clones
end

local rnn = lstm(V, R, L)
local criterion = nn.ClassNLLCriterion()
local params, grad_params = rnn:getParameters()
params:uniform(-0.08, 0.08)
local t0 = torch.tic()
local clones = clone_many_times(rnn, T)
local crits = clone_many_times(criterion, T)
local clone_s = torch.toc(t0)

local x = torch.LongTensor(B, T):random(1, V)
local y = torch.LongTensor(B, T):random(1, V)
local xs, ys = {}, {}
for t = 1, T do xs[t] = x[{ {}, t }]:contiguous(); ys[t] = y[{ {}, t }]:contiguous() end
local init_state = {}
for _ = 1, 2 * L do init_state[#init_state + 1] = torch.zeros(B, R) end

-- char-rnn's feval (train.lua), without the carried-over state (each step starts from zeros)
local function feval(p)
  if p ~= params then params:copy(p) end
  grad_params:zero()
  local rnn_state = { [0] = init_state }
  local predictions, loss = {}, 0
  for t = 1, T do
    clones[t]:training()
    local lst = clones[t]:forward({ xs[t], unpack(rnn_state[t - 1]) })
    rnn_state[t] = {}
    for i = 1, #init_state do table.insert(rnn_state[t], lst[i]) end
    predictions[t] = lst[#lst]
    loss = loss + crits[t]:forward(predictions[t], ys[t])
  end
  loss = loss / T
  local dstate = {}
  for i = 1, #init_state do dstate[i] = init_state[i]:clone():zero() end
  local drnn_state = { [T] = dstate }
  for t = T, 1, -1 do
    local doutput_t = crits[t]:backward(predictions[t], ys[t])
    table.insert(drnn_state[t], doutput_t)
    local dlst = clones[t]:backward({ xs[t], unpack(rnn_state[t - 1]) }, drnn_state[t])
    drnn_state[t - 1] = {}
    for k, v in pairs(dlst) do
      if k > 1 then drnn_state[t - 1][k - 1] = v end
    end
  end
  grad_params:clamp(-5, 5)
  return loss, grad_params
end

-- The same gModule called over time, autograd through loss:backward() (no clones).
local function feval_autograd()
  grad_params:zero()
  local state, loss = init_state, nil
  for t = 1, T do
    local lst = rnn({ xs[t], unpack(state) })
    state = { unpack(lst, 1, 2 * L) }
    local l = criterion(lst[#lst], ys[t])
    loss = loss and loss + l or l
  end
  loss:backward()
  grad_params:clamp(-5, 5)
  return loss:item() / T, grad_params
end

-- Both styles compute the same gradient (checked once, on the same weights).
local ref_loss = feval(params)
local g1 = grad_params:clone()
local ag_loss = feval_autograd()
local gdiff = (g1 - grad_params):abs():max() / torch.abs(g1):max()
if os.getenv('BENCH_CHECK_ONLY') then print(ref_loss, ag_loss, gdiff) os.exit(0) end

local rms = { learningRate = 2e-3, alpha = 0.95 }
local adam = { learningRate = 2e-3 }
local s_rms, s_adam, s_ag = {}, {}, {}
local ours = {}
local only_profile = steps == 0  -- tocha bench/torch7_nngraph.lua 1 0: the per-node profile alone
if not only_profile then
ours.step_rmsprop = H.best(function() optim.rmsprop(feval, params, rms, s_rms) end, steps, 1) * 1e3
ours.step_adam = H.best(function() optim.adam(feval, params, adam, s_adam) end, steps, 1) * 1e3
ours.autograd_rmsprop = H.best(function() optim.rmsprop(feval_autograd, params, rms, s_ag) end, steps, 1) * 1e3
-- forward alone over the sequence through the clones (sampling, evaluation): as Torch7 scripts
-- run it (gradients on) and under torch.noGrad
local function forward_seq()
  local state = init_state
  for t = 1, T do
    local lst = clones[t]:forward({ xs[t], unpack(state) })
    state = { unpack(lst, 1, 2 * L) }
    crits[t]:forward(lst[#lst], ys[t])
  end
end
ours.forward = H.best(forward_seq, steps, 1) * 1e3
ours.forward_nograd = H.best(function() torch.noGrad(forward_seq) end, steps, 1) * 1e3
end

-- The graph's own cost: one clone, its modules called directly in forward order with the inputs
-- the gModule gave them (a replay of the same work), against gModule:forward/backward.
local g = clones[1]
local gin = { xs[1], unpack(init_state) }
local gout = g:forward(gin)
local ggo = {}
for i = 1, 2 * L do ggo[i] = torch.randn(B, R) end
ggo[2 * L + 1] = torch.randn(B, V)
local fwd, nodes = {}, 0
for _, node in ipairs(g.forwardnodes) do
  nodes = nodes + 1
  local d = node.data
  if d.module then
    local xin = #d.input == 1 and d.input[1] or d.input
    fwd[#fwd + 1] = { d.module, xin }
  end
end
g:backward(gin, ggo)
local bwd = {}
for _, node in ipairs(g.backwardnodes) do
  local d = node.data
  -- a module without its own updateGradInput (char-rnn's OneHot) did nothing in Torch7's backward
  if d.module and d.module.updateGradInput ~= nn.Module.updateGradInput then
    local go = #d.gradOutput > 1 and d.gradOutputBuffer or d.gradOutput[1]
    bwd[#bwd + 1] = { d.module, #d.input == 1 and d.input[1] or d.input, go }
  end
end
-- The variants run alternately, round after round, and each keeps its best round: on a shared
-- machine the load changes within seconds, and differences of a few percent are what is measured.
local function interleaved(fns, n, rounds)
  local best = {}
  for k, fn in pairs(fns) do fn(); best[k] = math.huge end
  for _ = 1, rounds do
    for k, fn in pairs(fns) do
      local t0 = torch.tic()
      for _ = 1, n do fn() end
      best[k] = math.min(best[k], torch.toc(t0) / n * 1e6)
    end
  end
  return best
end
local us = interleaved({
  -- (a) the modules' own work: updateOutput, updateGradInput, accGradParameters called directly
  direct_f = function() for i = 1, #fwd do local c = fwd[i]; c[1]:updateOutput(c[2]) end end,
  direct_fb = function()
    for i = 1, #fwd do local c = fwd[i]; c[1]:updateOutput(c[2]) end
    for i = 1, #bwd do local c = bwd[i]; c[1]:updateGradInput(c[2], c[3]); c[1]:accGradParameters(c[2], c[3], 1) end
  end,
  -- (b) the same through nn.Module's forward/backward (autograd recording of each module's forward)
  wrapped_fb = function()
    for i = 1, #fwd do local c = fwd[i]; c[1]:forward(c[2]) end
    for i = 1, #bwd do local c = bwd[i]; c[1]:backward(c[2], c[3], 1) end
  end,
  -- (c) through the gModule: a training pattern (forward, backward) and inference under torch.noGrad
  graph_fb = function() g:forward(gin); g:backward(gin, ggo) end,
  graph_f = function() torch.noGrad(g.forward, g, gin) end,
}, 10, tonumber(os.getenv('BENCH_ROUNDS') or '15'))
local direct_f, direct_fb, wrapped_fb, graph_fb, graph_f = us.direct_f, us.direct_fb, us.wrapped_fb, us.graph_fb, us.graph_f
local ref = only_profile and {} or H.reference('torch7_nngraph_ref.py', threads, steps)

print(string.format('threads=%d  char-rnn LSTM: %d layers, rnn_size %d, vocab %d, batch %d, seq %d; %d clones made in %.2f s',
  threads, L, R, V, B, T, T, clone_s))
print(string.format('loss %.5f (clones) / %.5f (autograd); the gradients differ by %.2g of the largest', ref_loss, ag_loss, gdiff))
print(string.format('%-22s %10s %10s %9s', 'case', 'tocha ms', 'pytorch ms', 'speedup'))
for _, k in ipairs(only_profile and {} or { 'step_rmsprop', 'step_adam', 'autograd_rmsprop', 'forward', 'forward_nograd' }) do
  local r = ref[k]
  print(string.format('%-22s %10.2f %10s %9s', k, ours[k], H.fmt(r, '%.2f'), r and string.format('%.2fx', r / ours[k]) or 'n/a'))
end
print('step_*: clones, forward + ClassNLLCriterion + backward over seq, clamp, optim step (PyTorch: the same cell in')
print('eager, loss.backward(), torch.optim); autograd_*: one gModule called over seq, loss:backward(); forward: the')
print('clones over seq, no backward, gradients on (as Torch7 scripts sample); forward_nograd: under torch.noGrad')
print('speedup = pytorch time / tocha time')
print(string.format('one clone (%d graph nodes, %d module calls forward, %d backward), us per call:', nodes, #fwd, #bwd))
print(string.format('  forward+backward: gModule %8.1f  nn forward/backward %8.1f  modules alone %8.1f', graph_fb, wrapped_fb, direct_fb))
print(string.format('    nngraph walk %.2f us per node, nn.Module wrappers %.2f us per module call', (graph_fb - wrapped_fb) / nodes,
  (wrapped_fb - direct_fb) / #fwd))
print(string.format('  forward under torch.noGrad: gModule %8.1f  modules alone %8.1f  overhead %.2f us per node', graph_f, direct_f,
  (graph_f - direct_f) / nodes))
