-- Imitates karpathy/char-rnn's train.lua: a character-level multi-layer LSTM (model/LSTM.lua,
-- built with nngraph, one-hot inputs through util/OneHot.lua) trained with optim.rmsprop over a
-- flattened parameter vector, unrolled in time by clones made with model_utils.clone_many_times
-- (torch.MemoryFile), data from CharSplitLMMinibatchLoader (vocab.t7/data.t7), checkpoints
-- written with torch.save, and the loss curve drawn with gnuplot. Run from this folder
-- (require 'util.OneHot' finds ./util/OneHot.lua, as `th train.lua` did in a char-rnn checkout).
-- The last line it prints is "RESULT first=<loss> last=<loss> checkpoint=<path>".
require 'torch'
require 'nn'
require 'nngraph'
require 'optim'
require 'paths'
require 'gnuplot'

require 'util.OneHot'
require 'util.misc'
local CharSplitLMMinibatchLoader = require 'util.CharSplitLMMinibatchLoader'
local model_utils = require 'util.model_utils'
local LSTM = require 'model.LSTM'

cmd = torch.CmdLine()
cmd:text()
cmd:text('Train a character-level language model')
cmd:text()
cmd:text('Options')
cmd:option('-data_dir', 'data/tinyshakespeare', 'data directory. Should contain the file input.txt with input data')
cmd:option('-rnn_size', 32, 'size of LSTM internal state')
cmd:option('-num_layers', 2, 'number of layers in the LSTM')
cmd:option('-model', 'lstm', 'lstm only here')
cmd:option('-learning_rate', 1e-2, 'learning rate')
cmd:option('-learning_rate_decay', 0.97, 'learning rate decay')
cmd:option('-learning_rate_decay_after', 2, 'in number of epochs, when to start decaying the learning rate')
cmd:option('-decay_rate', 0.95, 'decay rate for rmsprop')
cmd:option('-dropout', 0, 'dropout for regularization, used after each RNN hidden layer. 0 = no dropout')
cmd:option('-seq_length', 10, 'number of timesteps to unroll for')
cmd:option('-batch_size', 8, 'number of sequences to train on in parallel')
cmd:option('-max_epochs', 4, 'number of full passes through the training data')
cmd:option('-grad_clip', 5, 'clip gradients at this value')
cmd:option('-train_frac', 0.8, 'fraction of data that goes into train set')
cmd:option('-val_frac', 0.2, 'fraction of data that goes into validation set')
cmd:option('-seed', 123, 'torch manual random number generator seed')
cmd:option('-print_every', 5, 'how many steps/minibatches between printing out the loss')
cmd:option('-eval_val_every', 20, 'every how many iterations should we evaluate on validation data?')
cmd:option('-checkpoint_dir', 'cv', 'output directory where checkpoints get written')
cmd:option('-savefile', 'lstm', 'filename to autosave the checkpont to. Will be inside checkpoint_dir/')
cmd:option('-gpuid', -1, 'which gpu to use. -1 = use CPU')
cmd:text()

opt = cmd:parse(arg)
torch.manualSeed(opt.seed)
local split_sizes = {opt.train_frac, opt.val_frac, 0}

-- initialize cunn/cutorch for training on the GPU and fall back to CPU gracefully
if opt.gpuid >= 0 then
  local ok, cunn = pcall(require, 'cunn')
  local ok2, cutorch = pcall(require, 'cutorch')
  if ok and ok2 then
    print('using CUDA on GPU ' .. opt.gpuid .. '...')
    cutorch.setDevice(opt.gpuid + 1)
    cutorch.manualSeed(opt.seed)
  else
    print('Falling back on CPU mode')
    opt.gpuid = -1
  end
end

local loader = CharSplitLMMinibatchLoader.create(opt.data_dir, opt.batch_size, opt.seq_length, split_sizes)
local vocab_size = loader.vocab_size
local vocab = loader.vocab_mapping
print('vocab size: ' .. vocab_size)
if not paths.dirp(opt.checkpoint_dir) then paths.mkdir(opt.checkpoint_dir) end

print('creating an ' .. opt.model .. ' with ' .. opt.num_layers .. ' layers')
protos = {}
protos.rnn = LSTM.lstm(vocab_size, opt.rnn_size, opt.num_layers, opt.dropout)
protos.criterion = nn.ClassNLLCriterion()

-- the initial state of the cell/hidden states
init_state = {}
for L = 1, opt.num_layers do
  local h_init = torch.zeros(opt.batch_size, opt.rnn_size)
  if opt.gpuid >= 0 then h_init = h_init:cuda() end
  table.insert(init_state, h_init:clone())
  table.insert(init_state, h_init:clone())
end
if opt.gpuid >= 0 then for k, v in pairs(protos) do v:cuda() end end

-- put the above things into one flattened parameters tensor
params, grad_params = protos.rnn:getParameters()
params:uniform(-0.08, 0.08)
-- initialize the LSTM forget gates with slightly higher biases to encourage remembering
for layer_idx = 1, opt.num_layers do
  for _, node in ipairs(protos.rnn.forwardnodes) do
    if node.data.annotations.name == "i2h_" .. layer_idx then
      print('setting forget gate biases to 1 in LSTM layer ' .. layer_idx)
      node.data.module.bias[{{opt.rnn_size + 1, 2 * opt.rnn_size}}]:fill(1.0)
    end
  end
end
print('number of parameters in the model: ' .. params:nElement())

-- make a bunch of clones after flattening, as that reallocates memory
clones = {}
for name, proto in pairs(protos) do
  print('cloning ' .. name)
  clones[name] = model_utils.clone_many_times(proto, opt.seq_length, not proto.parameters)
end

function prepro(x, y)
  x = x:transpose(1, 2):contiguous() -- swap the axes for faster indexing
  y = y:transpose(1, 2):contiguous()
  if opt.gpuid >= 0 then x = x:float():cuda(); y = y:float():cuda() end
  return x, y
end

function eval_split(split_index, max_batches)
  print('evaluating loss over split index ' .. split_index)
  local n = loader.split_sizes[split_index]
  if max_batches ~= nil then n = math.min(max_batches, n) end
  loader:reset_batch_pointer(split_index)
  local loss = 0
  local rnn_state = {[0] = init_state}
  for i = 1, n do
    local x, y = loader:next_batch(split_index)
    x, y = prepro(x, y)
    for t = 1, opt.seq_length do
      clones.rnn[t]:evaluate()
      local lst = clones.rnn[t]:forward{x[t], unpack(rnn_state[t - 1])}
      rnn_state[t] = {}
      for i = 1, #init_state do table.insert(rnn_state[t], lst[i]) end
      prediction = lst[#lst]
      loss = loss + clones.criterion[t]:forward(prediction, y[t])
    end
    rnn_state[0] = rnn_state[#rnn_state]
  end
  return loss / opt.seq_length / n
end

local init_state_global = clone_list(init_state)
function feval(x)
  if x ~= params then params:copy(x) end
  grad_params:zero()
  local x, y = loader:next_batch(1)
  x, y = prepro(x, y)
  ------------------- forward pass -------------------
  local rnn_state = {[0] = init_state_global}
  local predictions = {}
  local loss = 0
  for t = 1, opt.seq_length do
    clones.rnn[t]:training()
    local lst = clones.rnn[t]:forward{x[t], unpack(rnn_state[t - 1])}
    rnn_state[t] = {}
    for i = 1, #init_state do table.insert(rnn_state[t], lst[i]) end
    predictions[t] = lst[#lst]
    loss = loss + clones.criterion[t]:forward(predictions[t], y[t])
  end
  loss = loss / opt.seq_length
  ------------------ backward pass -------------------
  local drnn_state = {[opt.seq_length] = clone_list(init_state, true)}
  for t = opt.seq_length, 1, -1 do
    local doutput_t = clones.criterion[t]:backward(predictions[t], y[t])
    table.insert(drnn_state[t], doutput_t)
    local dlst = clones.rnn[t]:backward({x[t], unpack(rnn_state[t - 1])}, drnn_state[t])
    drnn_state[t - 1] = {}
    for k, v in pairs(dlst) do
      if k > 1 then drnn_state[t - 1][k - 1] = v end
    end
  end
  init_state_global = rnn_state[#rnn_state]
  grad_params:clamp(-opt.grad_clip, opt.grad_clip)
  return loss, grad_params
end

train_losses = {}
val_losses = {}
local optim_state = {learningRate = opt.learning_rate, alpha = opt.decay_rate}
local iterations = opt.max_epochs * loader.ntrain
local savefile
for i = 1, iterations do
  local epoch = i / loader.ntrain
  local timer = torch.Timer()
  local _, loss = optim.rmsprop(feval, params, optim_state)
  local time = timer:time().real
  train_losses[i] = loss[1]

  if i % loader.ntrain == 0 and opt.learning_rate_decay < 1 then
    if epoch >= opt.learning_rate_decay_after then
      optim_state.learningRate = optim_state.learningRate * opt.learning_rate_decay
      print('decayed learning rate by a factor ' .. opt.learning_rate_decay .. ' to ' .. optim_state.learningRate)
    end
  end

  if i % opt.eval_val_every == 0 or i == iterations then
    local val_loss = eval_split(2)
    val_losses[i] = val_loss
    savefile = string.format('%s/lm_%s_epoch%.2f_%.4f.t7', opt.checkpoint_dir, opt.savefile, epoch, val_loss)
    print('saving checkpoint to ' .. savefile)
    local checkpoint = {}
    checkpoint.protos = protos
    checkpoint.opt = opt
    checkpoint.train_losses = train_losses
    checkpoint.val_loss = val_loss
    checkpoint.val_losses = val_losses
    checkpoint.i = i
    checkpoint.epoch = epoch
    checkpoint.vocab = loader.vocab_mapping
    torch.save(savefile, checkpoint)
  end

  if i % opt.print_every == 0 then
    print(string.format("%d/%d (epoch %.3f), train_loss = %6.8f, grad/param norm = %6.4e, time/batch = %.4fs",
      i, iterations, epoch, train_losses[i], grad_params:norm() / params:norm(), time))
  end
  if i % 10 == 0 then collectgarbage() end
  if loss[1] ~= loss[1] then
    print('loss is NaN.  This usually indicates a bug.')
    break
  end
end

-- the loss curve, as people added to train.lua to watch a run
gnuplot.pngfigure(paths.concat(opt.checkpoint_dir, 'train_loss.png'))
gnuplot.plot({'train', torch.Tensor(train_losses), '-'})
gnuplot.xlabel('iteration')
gnuplot.ylabel('loss')
gnuplot.title('char-rnn ' .. opt.savefile)
gnuplot.plotflush()

-- the mean of the first and of the last five iterations: a single batch is noisy
local function mean(a, b) local s = 0 for k = a, b do s = s + train_losses[k] end return s / (b - a + 1) end
print(string.format('RESULT first=%.6f last=%.6f checkpoint=%s', mean(1, 5), mean(iterations - 4, iterations), savefile))
