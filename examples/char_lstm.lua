-- A character-level language model (char-rnn): an embedding, a 2-layer LSTM and a linear
-- read-out predict the next character of examples/data/tiny_shakespeare.txt (the opening of
-- Coriolanus, public domain). The loss falls from ln(vocabulary) and the model writes text. The
-- text is small (8.5 KB): past ~200 steps the model memorizes it and the held-out loss rises.
--   tocha examples/char_lstm.lua [--iterations 200] [--temperature 0.7] [--quick]
require 'nn'
require 'optim'

local cmd = torch.CmdLine()
cmd:option('--text', '', 'text file (default: examples/data/tiny_shakespeare.txt next to this script)')
cmd:option('--iterations', 200, 'training steps')
cmd:option('--batchSize', 32, 'sequences per step')
cmd:option('--seqLength', 64, 'characters per sequence (backpropagation through time)')
cmd:option('--hidden', 128, 'LSTM hidden size')
cmd:option('--lr', 3e-3, 'Adam learning rate')
cmd:option('--dropout', 0.2, 'dropout between the LSTM layers')
cmd:option('--temperature', 0.7, 'sampling temperature')
cmd:option('--seed', 1, 'random seed')
cmd:option('--quick', false, 'a short run (a smoke test)')
local opt = cmd:parse(arg)
if opt.quick then opt.iterations, opt.hidden = 60, 64 end
torch.manualSeed(opt.seed)

-- The text as a LongTensor of character indices 1..V.
local here = (arg and arg[0] or ''):match('^(.*)/') or '.'
local path = opt.text ~= '' and opt.text or here .. '/data/tiny_shakespeare.txt'
local f = assert(io.open(path, 'rb'))
local text = f:read('*a')
f:close()
local chars, index = {}, {}
for c in text:gmatch('.') do if not index[c] then chars[#chars + 1] = c; index[c] = true end end
table.sort(chars)
for i, c in ipairs(chars) do index[c] = i end
local V = #chars
local all = torch.LongTensor(#text)
for i = 1, #text do all[i] = index[text:sub(i, i)] end
-- The last 10% is held out: its loss shows how much of the fall is learning, not memorizing.
local nVal = math.floor(#text / 10)
local codes, heldOut = all:narrow(1, 1, #text - nVal), all:narrow(1, #text - nVal + 1, nVal)
local N = codes:size(1)
print(string.format('%s: %d characters (%d for training, %d held out), vocabulary of %d', path, #text, N, nVal, V))

local H, T, B = opt.hidden, opt.seqLength, opt.batchSize
local embed = nn.LookupTable(V, 48)
local lstm = nn.LSTM(48, H, { numLayers = 2, batchFirst = true, dropout = opt.dropout })
local readout = nn.Linear(H, V)
local model = nn.Sequential():add(embed):add(lstm):add(readout)
local crit = nn.CrossEntropyCriterion()
local optimizer = optim.Adam(model, { lr = opt.lr })

-- A batch of B random windows: inputs x[t] and targets x[t + 1].
local function batch()
  local x, y = torch.LongTensor(B, T), torch.LongTensor(B, T)
  for b = 1, B do
    local s = torch.random(1, N - T)
    x[b]:copy(codes:narrow(1, s, T))
    y[b]:copy(codes:narrow(1, s + 1, T))
  end
  return x, y
end

-- Forward over a batch: B x T x V scores, flattened to (B*T) x V for the criterion.
local function scores(x)
  local h = lstm:forward(embed:forward(x))
  return readout:forward(h:reshape(x:size(1) * x:size(2), H))
end

-- The mean loss over the held-out text, cut into consecutive windows of T characters.
local function heldOutLoss()
  local w = math.floor((nVal - 1) / T)
  local x, y = torch.LongTensor(w, T), torch.LongTensor(w, T)
  for i = 1, w do
    x[i]:copy(heldOut:narrow(1, (i - 1) * T + 1, T))
    y[i]:copy(heldOut:narrow(1, (i - 1) * T + 2, T))
  end
  model:evaluate()
  local l = torch.noGrad(function() return crit:forward(scores(x), y:view(-1)) end)
  model:training()
  return l
end

local timer = torch.Timer()
local first, smoothed
for it = 1, opt.iterations do
  local x, y = batch()
  optimizer:zeroGrad()
  local loss = crit(scores(x), y:view(B * T))
  loss:backward()
  nn.utils.clipGradNorm(model, 5)
  optimizer:step()
  local l = loss:item()
  first = first or l
  smoothed = smoothed and 0.9 * smoothed + 0.1 * l or l
  if it == 1 or it % math.max(1, math.floor(opt.iterations / 8)) == 0 then
    print(string.format('iteration %4d  loss %.3f  held-out %.3f  (%.1f s)', it, smoothed, heldOutLoss(),
      timer:time().real))
  end
end

-- Sampling: feed one character at a time, carrying the LSTM's states.
local function sample(prime, n, temperature)
  local out = { prime }
  local h, c
  local function step(code)
    local input = embed:forward(torch.LongTensor({ { code } }))                  -- 1 x 1 x 48
    local o = lstm:forward(h and { input, h, c } or input)
    h, c = lstm.hN:clone(), lstm.cN:clone()
    return readout:forward(o:view(1, H)):view(V)
  end
  return torch.noGrad(function()
    model:evaluate()
    local logits
    for i = 1, #prime do logits = step(index[prime:sub(i, i)]) end
    for _ = 1, n do
      local p = torch.exp((logits - logits:max()) / temperature)
      local code = torch.multinomial(p / p:sum(), 1)[1]
      out[#out + 1] = chars[code]
      logits = step(code)
    end
    return table.concat(out)
  end)
end

print(string.format('training loss: %.3f at the start (ln %d = %.3f), %.3f after %d steps; held-out loss %.3f', first,
  V, math.log(V), smoothed, opt.iterations, heldOutLoss()))
print('--- sample (temperature ' .. opt.temperature .. ') ---')
print(sample('MENENIUS:\n', opt.quick and 80 or 300, opt.temperature))
print('---')
local want = opt.quick and first - 0.5 or 2.0
local held = heldOutLoss()
if smoothed > want or held > first - 1 then
  io.stderr:write(string.format('the loss did not fall enough: %.3f (bound %.3f), held-out %.3f (bound %.3f)\n',
    smoothed, want, held, first - 1))
  os.exit(1)
end
