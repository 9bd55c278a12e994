-- A tiny Transformer encoder (token and position embeddings, two blocks of multi-head
-- self-attention and a feed-forward layer, residuals and layer norm) learns to reverse sequences
-- of digits. The model is a user container whose forward is written with modules and tensor ops;
-- autograd differentiates it.
--   tocha examples/transformer_tiny.lua [--steps 300] [--quick]
require 'nn'
require 'optim'

local cmd = torch.CmdLine()
cmd:option('--steps', 300, 'training steps')
cmd:option('--length', 8, 'sequence length')
cmd:option('--vocab', 10, 'number of distinct tokens')
cmd:option('--dim', 64, 'model width')
cmd:option('--heads', 4, 'attention heads')
cmd:option('--batchSize', 64, 'sequences per step')
cmd:option('--lr', 3e-3, 'Adam learning rate')
cmd:option('--seed', 1, 'random seed')
cmd:option('--quick', false, 'a short run (a smoke test)')
local opt = cmd:parse(arg)
if opt.quick then opt.steps, opt.length, opt.dim = 90, 6, 32 end
torch.manualSeed(opt.seed)

local TinyTransformer, parent = torch.class('nn.TinyTransformer', 'nn.Container')

function TinyTransformer:__init(vocab, length, dim, heads, blocks)
  parent.__init(self)
  self.length, self.dim, self.vocab = length, dim, vocab
  self.tokens = nn.LookupTable(vocab, dim)
  self.positions = nn.LookupTable(length, dim)
  self.blocks = {}
  self:add(self.tokens):add(self.positions)
  for b = 1, blocks do
    local block = { attention = nn.MultiHeadAttention(dim, heads, { batchFirst = true }),
                    up = nn.Linear(dim, 4 * dim), down = nn.Linear(4 * dim, dim) }
    block.attention.needWeights = false
    self:add(block.attention):add(block.up):add(block.down)
    self.blocks[b] = block
  end
  self.readout = nn.Linear(dim, vocab)
  self:add(self.readout)
end

-- x: batch x length token indices; returns (batch*length) x vocab scores.
function TinyTransformer:updateOutput(x)
  local B, L, E = x:size(1), x:size(2), self.dim
  local pos = torch.range(1, L):long()
  local h = self.tokens:forward(x) + self.positions:forward(pos):view(1, L, E)
  for _, blk in ipairs(self.blocks) do
    h = torch.layerNorm(h + blk.attention:forward(h), 1)               -- self-attention, residual, norm
    local flat = h:reshape(B * L, E)
    local f = blk.down:forward(torch.relu(blk.up:forward(flat)))     -- position-wise feed-forward
    h = torch.layerNorm(h + f:view(B, L, E), 1)
  end
  self.output = self.readout:forward(h:reshape(B * L, E))
  return self.output
end

-- The task: random sequences of tokens; the target is the sequence reversed.
local function batch(n)
  local x = torch.LongTensor(n, opt.length):random(1, opt.vocab)
  local y = x:index(2, torch.range(opt.length, 1, -1):long())
  return x, y
end

local model = nn.TinyTransformer(opt.vocab, opt.length, opt.dim, opt.heads, 2)
local crit = nn.CrossEntropyCriterion()
local optimizer = optim.Adam(model, { lr = opt.lr })
print(string.format('tiny transformer: %d parameters; task: reverse %d tokens out of %d', model:getParameters():nElement(),
  opt.length, opt.vocab))

local function accuracy(n)
  local x, y = batch(n)
  return torch.noGrad(function()
    model:evaluate()
    local pred = nn.metrics.predictions(model:forward(x)):view(n, opt.length)
    model:training()
    local same = pred:eq(y)
    return same:double():mean(), same:min(2):double():mean()   -- per token, whole sequence
  end)
end

local timer = torch.Timer()
for step = 1, opt.steps do
  local x, y = batch(opt.batchSize)
  optimizer:zeroGrad()
  local loss = crit(model:forward(x), y:view(-1))
  loss:backward()
  optimizer:step()
  if step == 1 or step % math.floor(opt.steps / 6) == 0 then
    local tok, seq = accuracy(256)
    print(string.format('step %4d  loss %.4f  token accuracy %5.1f%%  sequence accuracy %5.1f%%  (%.1f s)', step,
      loss:item(), 100 * tok, 100 * seq, timer:time().real))
  end
end

local tok, seq = accuracy(1000)
local x = batch(1)
local pred = torch.noGrad(function() model:evaluate() return nn.metrics.predictions(model:forward(x)) end)
local function str(t) local s = {} for i = 1, t:nElement() do s[i] = tostring(t[i] - 1) end return table.concat(s, ' ') end
print('input     ' .. str(x:view(-1)))
print('reversed  ' .. str(pred:view(-1)))
print(string.format('held-out accuracy: %.1f%% of tokens, %.1f%% of whole sequences', 100 * tok, 100 * seq))
local bound = opt.quick and 0.8 or 0.95
if tok < bound then
  io.stderr:write(string.format('token accuracy %.3f is below %.2f\n', tok, bound))
  os.exit(1)
end
