-- Torch7 programs run unmodified: each script under torch7_programs/ imitates a well-known Torch7
-- program (char-rnn's train.lua and sample.lua, torch/demos' logistic regression and digit
-- classifier, torch/tutorials' 2_supervised, fb.resnet.torch's threaded loader and ResNet,
-- imagenet-multiGPU.torch's folder dataset) on
-- tiny synthetic data. Each runs as a child `tocha` process (cwd = torch7_programs/, as `th
-- script.lua` ran in a checkout) writing into a fresh temporary folder; the suite checks that it
-- finishes, that its loss falls (or accuracy rises), and that the files it writes load back here.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local HERE = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local I = dofile(HERE .. '/helpers/interpreter.lua')
local quote = I.quote
-- the programs run from their own folder: the interpreter's path must not be relative
local TOCHA = I.path:sub(1, 1) == '/' and I.TOCHA or quote(io.popen('pwd -P'):read('*l') .. '/' .. I.path)

local function sh(cmd)
  local f = assert(io.popen(cmd))
  local s = f:read('*a')
  f:close()
  return (s:gsub('%s+$', ''))
end

local PROGRAMS = sh('cd ' .. quote(HERE .. '/torch7_programs') .. ' && pwd -P')
local TMP = os.getenv('TOCHA_TEST_TMP') or '/tmp'
-- Everything the programs write goes under ROOT, removed by the shell at the end.
local ROOT = sh("mktemp -d '" .. TMP .. "/torch7_programs_XXXXXX'")

-- Runs a program with arguments; returns its output (stdout and stderr) and exit status.
local function run(script, args)
  local cmd = 'cd ' .. quote(PROGRAMS) .. ' && ' .. TOCHA .. ' ' .. script .. ' ' .. (args or '') .. ' 2>&1; echo "__rc=$?"'
  local out = sh(cmd)
  local rc = tonumber(out:match('__rc=(%d+)$'))
  return out:gsub('\n?__rc=%d+$', ''), rc
end

-- The key=value pairs of the program's RESULT line (numbers converted), after checking it exited 0.
local function result(script, args)
  local out, rc = run(script, args)
  if rc ~= 0 or not out:match('\nRESULT ') then
    error(string.format('%s %s exited with %s:\n%s', script, args or '', tostring(rc), out:sub(-3000)), 2)
  end
  local r = {}
  for k, v in out:match('\nRESULT ([^\n]*)'):gmatch('([%w_]+)=(%S+)') do r[k] = tonumber(v) or v end
  return r, out
end

local function exists(path) local f = io.open(path, 'rb') if f then f:close() end return f ~= nil end
local function slurp(path) local f = assert(io.open(path, 'rb')) local s = f:read('*a') f:close() return s end
local function isPng(path) return exists(path) and slurp(path):sub(1, 8) == '\137PNG\r\n\26\n' end
local function dir(name) local d = ROOT .. '/' .. name sh('mkdir -p ' .. quote(d)) return d end

-- A generated text for char-rnn: words from a small vocabulary (a fixed LCG, not math.random, so
-- the text is the same whatever else ran before).
local function makeText(nwords)
  local words = {'the', 'cat', 'sat', 'on', 'mat', 'a', 'dog', 'ran', 'to', 'red', 'ball'}
  local s, out = 12345, {}
  for i = 1, nwords do
    s = (s * 1103515245 + 12345) % 2147483648
    out[i] = words[math.floor(s / 65536) % #words + 1]
  end
  return table.concat(out, ' ') .. '\n'
end

function tests.charRnnTrainThenSample()
  local data, cv = dir('charrnn/data'), ROOT .. '/charrnn/cv'
  local text = makeText(500)
  local f = assert(io.open(data .. '/input.txt', 'w')) f:write(text) f:close()
  local r = result('char_rnn_train.lua', '-data_dir ' .. quote(data) .. ' -checkpoint_dir ' .. quote(cv))
  -- ln(#vocab) = ln(16) = 2.77 at the start; the words are learnt within 4 epochs (2.55 -> 1.31 measured)
  tester:assert(r.last < 0.75 * r.first, string.format('char-rnn loss falls: %g -> %g', r.first, r.last))
  -- the loader's preprocessing: vocab.t7 maps the sorted characters to 1..N, data.t7 the text
  local vocab, bytes = torch.load(data .. '/vocab.t7'), torch.load(data .. '/data.t7')
  local chars = {}
  for c, i in pairs(vocab) do chars[i] = c end
  tester:asserteq(#chars, 16, 'vocab.t7 has the 16 characters of the text')
  for i = 2, #chars do tester:assert(chars[i - 1] < chars[i], 'vocab indices follow the sorted characters') end
  tester:asserteq(torch.type(bytes), 'torch.ByteTensor', 'data.t7 type')
  tester:asserteq(bytes:nElement(), #text, 'data.t7 holds every character')
  local decoded = {}
  for i = 1, bytes:nElement() do decoded[i] = chars[bytes[i]] end
  tester:asserteq(table.concat(decoded), text, 'data.t7 decodes back to input.txt')
  tester:assert(exists(r.checkpoint), 'checkpoint written: ' .. tostring(r.checkpoint))
  tester:assert(isPng(cv .. '/train_loss.png'), 'gnuplot drew the loss curve to train_loss.png')
  -- sample.lua in its own process: torch.load of the gModule/OneHot checkpoint, then sampling
  local s, out = result('char_rnn_sample.lua', quote(r.checkpoint) .. ' -length 100')
  tester:asserteq(s.chars, 100, 'sampled 100 characters')
  tester:asserteq(s.known, 100, 'every sampled index is in the vocabulary')
  local greedy = result('char_rnn_sample.lua', quote(r.checkpoint) .. ' -sample 0 -length 30')
  tester:asserteq(greedy.known, 30, 'argmax sampling')
end

-- char-rnn's own default is -gpuid 0: on a machine without CUDA, require 'cutorch' fails and the
-- script falls back to the CPU, as in Torch7; with a GPU it trains there.
function tests.charRnnDefaultGpuFallsBackOrRuns()
  local data, cv = dir('charrnn_gpu/data'), ROOT .. '/charrnn_gpu/cv'
  local f = assert(io.open(data .. '/input.txt', 'w')) f:write(makeText(200)) f:close()
  local r, out = result('char_rnn_train.lua', '-data_dir ' .. quote(data) .. ' -checkpoint_dir ' .. quote(cv)
    .. ' -gpuid 0 -max_epochs 1 -eval_val_every 1000')
  tester:assert(out:find('Falling back on CPU mode', 1, true) or out:find('using CUDA on GPU 0', 1, true),
    'either CPU fallback or CUDA')
  tester:assert(exists(r.checkpoint), 'the final checkpoint')
end

function tests.logisticRegression()
  local d = dir('logreg')
  local r = result('logistic_regression.lua', quote(d))
  tester:assert(exists(d .. '/example-logistic-regression.csv'), 'the CSV was written')
  tester:assert(r.sgd_last < r.sgd_first, string.format('SGD epochs lower the loss: %g -> %g', r.sgd_first, r.sgd_last))
  tester:assert(r.lbfgs_last < 0.7 * r.lbfgs_first,
    string.format('L-BFGS from a reset model lowers the loss: %g -> %g', r.lbfgs_first, r.lbfgs_last))
  tester:assert(r.lbfgs_last <= r.sgd_last + 0.05, 'full-batch L-BFGS ends at least as low as SGD')
  tester:assert(r.agree >= 0.7, 'predictions agree with the data frequencies: ' .. r.agree)
end

function tests.digitClassifier()
  local save, data = ROOT .. '/digits/logs', ROOT .. '/digits/mnist-th7'
  local r = result('digit_classifier.lua', '-save ' .. quote(save) .. ' -data ' .. quote(data) .. ' -threads 1')
  tester:assert(r.last > r.first + 0.3, string.format('train accuracy rises: %g -> %g', r.first, r.last))
  tester:assert(r.test >= 0.8, 'test accuracy ' .. r.test)
  tester:assert(exists(data .. '/train.th7') and exists(data .. '/test.th7'), 'the DiskFile datasets')
  tester:assert(exists(save .. '/mnist.net.old'), 'the previous epoch\'s network was moved aside')
  local net = torch.load(r.net)
  tester:asserteq(torch.type(net), 'nn.Sequential', 'mnist.net loads back')
  tester:asserteq(torch.type(net:get(5)), 'nn.SpatialConvolutionMap', 'with its modules')
  local out = net:forward(torch.randn(1, 16, 16))
  tester:assertTensorEq(out:exp():sum(1), torch.ones(1):typeAs(out), 1e-4, 'a forward gives probabilities')
  -- optim.Logger: a header and one row per epoch
  local lines = {}
  for line in io.lines(save .. '/train.log') do lines[#lines + 1] = line end
  tester:asserteq(#lines, 4, 'train.log: header + 3 epochs')
  tester:assert(lines[1]:find('% mean class accuracy (train set)', 1, true), 'train.log header')
  tester:assert(exists(save .. '/test.log.svg'), 'Logger:plot drew test.log.svg')
end

function tests.supervisedTutorial()
  local save = ROOT .. '/svhn/results'
  local r = result('supervised_svhn.lua', '-save ' .. quote(save) .. ' -threads 1 -plot')
  tester:assert(r.last > r.first + 0.4, string.format('train accuracy rises: %g -> %g', r.first, r.last))
  tester:assert(r.test >= 0.7, 'test accuracy ' .. r.test)
  tester:assert(exists(save .. '/train.log.svg') and exists(save .. '/test.log.svg'), '-plot drew both logs')
  local model = torch.load(r.model)
  tester:asserteq(torch.type(model), 'nn.Sequential', 'model.net loads back')
  tester:asserteq(torch.type(model:get(3)), 'nn.SpatialLPPooling', 'with its modules')
  model:evaluate()
  local out = model:forward(torch.randn(3, 16, 16):float())
  tester:asserteq(out:nElement(), 10, 'one log-probability per class')
  -- the tutorial's other switches: doubles and averaged SGD
  local save2 = ROOT .. '/svhn/asgd'
  local r2 = result('supervised_svhn.lua', '-save ' .. quote(save2) .. ' -threads 1 -type double -optimization ASGD -epochs 3')
  tester:assert(r2.last > r2.first, string.format('ASGD on doubles learns: %g -> %g', r2.first, r2.last))
  tester:asserteq(torch.type(torch.load(r2.model):get(1).weight), 'torch.DoubleTensor', '-type double model')
end

function tests.resnetThreadedLoader()
  local save = ROOT .. '/resnet/checkpoints'
  local r = result('resnet_threads.lua', '-save ' .. quote(save) .. ' -nThreads 2')
  tester:assert(r.last < 0.5 * r.first, string.format('training loss falls: %g -> %g', r.first, r.last))
  tester:assert(r.top1 <= 25, 'validation top-1 error ' .. r.top1 .. '%')
  local latest = torch.load(r.latest)
  tester:asserteq(latest.epoch, 3, 'latest.t7 names the last epoch')
  for _, name in ipairs{latest.modelFile, latest.optimFile, 'model_best.t7', 'model_1.t7'} do
    tester:assert(exists(save .. '/' .. name), name .. ' written')
  end
  local state = torch.load(save .. '/' .. latest.optimFile)
  tester:asserteq(state.nesterov, true, 'the optimizer state')
  local model = torch.load(save .. '/' .. latest.modelFile)
  tester:asserteq(torch.type(model), 'nn.Sequential', 'the model loads back')
  tester:asserteq(model:get(1).bias, nil, 'its convolutions have no bias (fb.resnet\'s init)')
  model:evaluate()
  local out = model:forward(torch.randn(2, 3, 16, 16):float())
  tester:assertTableEq(out:size():totable(), {2, 4}, 'a forward gives 4 class scores per image')
  -- convolution shortcuts (type B), one loader thread
  local rB = result('resnet_threads.lua', '-save ' .. quote(ROOT .. '/resnet/b') .. ' -shortcutType B -nThreads 1 -nEpochs 2')
  tester:assert(rB.last < rB.first, string.format('shortcut B: loss falls %g -> %g', rB.first, rB.last))
  local mB = torch.load(ROOT .. '/resnet/b/model_2.t7')
  tester:assert(#mB:findModules('nn.SpatialConvolution') > #model:findModules('nn.SpatialConvolution'),
    'type B has 1x1 convolutions on its projection shortcuts')
end

function tests.imagenetFolderDataset()
  local data, cache = ROOT .. '/imagenet/data', ROOT .. '/imagenet/cache'
  local args = '-data ' .. quote(data) .. ' -cache ' .. quote(cache)
  local r, out = result('imagenet_dataset.lua', args)
  tester:assert(out:find('Creating train metadata', 1, true), 'the first run indexes the folders')
  -- 3 classes x 12 .t7 files (the README.txt files are skipped by find), split 75/25 per class
  tester:asserteq(r.classes, 3, 'classes from paths.iterdirs')
  tester:asserteq(r.samples, 36, 'image paths from find, counted by sys.fexecute')
  tester:asserteq(r.train, 27, 'training split')
  tester:asserteq(r.test, 9, 'test split')
  tester:assert(r.last < 0.5 * r.first, string.format('loss falls: %g -> %g', r.first, r.last))
  tester:assert(exists(r.cache), 'trainCache.t7 written')
  -- the cache holds a dataLoader object: this process has no such class, and says so
  local ok, err = pcall(torch.load, r.cache)
  tester:assert(not ok and tostring(err):find('unknown class dataLoader', 1, true), 'unknown class: ' .. tostring(err))
  -- the second run reloads the cached object (class instance with its tensors)
  local r2, out2 = result('imagenet_dataset.lua', args)
  tester:assert(out2:find('Loading train metadata from cache', 1, true), 'the second run uses the cache')
  tester:asserteq(r2.samples, 36, 'cached sample count')
  tester:asserteq(r2.test, 9, 'cached split')
  tester:assert(r2.last < 0.5 * r2.first, 'training from the cached loader')
end

tester:add(tests)
local ok, err = pcall(function() tester:run() end)
sh('rm -rf ' .. quote(ROOT))
if not ok then error(err, 0) end
