-- torchnet's tnt.Log with its text, json and status viewers (files read back), tnt.utils.table
-- (merge, mergetensor, canmergetensor, clone, foreach), tnt.utils.sys and tnt.transform.
local tnt = require 'torchnet'
local logtext = require 'torchnet.log.view.text'
local logjson = require 'torchnet.log.view.json'
local logstatus = require 'torchnet.log.view.status'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function read(name)
  local f = assert(io.open(name))
  local s = f:read('*a')
  f:close()
  return s
end

local function quietly(fn)
  local printed = {}
  local print0 = print
  print = function(...)
    local t = {}
    for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end
    printed[#printed + 1] = table.concat(t, '\t')
  end
  local ok, err = pcall(fn)
  print = print0
  if not ok then error(err, 0) end
  return printed
end

function tests.logAndViewers()
  local txt, js, st = os.tmpname(), os.tmpname(), os.tmpname()
  local log = tnt.Log{
    keys = { 'loss', 'acc' },
    onFlush = {
      logtext{ filename = txt, keys = { 'loss', 'acc' }, format = { '%.3f', function(v) return 'acc=' .. v end } },
      logjson{ filename = js, keys = { 'loss', 'acc' } },
      logtext{ keys = { 'loss' } },
    },
    onSet = { logstatus{ filename = st } },
  }
  local printed = quietly(function()
    log:set{ loss = 0.25, acc = 91 }
    tester:eq(log:get('loss'), 0.25)
    log:flush()
    log:set{ loss = 0.125 }  -- acc unset: the text viewer skips it
    log:flush()
    log:status('epoch "1" done', false)
  end)
  tester:eq(read(txt), '0.250 | acc=91\n0.125\n')
  tester:eq(read(js), '{"loss": "0.25", "acc": "91"}\n{"loss": "0.125", "acc": "nil"}\n')
  tester:eq(read(st), '| epoch "1" done\n')
  tester:eq(printed, { 'loss 0.25', 'loss 0.125' })
  tester:eq(log:get('loss'), nil, 'flush empties the values')
  local closed = false
  log:attach('onClose', { function() closed = true end })
  log:close()
  tester:assert(closed)
  tester:assertErrorPattern(function() log:set{ lr = 1 } end, 'unknown key <lr>')
  tester:assertErrorPattern(function() log:get('lr') end, 'unknown key <lr>')
  tester:assertErrorPattern(function() log:attach('onRead', {}) end, 'unknown event <onRead>')
  tester:assertErrorPattern(function() log:attach('onSet', { 3 }) end, 'table of functions expected')
  -- status with a date by default
  local stamped = {}
  local l2 = tnt.Log{ keys = {}, onSet = { function(_, key, value) stamped[key] = value end } }
  l2:status('hi')
  tester:assert(stamped.__status__:match('^| .+ | hi$'), stamped.__status__)
  os.remove(txt); os.remove(js); os.remove(st)
end

function tests.utilsTable()
  local u = tnt.utils.table
  tester:eq(u.merge({ a = 1, b = 2 }, { b = 3, c = 4 }), { a = 1, b = 3, c = 4 })
  tester:eq(u.merge{ dst = { a = 1 }, src = { a = 2 } }, { a = 2 })
  local a, b = torch.Tensor{ 1, 2, 3 }, torch.Tensor{ 4, 5, 6 }
  tester:assert(u.canmergetensor{ a, b })
  tester:assert(not u.canmergetensor{ a, torch.ones(2) })
  tester:assert(not u.canmergetensor{ 1, 2 })
  tester:assert(not u.canmergetensor(a))
  local m = u.mergetensor{ a, b }
  tester:eq(m, torch.Tensor{ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.type(u.mergetensor{ torch.LongTensor{ 1 }, torch.LongTensor{ 2 } }), 'torch.LongTensor')
  tester:eq(u.mergetensor{ torch.ones(2, 2), torch.zeros(2, 2) }:size():totable(), { 2, 2, 2 })
  tester:assertErrorPattern(function() u.mergetensor{ a, torch.ones(2) } end, 'element 2 is a torch.FloatTensor with 2 elements')
  tester:assertErrorPattern(function() u.mergetensor{} end, 'non%-empty list of tensors')
  local nested = { x = a, t = { y = 1 } }
  local c = u.clone(nested)
  c.x:fill(0); c.t.y = 2
  tester:eq(nested.x, torch.Tensor{ 1, 2, 3 }); tester:eq(nested.t.y, 1)
  tester:eq(u.foreach({ 1, 2, k = 3 }, function(x) return x * 2 end), { 2, 4, k = 6 })
  tester:eq(u.foreach({ 1, { 2 } }, function(x) return x + 1 end, true), { 2, { 3 } })
  tester:eq(u.copy{ 1, a = 2 }, { 1, a = 2 })
end

function tests.utilsSys()
  local opt = { lr = 1, name = 'x' }
  tnt.utils.sys.cmdline({ 'lr = 0.5', 'name = name .. "y"' }, opt)
  tester:eq(opt, { lr = 0.5, name = 'xy' })
  tester:assertErrorPattern(function() tnt.utils.sys.cmdline({ 'lr = = 1' }, {}) end, 'compilation error')
  local name = os.tmpname()
  local f = io.open(name, 'w'); f:write('a\nb\nc\n'); f:close()
  tester:eq(tnt.utils.sys.loadlist(name, true, 2), { 'a', 'b', a = 1, b = 2 })
  os.remove(name)
  local dir = os.tmpname()
  os.remove(dir)
  tnt.utils.sys.mkdir(dir .. '/x/y')
  tester:assert(io.open(dir .. '/x/y/../..') ~= nil)
  os.execute("rm -rf '" .. dir .. "'")
end

function tests.transform()
  local T = tnt.transform
  local f = T.compose{ function(x) return 2 * x end, function(x) return x + 10 end, foo = function() error('ignored') end }
  tester:eq(f(3), 16)
  local g = T.merge{ double = function(x) return 2 * x end, half = function(x) return x / 2 end }
  tester:eq(g(3), { double = 6, half = 1.5 })
  local stacked = T.merge{ function(x) return x * 2 end, function(x) return x + 1 end }(torch.Tensor{ 1, 2 })
  tester:eq(stacked, torch.Tensor{ { 2, 4 }, { 2, 3 } }, 'tensor results stacked (torchnet mergetensor)')
  tester:eq(T.tableapply(function(x) return -x end){ 1, a = 2 }, { -1, a = -2 })
  tester:eq(T.tablemergekeys()({ { input = 1, target = 'a' }, { input = 2, target = 'b', flag = 'hard' } }),
    { input = { 1, 2 }, target = { 'a', 'b' }, flag = { [2] = 'hard' } })
  local b = T.makebatch()({ { x = torch.Tensor{ 1 }, s = 'a' }, { x = torch.Tensor{ 2 }, s = 'b' } })
  tester:eq(b.x, torch.Tensor{ { 1 }, { 2 } }); tester:eq(b.s, { 'a', 'b' })
  local n = T.normalize()(torch.Tensor{ 1, 2, 3 })
  tester:eq(n, torch.Tensor{ -1, 0, 1 }, 1e-6)
  torch.manualSeed(2)
  local p = T.randperm(5)
  local seen = {}
  for i = 1, 5 do seen[p(i)] = true end
  for i = 1, 5 do tester:assert(seen[i]) end
  local id = T.identity(1, nil, 3)
  tester:eq({ id() }, { 1, nil, 3 })
  tester:assertErrorPattern(function() T.compose{ 1 } end, 'entry 1 is a number')
end

tester:add(tests)
tester:run()
