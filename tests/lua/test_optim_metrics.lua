-- optim.ConfusionMatrix (counts, accuracies, Torch7's printed table, farFrr) and optim.Logger
-- (Torch7's text format, plotting through the built-in SVG writer), and the SVG writer itself.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/optim_metrics_'

local function read(path)
  local f = assert(io.open(path))
  local s = f:read('*a')
  f:close()
  return s
end

function tests.confusionCounts()
  local cm = optim.ConfusionMatrix({ 'cat', 'dog', 'bird' })
  cm:add(1, 1)
  cm:add(torch.Tensor({ 0.1, 0.7, 0.2 }), 1)                 -- argmax 2
  cm:add(torch.Tensor({ 0.1, 0.2, 0.7 }), torch.Tensor({ 0, 0, 1 }))
  cm:add(2, 0)                                                -- missing target: ignored
  cm:batchAdd(torch.Tensor({ { 1, 0, 0 }, { 0, 5, 1 }, { 0, 1, 9 } }), torch.LongTensor({ 2, 2, 3 }))
  cm:batchAdd(torch.LongTensor({ 1, 1 }), torch.Tensor({ { 1 }, { 0 } }))  -- n x 1 targets, the 0 ignored
  tester:eq(cm.mat, torch.LongTensor({ { 2, 1, 0 }, { 1, 1, 0 }, { 0, 0, 2 } }), 0)
  cm:updateValids()
  tester:assertalmosteq(cm.valids[1], 2 / 3, 1e-7)
  tester:assertalmosteq(cm.valids[2], 0.5, 1e-7)
  tester:assertalmosteq(cm.totalValid, 5 / 7, 1e-12)
  tester:assertalmosteq(cm.averageValid, (2 / 3 + 0.5 + 1) / 3, 1e-7)
  tester:assertalmosteq(cm.unionvalids[1], 2 / 4, 1e-7)
  tester:assertalmosteq(cm:classAccuracy(3), 1, 0)
  local frr, far = cm:farFrr()
  tester:assertalmosteq(frr[1], 1 / 3, 1e-12)
  tester:assertalmosteq(far[1], (1 / 2 + 0 / 2) / 2, 1e-12)
  cm:zero()
  tester:asserteq(cm.mat:sum(), 0)
  tester:asserteq(cm.totalValid, 0)
end

function tests.confusionPrintsLikeTorch7()
  local cm = optim.ConfusionMatrix({ 'cat', 'dog' })
  cm:batchAdd(torch.LongTensor({ 1, 1, 1, 2, 2, 2 }), torch.LongTensor({ 1, 1, 1, 1, 2, 2 }))
  local u2 = torch.FloatTensor({ 2 / 3 })[1]
  local want = 'ConfusionMatrix:\n'
    .. '[[       3       1]   75.000% \t[class: cat]\n'
    .. ' [       0       2]]  100.000% \t[class: dog]\n'
    .. ' + average row correct: ' .. (0.875 * 100) .. '% \n'
    .. ' + average rowUcol correct (VOC measure): ' .. ((0.75 + u2) / 2 * 100) .. '% \n'
    .. ' + global correct: ' .. (5 / 6 * 100) .. '%'
  tester:asserteq(tostring(cm), want)
  local plain = optim.ConfusionMatrix(2)
  plain:add(1, 1)
  tester:assert(tostring(plain):find(']]  nan% \n', 1, true) or tostring(plain):find(']]  -nan% \n', 1, true))
end

function tests.confusionErrors()
  local cm = optim.ConfusionMatrix(3)
  tester:assertErrorPattern(function() cm:add(4, 1) end, 'prediction 4 is not a class in 1..3')
  tester:assertErrorPattern(function() cm:add(1, 1.5) end, 'target must be a class index')
  tester:assertErrorPattern(function() cm:batchAdd(torch.LongTensor({ 1, 2 }), torch.LongTensor({ 1 })) end, '2 predictions for 1 targets')
  tester:assertErrorPattern(function() cm:batchAdd(torch.Tensor(2, 2, 2), torch.LongTensor({ 1 })) end, 'invalid number of dimensions')
  tester:assertErrorPattern(function() optim.ConfusionMatrix(0) end, 'number of classes')
end

function tests.loggerWritesTorch7Format()
  local path = TMP .. 'log/train.log'
  os.remove(path)
  local logger = optim.Logger(path)
  logger:setNames({ 'train error', 'test error' })
  logger:add({ 0.5, 0.625 })
  logger:add({ 0.25, 'n/a' })
  logger:add({ ['test error'] = 0.125, ['train error'] = 0.1 })
  logger.file:close()
  tester:asserteq(read(path), 'train error\ttest error\t\n'
    .. ' 5.0000e-01\t 6.2500e-01\t\n 2.5000e-01\tn/a\t\n 1.0000e-01\t 1.2500e-01\t\n')
  tester:assertErrorPattern(function() logger:add({ ['valid error'] = 1 }) end, 'not a column')
  tester:assertErrorPattern(function() logger:add({ {} }) end, 'can only log numbers and strings')

  local keyed = optim.Logger(TMP .. 'keyed.log')
  keyed:add({ loss = 2, acc = 0.5 })
  keyed:add({ loss = 1, acc = 0.75 })
  keyed.file:close()
  tester:asserteq(read(TMP .. 'keyed.log'), 'acc\tloss\t\n 5.0000e-01\t 2.0000e+00\t\n 7.5000e-01\t 1.0000e+00\t\n')
end

function tests.loggerPlotsSvg()
  local path = TMP .. 'curves.log'
  local logger = optim.Logger(path)
  logger.usePlotModule = false  -- the built-in writer, whether or not the plot module exists
  logger:setNames({ 'train <loss>', 'test' })
  tester:asserteq(logger:plot(), nil, 'nothing to plot yet')
  for i = 1, 10 do logger:add({ 1 / i, 2 / i }) end
  logger:style({ ['train <loss>'] = '-', test = { '+', '-' } })
  local out = logger:plot()
  tester:asserteq(out, path .. '.svg')
  local s = read(out)
  tester:assert(s:find('^<%?xml'), 'an XML document')
  tester:assert(s:find('<svg', 1, true) and s:find('</svg>', 1, true))
  tester:assert(s:find('train &lt;loss&gt;', 1, true), 'legend names, escaped')
  local _, polylines = s:gsub('<polyline', '')
  tester:asserteq(polylines, 2)
  tester:assert(s:find('<path d="M', 1, true), '+ markers')
  logger:setlogscale(true)
  tester:assert(read(logger:plot('test')):find('(log scale)', 1, true))
  logger:display(false)
  tester:asserteq(logger:plot(), nil)
  logger.file:close()
  if not pcall(require, 'plot') then
    local png = optim.Logger(TMP .. 'png.log')
    png.plotFile = TMP .. 'png.png'
    png:add({ a = 1 }) png:add({ a = 2 })
    tester:assertErrorPattern(function() png:plot() end, 'only .svg')
    png.file:close()
  end
end

function tests.svgWriter()
  local svg = require 'optim.svg'
  local path = TMP .. 'direct.svg'
  svg.lines(path, { title = 'T', xlabel = 'x', ylabel = 'y', series = {
    { name = 'flat', y = { 3, 3, 3 } },
    { name = 'gaps', x = { 1, 2, 3, 4 }, y = { 1, 0 / 0, math.huge, 4 }, style = '.' },
  } })
  local s = read(path)
  tester:assert(s:find('>T</text>', 1, true))
  tester:assert(not s:find('nan', 1, true) and not s:find('inf', 1, true), 'non-finite points are skipped')
  local _, circles = s:gsub('<circle', '')
  tester:asserteq(circles, 2)
  -- log scale drops non-positive values
  svg.lines(path, { logscale = true, series = { { name = 'l', y = { 0, 10, 100, 1000 } } } })
  tester:assert(read(path):find('>1000<', 1, true))
end

tester:add(tests)
tester:run()
