-- Imitates karpathy/char-rnn's sample.lua: loads a checkpoint written by char_rnn_train.lua
-- (torch.load of a table holding the nngraph gModule, the OneHot module and the vocabulary),
-- primes the LSTM state with a text, then samples characters (torch.multinomial over
-- exp(log-probabilities / temperature)) or takes the argmax (-sample 0). Run from this folder.
-- Prints the sampled text, then "RESULT chars=<n> known=<n>" (how many were in the vocabulary).
require 'torch'
require 'nn'
require 'nngraph'
require 'optim'

require 'util.OneHot'
require 'util.misc'

cmd = torch.CmdLine()
cmd:text()
cmd:text('Sample from a character-level language model')
cmd:text()
cmd:text('Options')
cmd:argument('-model', 'model checkpoint to use for sampling')
cmd:option('-seed', 123, 'random number generator\'s seed')
cmd:option('-sample', 1, ' 0 to use max at each timestep, 1 to sample at each timestep')
cmd:option('-primetext', "the ", 'used as a prompt to "seed" the state of the LSTM using a given sequence, before we sample.')
cmd:option('-length', 200, 'number of characters to sample')
cmd:option('-temperature', 1, 'temperature of sampling')
cmd:option('-gpuid', -1, 'which gpu to use. -1 = use CPU')
cmd:text()

opt = cmd:parse(arg)
torch.manualSeed(opt.seed)

if not paths.filep(opt.model) then
  print('Error: File ' .. opt.model .. ' does not exist. Are you sure you didn\'t forget to prepend cv/ ?')
end
checkpoint = torch.load(opt.model)
protos = checkpoint.protos

-- initialize the vocabulary (and its inverted version)
local vocab = checkpoint.vocab
local ivocab = {}
for c, i in pairs(vocab) do ivocab[i] = c end

print('creating an LSTM...')
local current_state = {}
for L = 1, checkpoint.opt.num_layers do
  local h_init = torch.zeros(1, checkpoint.opt.rnn_size)
  table.insert(current_state, h_init:clone())
  table.insert(current_state, h_init:clone())
end
local state_size = #current_state
local seed_text = opt.primetext

protos.rnn:evaluate() -- put in eval mode so that dropout works properly
print('seeding with ' .. seed_text)
for c in seed_text:gmatch'.' do
  prev_char = torch.Tensor{vocab[c]}
  local lst = protos.rnn:forward{prev_char, unpack(current_state)}
  current_state = {}
  for i = 1, state_size do table.insert(current_state, lst[i]) end
  prediction = lst[#lst]
end

local out, known = {}, 0
for i = 1, opt.length do
  if opt.sample == 0 then
    local _, prev_char_ = prediction:max(2)
    prev_char = prev_char_:resize(1)
  else
    prediction:div(opt.temperature) -- scale by temperature
    -- workaround, see report: char-rnn wrote torch.exp(prediction):squeeze() and divided that
    -- view in place; Tocha refuses in-place ops on views of tensors with autograd history
    local probs = torch.exp(prediction):squeeze():clone()
    probs:div(torch.sum(probs)) -- renormalize so probs sum to one
    prev_char = torch.multinomial(probs:float(), 1):resize(1):float()
  end
  local lst = protos.rnn:forward{prev_char, unpack(current_state)}
  current_state = {}
  for i = 1, state_size do table.insert(current_state, lst[i]) end
  prediction = lst[#lst]
  local ch = ivocab[prev_char[1]]
  if ch then known = known + 1 end
  out[#out + 1] = ch or '?'
end
io.write(table.concat(out)) io.write('\n') io.flush()
print(string.format('RESULT chars=%d known=%d', #out, known))
