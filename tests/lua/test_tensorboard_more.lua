-- SummaryWriter's hyperparameters, PR curves, audio, image batches and embeddings
-- (lua/torch/tensorboard_more.lua, tensorboard_embed.lua), read back by tests/lua/helpers/
-- tfevents.lua, which shares no code with the writer. google.protobuf and TensorBoard are not
-- installed for /usr/bin/python3, so message layouts are checked field by field against
-- TensorBoard's .proto files; the curve values, WAV bytes and float strings are PyTorch 1.13's
-- (its compute_curve, Python's wave module and str() run in /usr/bin/python3).
require 'torch.tensorboard'
local image = require 'data.image'
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/tfevents.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local SummaryWriter = torch.utils.tensorboard.SummaryWriter
local hex, decode, read_records, read_event, as_double, as_float = R.hex, R.decode, R.read_records, R.read_event, R.as_double, R.as_float

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  return d
end
local function events_in(path_glob)
  local p = io.popen('ls ' .. path_glob)
  local f = p:read('*l')
  p:close()
  local evs = {}
  for _, r in ipairs(read_records(f)) do evs[#evs + 1] = read_event(r) end
  return evs
end
local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end
local function packed_floats(s)
  local out = {}
  for i = 1, #s, 4 do out[#out + 1] = as_float(s:sub(i, i + 3)) end
  return out
end
local function plugin_of(value)
  local plugin = decode(decode(value[9][1])[1][1])
  return plugin[1][1], plugin[2] and plugin[2][1]
end

-- ---- Hyperparameters -------------------------------------------------------------------------------

function tests.hparams()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addHparams({ lr = 0.1, opt = 'sgd', bn = true, bs = torch.Tensor({ 32 }) }, { accuracy = 0.75, loss = torch.Tensor({ 0.5 }) },
    { runName = 'run1', hparamDomainDiscrete = { opt = { 'sgd', 'adam' }, lr = { 0.1, 0.01 } } })
  w:close()
  local evs = events_in(dir .. '/run1/events.out.tfevents.*')
  tester:asserteq(#evs, 6, 'file_version, experiment, start, end and two metrics')
  local tags = {}
  for i = 2, 6 do tags[i - 1] = evs[i].tag end
  tester:assertTableEq(tags, { '_hparams_/experiment', '_hparams_/session_start_info', '_hparams_/session_end_info', 'accuracy', 'loss' })

  -- experiment: HParamsPluginData{experiment = Experiment{hparam_infos (4), metric_infos (5)}}
  local name, content = plugin_of(evs[2].value)
  tester:asserteq(name, 'hparams')
  local data = decode(content)
  tester:asserteq(data[1], nil, 'version 0 is not written')
  local exp = decode(data[2][1])
  local infos = {}
  for _, s in ipairs(exp[4]) do
    local h = decode(s)
    infos[h[1][1]] = h
  end
  tester:asserteq(infos.lr[4][1], 3, 'FLOAT64')
  tester:asserteq(infos.bs[4][1], 3, 'a tensor is FLOAT64')
  tester:asserteq(infos.opt[4][1], 1, 'STRING')
  tester:asserteq(infos.bn[4][1], 2, 'BOOL')
  local discrete = decode(infos.opt[5][1])[1]  -- domain_discrete: ListValue.values
  tester:asserteq(decode(discrete[1])[3][1], 'sgd')
  tester:asserteq(decode(discrete[2])[3][1], 'adam')
  local lr_domain = decode(infos.lr[5][1])[1]
  tester:asserteq(as_double(decode(lr_domain[2])[2][1]), 0.01)
  tester:asserteq(infos.bs[5], nil, 'no domain given')
  local metrics = {}
  for _, s in ipairs(exp[5]) do metrics[#metrics + 1] = decode(decode(s)[1][1])[2][1] end
  tester:assertTableEq(metrics, { 'accuracy', 'loss' })

  -- session start: map<string, Value> hparams = 1 (entries key 1, value 2)
  local ssi = decode(decode(select(2, plugin_of(evs[3].value)))[3][1])
  local hp = {}
  for _, entry in ipairs(ssi[1]) do
    local e = decode(entry)
    hp[e[1][1]] = decode(e[2][1])
  end
  tester:asserteq(as_double(hp.lr[2][1]), 0.1)
  tester:asserteq(as_double(hp.bs[2][1]), 32)
  tester:asserteq(hp.opt[3][1], 'sgd')
  tester:asserteq(hp.bn[4][1], 1)
  -- session end: status STATUS_SUCCESS (1)
  local sei = decode(decode(select(2, plugin_of(evs[4].value)))[4][1])
  tester:asserteq(sei[1][1], 1)
  tester:asserteq(as_float(evs[5].value[2][1]), 0.75)
  tester:asserteq(as_float(evs[6].value[2][1]), 0.5)
end

function tests.hparamsErrors()
  local w = SummaryWriter(tmpdir())
  local function err(msg, ...)
    local ok, e = pcall(w.addHparams, w, ...)
    tester:assert(not ok and e:find('addHparams', 1, true) and e:find(msg, 1, true), tostring(e))
  end
  err('hparamDict must be a table', 'lr', {})
  err('hparamDict.lr must be a number, string, boolean or tensor', { lr = {} }, {})
  err('metricDict.acc must be a number', { lr = 1 }, { acc = 'high' })
  err("hparamDomainDiscrete.lr must hold numbers", { lr = 1 }, {}, { hparamDomainDiscrete = { lr = { 'a' } } })
  err('hparamDomainDiscrete.x must be a list', { lr = 1 }, {}, { hparamDomainDiscrete = { x = { 1 } } })
  err('unknown option run', { lr = 1 }, {}, { run = 'a' })
  w:close()
  local ok, e = pcall(w.addHparams, w, { lr = 1 }, {})
  tester:assert(not ok and e:find('closed'), tostring(e))
end

-- ---- PR curves ------------------------------------------------------------------------------------------

local function curve_of(e)
  local name, content = plugin_of(e.value)
  local tensor = decode(e.value[8][1])
  local shape = decode(tensor[2][1])[2]
  return name, decode(content), tensor[1][1], { decode(shape[1])[1][1], decode(shape[2])[1][1] }, packed_floats(tensor[5][1])
end

function tests.prCurve()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local labels = torch.Tensor({ 0, 1, 1, 0, 1, 1, 0 })
  local preds = torch.Tensor({ 0.2, 0.7, 0.4, 0.9, 1.0, 1.3, -0.1 })  -- the last two fall outside [0, 1]
  w:addPrCurve('pr', labels, preds, 7, { numThresholds = 5 })
  w:addPrCurve('weighted', labels:byte(), preds:float(), 8, { numThresholds = 4, weights = torch.Tensor({ 1, 2, 0.5, 1, 3, 1, 1 }) })
  w:addPrCurve('capped', torch.Tensor({ 1, 0 }), torch.Tensor({ 0.5, 0.5 }), 9, { numThresholds = 500 })
  w:close()
  local evs = events_in(dir .. '/events.out.tfevents.*')
  -- PyTorch 1.13's compute_curve (tp, fp, tn, fn, precision, recall), as float32
  local expect5 = { 3.0, 3.0, 2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0,
    0.6000000238418579, 0.75, 0.6666666865348816, 0.5, 1.0, 1.0, 1.0, 0.6666666865348816, 0.3333333432674408, 0.3333333432674408 }
  local expect4 = { 6.5, 6.5, 6.0, 4.0, 2.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.5, 2.5,
    0.7647058963775635, 0.8666666746139526, 0.8571428656578064, 1.0, 1.0, 1.0, 0.9230769276618958, 0.6153846383094788 }
  local name, data, dtype, shape, values = curve_of(evs[2])
  tester:asserteq(evs[2].step, 7)
  tester:asserteq(name, 'pr_curves')
  tester:asserteq(data[2][1], 5, 'PrCurvePluginData.num_thresholds')
  tester:asserteq(dtype, 1, 'DT_FLOAT')
  tester:assertTableEq(shape, { 6, 5 })
  tester:assertTableEq(values, expect5)
  name, data, dtype, shape, values = curve_of(evs[3])
  tester:assertTableEq(shape, { 6, 4 })
  tester:assertTableEq(values, expect4)
  name, data, dtype, shape = curve_of(evs[4])
  tester:asserteq(data[2][1], 127, 'capped at 127 as PyTorch')
  tester:assertTableEq(shape, { 6, 127 })
  -- float32 predictions are bucketed with a float32 product, as NumPy: 0.7 -> 7, 0.9 -> 9 of 10
  local w2 = SummaryWriter(tmpdir())
  w2:addPrCurve('f32', torch.Tensor({ 1, 0 }), torch.FloatTensor({ 0.7, 0.9 }), 0, { numThresholds = 11 })
  w2:close()
  _, _, _, _, values = curve_of(events_in(w2.logDir .. '/events.out.tfevents.*')[2])
  tester:assertTableEq(values, { 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 0 })
end

function tests.prCurveErrors()
  local w = SummaryWriter(tmpdir())
  local function err(msg, ...)
    local ok, e = pcall(w.addPrCurve, w, 'pr', ...)
    tester:assert(not ok and e:find('addPrCurve', 1, true) and e:find(msg, 1, true), tostring(e))
  end
  err('as many elements', torch.Tensor({ 0, 1 }), torch.Tensor({ 0.5 }), 0)
  err('labels must be 0 or 1', torch.Tensor({ 2 }), torch.Tensor({ 0.5 }), 0)
  err('numThresholds must be an integer of at least 2', torch.Tensor({ 1 }), torch.Tensor({ 0.5 }), 0, { numThresholds = 1 })
  err('weights must have one element per prediction', torch.Tensor({ 1 }), torch.Tensor({ 0.5 }), 0, { weights = torch.Tensor({ 1, 2 }) })
  err('predictions must be a tensor', torch.Tensor({ 1 }), 'x', 0)
  w:close()
end

-- ---- Audio ---------------------------------------------------------------------------------------------

function tests.audio()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addAudio('clip', torch.Tensor({ { 0.0, 0.5, -0.5, 1.0, -1.0, 0.25, 0.123, -0.9999 } }), 4, { sampleRate = 8000 })
  w:close()
  local e = events_in(dir .. '/events.out.tfevents.*')[2]
  tester:asserteq(e.tag, 'clip')
  tester:asserteq(e.step, 4)
  local a = decode(e.value[6][1])
  tester:asserteq(as_float(a[1][1]), 8000, 'sample_rate')
  tester:asserteq(a[2][1], 1, 'num_channels')
  tester:asserteq(a[3][1], 8, 'length_frames')
  tester:asserteq(a[5][1], 'audio/wav')
  -- Python's wave module on PyTorch's (samples * 32767).astype('<i2')
  tester:asserteq(hex(a[4][1]), '524946463400000057415645666d74201000000001000100401f0000803e000002001000'
    .. '64617461100000000000ff3f01c0ff7f0180ff1fbe0f0580')
  -- float32 samples are scaled in float32 as NumPy does: its rounding reaches the next integer here
  local w2 = SummaryWriter(tmpdir())
  w2:addAudio('f32', torch.FloatTensor({ -0.8055360317230225, 0.9266029596328735, -0.16428112983703613 }), 0)
  w2:close()
  local a2 = decode(events_in(w2.logDir .. '/events.out.tfevents.*')[2].value[6][1])
  tester:asserteq(hex(a2[4][1]):sub(-12), 'e5989a76f9ea', 'PCM of (samples * 32767) in float32')
end

function tests.audioClipsAndErrors()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addAudio('loud', torch.Tensor({ 2, -3, 0.5 }), 0)
  local ok, e = pcall(w.addAudio, w, 'x', torch.rand(2, 3), 0)
  tester:assert(not ok and e:find('one dim after squeezing'), tostring(e))
  ok, e = pcall(w.addAudio, w, 'x', torch.rand(3), 0, { sampleRate = 0 })
  tester:assert(not ok and e:find('sampleRate must be a positive integer'), tostring(e))
  w:close()
  local a = decode(events_in(dir .. '/events.out.tfevents.*')[2].value[6][1])
  tester:asserteq(hex(a[4][1]:sub(45)), 'ff7f0180ff3f', 'clipped to +-1: 32767, -32767, 16383')
end

-- ---- Image batches ------------------------------------------------------------------------------------

function tests.addImagesGrid()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local batch = torch.ByteTensor(10, 1, 2, 3):random(0, 255)
  w:addImages('gray', batch, 1)
  local nhwc = torch.rand(3, 4, 2, 3)
  w:addImages('nhwc', nhwc, 2, { dataformats = 'NHWC' })
  w:close()
  local evs = events_in(dir .. '/events.out.tfevents.*')
  -- PyTorch's make_grid: 8 per row, 2 rows for 10 images, gray expanded to RGB, zero padding
  local im = decode(evs[2].value[4][1])
  tester:asserteq(im[1][1], 4, 'height: 2 rows of 2')
  tester:asserteq(im[2][1], 24, 'width: 8 of 3')
  local px = image.decode(im[4][1], { type = 'byte' })
  for i = 0, 9 do
    local y, x = math.floor(i / 8), i % 8
    local cell = px:narrow(2, y * 2 + 1, 2):narrow(3, x * 3 + 1, 3)
    tester:assertTensorEq(cell, batch[i + 1]:expand(3, 2, 3), 0, 'image ' .. i)
  end
  tester:asserteq(px:narrow(2, 3, 2):narrow(3, 7, 18):max(), 0, 'empty cells are black')
  im = decode(evs[3].value[4][1])
  tester:asserteq(im[1][1], 4)
  tester:asserteq(im[2][1], 6)
  px = image.decode(im[4][1], { type = 'byte' })
  tester:assertTensorEq(px:narrow(3, 3, 2), nhwc[2]:permute(3, 1, 2):double():mul(255):floor():byte(), 0)
  local ok, e = pcall(w.addImages, SummaryWriter(tmpdir()), 'x', torch.rand(3, 4, 4), 0)
  tester:assert(not ok and e:find('4 dims'), tostring(e))
end

-- ---- Embeddings --------------------------------------------------------------------------------------

function tests.embedding()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local mat = torch.FloatTensor({ { 0.1, -2.5, 1e-5 }, { 3, 1e20, 0.3333 } })
  local imgs = torch.rand(2, 3, 4, 5)
  w:addEmbedding(mat, { metadata = { 'cat', 7 }, labelImg = imgs, tag = 'a/b' })
  w:addEmbedding(torch.Tensor({ { 1 }, { 2 } }), { metadata = { { 'x', true }, { 'y', 2.5 } }, metadataHeader = { 'name', 'v' }, globalStep = 12 })
  w:close()
  -- Python's str() of each float32 value, as PyTorch's make_mat writes them
  tester:asserteq(read_file(dir .. '/00000/a%2fb/tensors.tsv'),
    '0.10000000149011612\t-2.5\t9.999999747378752e-06\n3.0\t1.0000000200408773e+20\t0.33329999446868896\n')
  tester:asserteq(read_file(dir .. '/00000/a%2fb/metadata.tsv'), 'cat\n7\n')
  tester:asserteq(read_file(dir .. '/00012/default/metadata.tsv'), 'name\tv\nx\tTrue\ny\t2.5\n')
  tester:asserteq(read_file(dir .. '/00012/default/tensors.tsv'), '1.0\n2.0\n')
  tester:asserteq(read_file(dir .. '/projector_config.pbtxt'), table.concat({
    'embeddings {', '  tensor_name: "a/b:00000"', '  metadata_path: "00000/a%2fb/metadata.tsv"', '  sprite {',
    '    image_path: "00000/a%2fb/sprite.png"', '    single_image_dim: 5', '    single_image_dim: 4', '  }',
    '  tensor_path: "00000/a%2fb/tensors.tsv"', '}', 'embeddings {', '  tensor_name: "default:00012"',
    '  metadata_path: "00012/default/metadata.tsv"', '  tensor_path: "00012/default/tensors.tsv"', '}', '' }, '\n'))
  -- the sprite: 2 images in rows of ceil(sqrt(2)) = 2, on a black square as wide as the grid
  local sprite = image.decode(read_file(dir .. '/00000/a%2fb/sprite.png'), { type = 'byte' })
  tester:assertTableEq(sprite:size():totable(), { 3, 10, 10 })
  tester:assertTensorEq(sprite:narrow(2, 1, 4):narrow(3, 6, 5), imgs[2]:double():mul(255):floor():byte(), 0)
  tester:asserteq(sprite:narrow(2, 5, 6):max(), 0)
  -- Python's str() writes exponents below 16 positionally and rounds shortest-digit ties to even
  local dir2 = tmpdir()
  local w2 = SummaryWriter(dir2)
  w2:addEmbedding(torch.DoubleTensor({ { 100, -20, 1e15, 1e16, 0.0001, 97502014460042.125, 0, 123456789012345.6 } }),
    { globalStep = 13 })
  w2:addEmbedding(torch.LongTensor({ { 3, -7 } }), { globalStep = 14 })  -- ints are str(int)
  w2:close()
  tester:asserteq(read_file(dir2 .. '/00014/default/tensors.tsv'), '3\t-7\n')
  tester:asserteq(read_file(dir2 .. '/00013/default/tensors.tsv'),
    '100.0\t-20.0\t1000000000000000.0\t1e+16\t0.0001\t97502014460042.12\t0.0\t123456789012345.6\n')
end

function tests.embeddingErrors()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local function err(msg, ...)
    local ok, e = pcall(w.addEmbedding, w, ...)
    tester:assert(not ok and e:find('addEmbedding', 1, true) and e:find(msg, 1, true), tostring(e))
  end
  err('mat must have 2 dims', torch.rand(3))
  err('one entry per row of mat (3), got 2', torch.rand(3, 2), { metadata = { 'a', 'b' } })
  err('must be a list of 2 columns', torch.rand(1, 2), { metadata = { { 'a' } }, metadataHeader = { 'h', 'i' } })
  err('one image per row of mat (3), got 2', torch.rand(3, 2), { labelImg = torch.rand(2, 3, 4, 4) })
  err('unknown option meta', torch.rand(3, 2), { meta = {} })
  w:close()
  local p = io.popen('ls ' .. dir)
  local listing = p:read('*a')
  p:close()
  tester:assert(not listing:find('00000'), 'nothing written by a failed call')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addEmbedding(torch.Tensor({ { 1, 2 } }):cuda())
  w:addPrCurve('pr', torch.Tensor({ 1, 0 }):cuda(), torch.Tensor({ 0.9, 0.2 }):cuda(), 0)
  w:addAudio('a', torch.Tensor({ 0.5 }):cuda(), 0)
  w:addImages('i', torch.rand(2, 3, 2, 2):cuda(), 0)
  w:close()
  tester:asserteq(read_file(dir .. '/00000/default/tensors.tsv'), '1.0\t2.0\n')
end

tester:add(tests):run()
