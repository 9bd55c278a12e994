-- Regressions reported by reviewers in files they did not own: torch.diff and the other
-- rearranging functions' silently ignored options (lua/torch/arrange.lua), optim.Logger's SVG
-- writer hanging or writing NaN coordinates and unparsable text (lua/optim/svg.lua),
-- nn.Trainer:plot with a validation history shorter than the epochs (lua/nn/Trainer.lua),
-- torch.loadSafetensors' options (lua/torch/serialize.lua), and the PyTorch-named fills refusing
-- floating values their type cannot hold (types.check_value). Reference values are PyTorch 1.13's.
require 'nn'
require 'optim'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/leftover_regressions'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

-- fn must raise an error containing every plain string of patterns
local function raises(fn, patterns)
  local ok, err = pcall(fn)
  tester:assert(not ok, patterns[1] .. ': no error')
  if ok then return end
  for _, p in ipairs(patterns) do
    tester:assert(tostring(err):find(p, 1, true) ~= nil, 'expected "' .. p .. '" in: ' .. tostring(err))
  end
end

local FILES = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local read = FILES.read

-- ---- arrange.lua: unknown options ---------------------------------------------------------------

function tests.diffRejectsUnknownOptions()
  local m = torch.Tensor({ { 1, 2, 4 }, { 7, 11, 16 } })
  -- {dims = 1} differenced along the last dim: PyTorch refuses an unknown keyword
  raises(function() torch.diff(m, { dims = 1 }) end, { '[diff]', "unknown option 'dims'" })
  raises(function() m:diff({ n = 1, dim = 1, prepnd = 0 }) end, { '[diff]', "unknown option 'prepnd'" })
  -- a list where the options table belongs was read as "no options"
  raises(function() torch.diff(m, { 1 }) end, { '[diff]', 'by name' })
  -- the known ones still work
  tester:eq(m:diff({ n = 1, dim = 1, prepend = 0, append = 0 }):totable(),
    { { 1, 2, 4 }, { 6, 9, 12 }, { -7, -11, -16 } })
end

function tests.rollTileMovedimMeshgridRejectKeyedTables()
  local x = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  -- roll(x, 1, {dims = 1}) rolled the flattened tensor; tile(x, {reps = 2}) was a copy
  raises(function() torch.roll(x, 1, { dims = 1 }) end, { '[roll]', "dims", "'dims'" })
  raises(function() torch.roll(x, { 1 }, { 2, d = 1 }) end, { '[roll]', "'d'" })
  raises(function() torch.roll(x, { shifts = 1, dims = 1 }) end, { '[roll] shifts must be a list' })
  raises(function() torch.tile(x, { reps = 2 }) end, { '[tile]', "'reps'" })
  raises(function() torch.tile(x, { 2, foo = 1 }) end, { '[tile]', "'foo'" })
  raises(function() torch.movedim(x, { source = 1 }, { 2 }) end, { '[movedim]', "'source'" })
  raises(function() torch.meshgrid({ x[1], x[2], foo = 1 }) end, { '[meshgrid]', "'foo'" })
  -- meshgrid's indexing as a trailing options table (the API's option style), and misspelt
  local a, b = torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 4, 5 })
  local g = torch.meshgrid(a, b, { indexing = 'xy' })
  tester:eq(g[1]:totable(), { { 1, 2, 3 }, { 1, 2, 3 } })  -- PyTorch 1.13's
  tester:eq(torch.meshgrid({ a, b }, { indexing = 'ij' })[2]:totable(), { { 4, 5 }, { 4, 5 }, { 4, 5 } })
  raises(function() torch.meshgrid(a, b, { index = 'xy' }) end, { '[meshgrid]', "unknown option 'index'" })
  -- lists still work
  tester:eq(torch.roll(x, { 1 }, { 2 }):totable(), { { 3, 1, 2 }, { 6, 4, 5 } })
  tester:eq(torch.tile(torch.Tensor({ 1, 2 }), { 2 }):totable(), { 1, 2, 1, 2 })
end

function tests.diffNumberEdgesPromoteAsPyTorch()
  -- a fractional number prepended to an integer tensor was truncated (2.5 -> 2); PyTorch 1.13:
  -- torch.diff(torch.tensor([1, 2]), prepend=torch.tensor([2.5])) = [-1.5, 1.0] (float32)
  local r = torch.diff(torch.LongTensor({ 1, 2 }), { prepend = 2.5 })
  tester:asserteq(r:type(), torch.getdefaulttensortype())
  tester:eq(r:double():totable(), { -1.5, 1 })
  -- a bool x with an integer number: int64 subtraction (result_type(bool, 2) is int64)
  local b = torch.diff(torch.BoolTensor({ 1, 0 }), { append = 2 })
  tester:asserteq(b:type(), 'torch.LongTensor')
  tester:eq(b:totable(), { -1, 2 })
  -- a boolean keeps a BoolTensor's xor; integers keep the integer type
  tester:asserteq(torch.diff(torch.BoolTensor({ 1, 0 }), { append = true }):type(), 'torch.BoolTensor')
  tester:asserteq(torch.diff(torch.IntTensor({ 1, 2 }), { prepend = 3 }):type(), 'torch.IntTensor')
end

-- ---- optim/svg.lua -----------------------------------------------------------------------------

-- The SVG is well-formed text (these files were also parsed with Python's xml.etree): valid UTF-8, no control characters, no NaN or inf coordinates.
local function check_svg(s, what)
  tester:assert(require('torch.safetensors_json').is_utf8(s), what .. ': invalid UTF-8')
  tester:assert(not s:find('[%z\1-\8\11\12\14-\31]'), what .. ': control characters')
  tester:assert(not s:find('nan', 1, true) and not s:find('inf', 1, true), what .. ': non-finite coordinates')
  tester:assert(s:find('</svg>', 1, true), what .. ': unfinished')
end

function tests.svgWriterTinyAndHugeSpans()
  local svg = require 'optim.svg'
  local path = tmp .. '/spans.svg'
  -- steps below 1e16's precision: v + step == v, the tick loop never ended
  svg.lines(path, { series = { { y = { 1e16, 1e16 + 2 } } } })
  check_svg(read(path), '1e16')
  -- hi - lo = inf: every coordinate was nan
  svg.lines(path, { series = { { y = { -1e308, 1e308 } } } })
  local s = read(path)
  check_svg(s, '1e308')
  tester:assert(s:find('<polyline', 1, true), 'the curve is drawn')
  svg.lines(path, { series = { { x = { -1.7e308, 1.7e308 }, y = { 1, 2 } } } })
  s = read(path)
  check_svg(s, 'x 1.7e308')
  tester:assert(s:find('points="70.00,[%d.]+ 700.00,'), 'the x span fills the frame')
end

function tests.svgWriterEscapesText()
  local svg = require 'optim.svg'
  local path = tmp .. '/text.svg'
  svg.lines(path, { title = 'a\1b\27c & <d>', xlabel = 'caf\233', ylabel = '\226\130',
    series = { { name = 'ok \226\130\172 "q"', y = { 1, 2 } }, { name = '\255\254', y = { 2, 1 } } } })
  local s = read(path)
  check_svg(s, 'text')
  tester:assert(s:find('a?b?c &amp; &lt;d&gt;', 1, true), 'controls as ? and markup escaped')
  tester:assert(s:find('ok \226\130\172 &quot;q&quot;', 1, true), 'valid UTF-8 kept')
  tester:assert(s:find('caf?', 1, true), 'a Latin-1 byte as ?')
end

-- ---- nn/Trainer.lua plot ------------------------------------------------------------------------

local function problem(n)
  torch.manualSeed(1)
  local x = torch.randn(n, 2)
  local y = x:select(2, 1):gt(x:select(2, 2)):long():add(1)
  return data.TensorDataset(x, y)
end

-- Counts the points of each polyline of an SVG file.
local function polyline_points(path)
  local counts = {}
  for pts in read(path):gmatch('<polyline points="([^"]*)"') do
    local _, n = pts:gsub('[^ ]+', '')
    counts[#counts + 1] = n
  end
  return counts
end

function tests.trainerPlotValidationRecordedLessOften()
  torch.manualSeed(2)
  local model = nn.Sequential():add(nn.Linear(2, 2)):add(nn.LogSoftMax())
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), optim.SGD(model:parameters(), { lr = 0.1 }))
  local train = data.DataLoader(problem(20), { batchSize = 10 })
  -- 2 epochs with validation, then resumed to 4 without: val_loss has 2 entries for 4 epochs
  trainer:fit(train, { epochs = 2, validation = data.DataLoader(problem(10), { batchSize = 10 }),
    metrics = { 'accuracy' }, verbose = false })
  local h = trainer:fit(train, { epochs = 4, initialEpoch = 2, metrics = { 'accuracy' }, verbose = false })
  tester:asserteq(#h.epoch, 4)
  tester:asserteq(#h.val_loss, 2)
  local files = trainer:plot(tmp .. '/curves.svg')
  tester:asserteq(#files, 2)
  tester:eq(polyline_points(tmp .. '/curves.svg'), { 4, 2 })
  tester:eq(polyline_points(tmp .. '/curves_accuracy.svg'), { 4, 2 })
  -- the other way round: validation only in the later epochs (rows 3 and 4)
  trainer.history = { epoch = { 1, 2, 3, 4 }, loss = { 4, 3, 2, 1 }, val_loss = { [3] = 2.5, [4] = 1.5 } }
  trainer:plot(tmp .. '/late.svg')
  tester:eq(polyline_points(tmp .. '/late.svg'), { 4, 2 })
  -- a path that is not a string: an error naming the method ('attempt to index' before; the
  -- confusion matrix failed only after a whole evaluation pass)
  raises(function() trainer:plot(nil) end, { '[Trainer] plot path', 'nil' })
  raises(function() trainer:plotConfusion({ torch.randn(2, 2), torch.LongTensor({ 1, 2 }) }, 5) end,
    { '[Trainer] plotConfusion path', 'number' })
end

-- ---- serialize.lua: safetensors options ---------------------------------------------------------

function tests.safetensorsOptions()
  local p = tmp .. '/w.safetensors'
  torch.saveSafetensors(p, { w = torch.ones(2) })
  raises(function() torch.loadSafetensors(p, 'x') end, { '[loadSafetensors]', 'options', 'string' })
  raises(function() torch.loadSafetensors(p, { map = true }) end, { '[loadSafetensors]', "unknown option 'map'" })
  raises(function() torch.loadSafetensors(p, { mmap = 'yes' }) end, { '[loadSafetensors]', 'mmap', 'boolean' })
  tester:eq(torch.loadSafetensors(p, { mmap = true }).w:totable(), { 1, 1 })
  tester:eq(torch.loadSafetensors(p).w:totable(), { 1, 1 })
  raises(function() torch.saveSafetensors(p, { w = torch.ones(2) }, 'note') end,
    { 'saveSafetensors', 'metadata must be a table' })
  raises(function() torch.saveSafetensors(p, { w = torch.ones(2) }, nil, { x = 1 }) end,
    { '[saveSafetensors]', 'no options' })
  tester:eq(torch.loadSafetensors(p).w:totable(), { 1, 1 })  -- the failed saves left the file
end

-- ---- types.check_value_pytorch: floating overflow in the PyTorch-named fills -------------------

local types = require 'torch.types'
-- torch.full, torch.fullLike, x:newFull (and the other new* methods) and x:fillDiagonal call
-- types.check_value_pytorch (Note [Floating fill values] in lua/torch/types.lua); numbers Tocha
-- wraps as PyTorch wraps a Python scalar go through torch._filledLike, which casts.
function tests.checkValuePytorchRefusesFloatOverflow()
  -- PyTorch 1.13: "value cannot be converted to type float without overflow" (full, new_full,
  -- full_like, fill_diagonal_), at::Half past 65504, at::BFloat16 past 3.3895313892515355e38;
  -- inf and nan are kept, underflow is fine
  local D = require('torch.lib').dtype
  local check = types.check_value_pytorch
  raises(function() check('newFull', 1e300, D.f32) end, { '[newFull]', '1e+300', 'torch.FloatTensor', 'overflow' })
  raises(function() check('full', -1e300, D.f32) end, { '[full]', 'overflow' })
  raises(function() check('full', 3.4028235e38, D.f32) end, { '[full]', 'overflow' })  -- just past max
  raises(function() check('fullLike', 1e5, D.f16) end, { '[fullLike]', 'torch.HalfTensor' })
  raises(function() check('full', 65505, D.f16) end, { '[full]', 'overflow' })
  raises(function() check('full', 3.39e38, D.bf16) end, { '[full]', 'torch.BFloat16Tensor' })
  raises(function() check('full', 300, D.u8) end, { '[full]', 'torch.ByteTensor' })  -- the integer check too
  for _, ok in ipairs({ { 65504, D.f16 }, { 3.4028234663852886e38, D.f32 }, { 3.3895313892515355e38, D.bf16 },
                        { math.huge, D.f32 }, { -math.huge, D.f16 }, { 1e300, D.f64 }, { 1e-50, D.f32 } }) do
    tester:asserteq(check('full', ok[1], ok[2]), ok[1])
  end
  local nan = check('full', 0 / 0, D.f32)
  tester:assert(nan ~= nan, 'nan kept')
end

function tests.pytorchFillsRefuseFloatOverflow()
  local f = torch.FloatTensor(1)
  raises(function() f:newFull({ 2 }, 1e300) end, { '[newFull]', '1e+300', 'overflow' })
  raises(function() torch.full({ 2 }, -1e300, { dtype = 'float32' }) end, { '[full]', 'overflow' })
  raises(function() torch.fullLike(torch.HalfTensor(2), 1e5) end, { '[fullLike]', 'torch.HalfTensor' })
  raises(function() torch.zeros(2, 2):float():fillDiagonal(1e300) end, { '[fillDiagonal]', 'overflow' })
  tester:eq(torch.full({ 2 }, 65504, { dtype = 'float16' }):double():totable(), { 65504, 65504 })
  tester:eq(f:newFull({ 1 }, math.huge):totable(), { math.huge })
  -- Torch7's fill keeps its C cast: inf in a FloatTensor and a HalfTensor
  tester:eq(torch.FloatTensor(1):fill(1e300):totable(), { math.huge })
  tester:eq(torch.HalfTensor(1):fill(1e5):double():totable(), { math.huge })
  -- a number wrapped inside Tocha as PyTorch wraps a Python scalar: inf, not an error (PyTorch
  -- 1.13: torch.special.xlog1py(torch.ones(2, dtype=torch.float16), 1e5) = [inf, inf])
  tester:eq(torch.special.xlog1py(torch.HalfTensor(2):fill(1), 1e5):double():totable(), { math.huge, math.huge })
  tester:eq(torch.special.xlogy(torch.FloatTensor(2):fill(1), 1e300):double():totable(), { math.huge, math.huge })
end

-- plot.lines itself hung on a span too fine for the values (Note [Ticks finer than the values'
-- precision], lua/plot/axes.lua), as optim.svg did.
function tests.plotLinesTinySpanOfHugeValues()
  local plot = require 'plot'
  local path = os.tmpname() .. '.svg'
  plot.lines{ path = path, series = { { y = { 1e16, 1e16 + 2 } } } }
  local f = io.open(path)
  local text = f:read('*a')
  f:close()
  os.remove(path)
  tester:assert(text:find('<svg', 1, true) ~= nil, 'an SVG was written')
  local t = require('plot.axes').ticks(1e16, 1e16 + 2, 5)
  tester:eq(t, { 1e16, 1e16 + 2 }, 'the two ends as ticks')
end

-- nn.Upsample took a module (or any table) as its size and failed only at forward.
function tests.upsampleChecksSizeAndScale()
  require 'nn'
  tester:assertErrorPattern(function() nn.Upsample(nn.Linear(2, 2)) end, '%[nn%.Upsample%] size must be a number or a list')
  tester:assertErrorPattern(function() nn.Upsample({ scaleFactor = { 2, 'x' } }) end, 'scaleFactor must be')
  tester:assertErrorPattern(function() nn.UpsamplingNearest2d({ size = {} }) end, 'size must be')
  tester:eq(nn.Upsample({ size = { 4, 4 } }):forward(torch.ones(1, 1, 2, 2)):size():totable(), { 1, 1, 4, 4 })
end

-- DataLoader's timeout (PyTorch's timeout=): a batch that takes longer than that to come from the
-- workers raises instead of hanging the loop (Note [Loader timeout], bindings/data_loader.cpp).
function tests.loaderTimeout()
  local data = require 'data'
  local x = torch.range(1, 8):view(8, 1)
  local slow = data.ListDataset({ 1, 2, 3, 4, 5, 6, 7, 8 }, function(i)
    if i == 5 then
      local t = os.clock()
      while os.clock() - t < 1.5 do end
    end
    return torch.Tensor({ i })
  end)
  local l = data.DataLoader(slow, { batchSize = 2, workers = 1, timeout = 0.3 })
  local it = l:iter()
  tester:asserteq(it():size(1), 2, 'the first batch comes in time')
  tester:asserteq(it():size(1), 2)
  tester:assertErrorPattern(it, 'timed out after 0.3 s waiting for a batch')
  l:close()
  local ok = pcall(data.DataLoader, slow, { timeout = 1 })
  tester:assert(not ok, 'timeout without workers is refused, as PyTorch 1.13 asserts')
  tester:assertErrorPattern(function() data.DataLoader(slow, { workers = 1, timeout = -1 }) end, 'timeout must be')
  local n = 0
  for _ in data.DataLoader(data.TensorDataset(x), { batchSize = 4, workers = 2, timeout = 30 }):iter() do n = n + 1 end
  tester:asserteq(n, 2, 'a generous timeout changes nothing')
end

tester:add(tests)
tester:run()
