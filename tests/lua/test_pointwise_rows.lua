-- Pointwise ops whose dims do not coalesce (broadcast operands, transposed inputs or outputs) walk
-- rows with stepped offsets and run the vector loops on rows of stride 0/1 (kernels/cpu/loops.h,
-- Note [Vector rows]). Each result is compared with the same op on contiguous copies, which takes
-- the flat path, at 1 and 2 threads and on tensors large enough for a thread's range to start
-- in the middle of a row.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function max_diff(a, b) return (a:double() - b:double()):abs():max() end

local function random_case()
  local nd = math.random(1, 4)
  local sz = {}
  for d = 1, nd do sz[d] = math.random(1, 40) end
  local a = torch.randn(unpack(sz))
  if nd >= 2 and math.random() < 0.5 then a = a:transpose(1, nd) end
  local bs = {}
  for d = 1, nd do bs[d] = math.random() < 0.4 and 1 or a:size(d) end
  return a, torch.randn(unpack(bs))
end

function tests.broadcastAndTransposedRows()
  local threads = torch.getnumthreads()
  for _, t in ipairs({ 1, 2 }) do
    torch.setnumthreads(t)
    torch.manualSeed(3)
    for _ = 1, 200 do
      local a, b = random_case()
      local be = b:expand(a:size()):contiguous()
      tester:asserteq(max_diff(torch.add(a, b), torch.add(a:contiguous(), be)), 0, 'add')
      tester:asserteq(max_diff(torch.cmul(b, a), torch.cmul(be, a:contiguous())), 0, 'cmul')
      tester:asserteq(max_diff(torch.neg(a), torch.neg(a:contiguous())), 0, 'neg')
      if a:dim() >= 2 then  -- into a result with its dims reversed in memory
        local nd, rev, order = a:dim(), {}, {}
        for d = 1, nd do rev[d], order[d] = a:size(nd + 1 - d), nd + 1 - d end
        local o = torch.Tensor(unpack(rev)):zero():permute(unpack(order))
        torch.add(o, a, b)
        tester:asserteq(max_diff(o, torch.add(a:contiguous(), be)), 0, 'add into a strided result')
      end
    end
    -- one thread's range starts mid-row: 1000 x 333 rows against a broadcast row
    local x, row = torch.randn(333, 1000):t(), torch.randn(1, 333)
    tester:asserteq(max_diff(torch.add(x, row), torch.add(x:contiguous(), row:expand(1000, 333):contiguous())), 0)
    local m, n = torch.randn(64, 64), torch.randn(64, 64)
    tester:asserteq(max_diff(torch.cmul(m:view(64, 1, 64, 1), n:view(1, 64, 1, 64)),
      torch.cmul(m:view(64, 1, 64, 1):expand(64, 64, 64, 64):contiguous(), n:view(1, 64, 1, 64):expand(64, 64, 64, 64))), 0)
  end
  torch.setnumthreads(threads)
end

-- Planes of rows (Note [Vector planes]): odd sizes so that a thread's range starts and ends in
-- the middle of a row and of a plane, integer dtypes, and the strided loop over a plane's rows.
function tests.planesOfRows()
  local threads = torch.getnumthreads()
  for _, t in ipairs({ 1, 2 }) do
    torch.setnumthreads(t)
    for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.LongTensor', 'torch.IntTensor' }) do
      local a = torch.randn(7, 1, 31, 1):mul(50):type(tname)
      local b = torch.randn(1, 13, 1, 37):mul(50):type(tname)
      local full = { 7, 13, 31, 37 }
      local ae, be = a:expand(unpack(full)):contiguous(), b:expand(unpack(full)):contiguous()
      tester:asserteq(max_diff(torch.cmul(a, b), torch.cmul(ae, be)), 0, tname .. ' planes of vector rows')
      tester:asserteq(max_diff(torch.add(b, a), torch.add(be, ae)), 0, tname .. ' b + a')
      -- the strided loop: a transposed input makes the rows strided
      local at = torch.randn(37, 31, 13, 7):mul(50):type(tname):permute(4, 3, 2, 1)
      tester:asserteq(max_diff(torch.add(at, b), torch.add(at:contiguous(), be)), 0, tname .. ' strided rows')
      tester:asserteq(max_diff(torch.neg(at), torch.neg(at:contiguous())), 0, tname .. ' unary strided rows')
      -- a result whose rows are strided, from vector-row inputs
      local o = torch.Tensor(37, 31, 13, 7):type(tname):permute(4, 3, 2, 1)
      torch.cmul(o, a, b)
      tester:asserteq(max_diff(o, torch.cmul(ae, be)), 0, tname .. ' into a strided result')
      local u = torch.Tensor(7, 13, 31, 40):type(tname):narrow(4, 2, 37)
      torch.neg(u, ae)
      tester:asserteq(max_diff(u, torch.neg(ae)), 0, tname .. ' unary planes into rows 40 apart')
    end
  end
  torch.setnumthreads(threads)
end

tester:add(tests)
tester:run()
