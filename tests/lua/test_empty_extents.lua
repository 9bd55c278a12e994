-- Tensors with no elements but huge other dims (0 x 2^40): ops must return at once with the right
-- sizes instead of walking 2^40 empty slices or building 2^40-long indices. A regression shows as
-- this suite timing out (ctest's limit), not as a failed assert.
local tester = torch.Tester()
local tests = torch.TestSuite()

local BIG = 2 ^ 40
local function sizes(t) return t:size():totable() end

function tests.scansAndSortsAlongTheEmptyDim()
  local x = torch.zeros(0, BIG)
  tester:eq(sizes(x:cumsum(1)), { 0, BIG })
  tester:eq(sizes(x:cumprod(1)), { 0, BIG })
  local v, i = x:sort(1)
  tester:eq(sizes(v), { 0, BIG })
  tester:eq(sizes(i), { 0, BIG })
  local tv, ti = torch.zeros(BIG, 0):topk(0, 2)
  tester:eq(sizes(tv), { BIG, 0 })
  tester:eq(sizes(ti), { BIG, 0 })
end

function tests.flipAndTile()
  tester:eq(sizes(torch.zeros(0, BIG):flip(2)), { 0, BIG })
  tester:eq(sizes(torch.zeros(0, 4):tile({ BIG, 3 })), { 0, 12 })
  tester:eq(sizes(torch.zeros(0, 4):repeatTensor(2, BIG)), { 0, 4 * BIG })
end

function tests.printing()
  tester:asserteq(tostring(torch.zeros(0, BIG)), '[torch.FloatTensor of size 0x1099511627776]\n')
  -- sizes print from the int64: tostring of the number wrote 0x4.6116860184274e+18
  tester:asserteq(tostring(torch.LongTensor(0, 2 ^ 62)), '[torch.LongTensor of size 0x4611686018427387904]\n')
  tester:asserteq(tostring(torch.zeros(BIG, 0, 3)), '[torch.FloatTensor of size 1099511627776x0x3]\n')
end

tester:add(tests)
tester:run()
