-- Torch7's nn.utils helpers that user modules call: recursiveType (sharing kept), recursiveCopy,
-- addSingletonDimension, contiguousView and clear, against their Torch7 definitions.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local U = nn.utils

function tests.recursiveTypeKeepsSharing()
  local base = torch.FloatTensor({ 1, 2, 3, 4 })
  local t = { a = base, b = { base:narrow(1, 2, 2) }, m = nn.Linear(2, 3), n = 5 }
  t.c = t.a
  local r = U.recursiveType(t, 'torch.DoubleTensor')
  tester:asserteq(r.a:type(), 'torch.DoubleTensor')
  tester:assert(r.a == r.c, 'the same tensor converts once')
  tester:asserteq(torch.pointer(r.a:storage()), torch.pointer(r.b[1]:storage()), 'a view keeps sharing the storage')
  tester:assertTensorEq(r.b[1], torch.DoubleTensor({ 2, 3 }), 0)
  tester:asserteq(r.m.weight:type(), 'torch.DoubleTensor', 'a module converts itself')
  tester:asserteq(r.n, 5)
  tester:asserteq(U.recursiveType(torch.FloatTensor(2), 'torch.DoubleTensor'):type(), 'torch.DoubleTensor')
  tester:assertErrorPattern(function() U.recursiveType({}, 3) end, 'recursiveType')
end

function tests.recursiveCopy()
  local src = { torch.range(1, 3), { torch.ones(2, 2):double() } }
  local dst = U.recursiveCopy(nil, src)
  tester:assertTensorEq(dst[1], src[1], 0)
  tester:asserteq(dst[2][1]:type(), 'torch.DoubleTensor')
  src[1]:fill(0)
  tester:asserteq(dst[1][3], 3, 'a copy, not a view')
  local keep = torch.zeros(5)
  local d2 = U.recursiveCopy({ keep }, { torch.ones(2) })
  tester:assert(d2[1] == keep and keep:nElement() == 2, 'an existing tensor of the same type is reused')
  tester:assertErrorPattern(function() U.recursiveCopy(nil, 3) end, 'recursiveCopy')
end

function tests.addSingletonDimension()
  local t = torch.range(1, 6):view(2, 3)
  for dim, want in pairs({ [1] = { 1, 2, 3 }, [2] = { 2, 1, 3 }, [3] = { 2, 3, 1 } }) do
    local v = U.addSingletonDimension(t, dim)
    tester:assertTableEq(v:size():totable(), want, 'dim ' .. dim)
    tester:assertTensorEq(v:contiguous():view(-1), t:contiguous():view(-1), 0)
    tester:asserteq(torch.pointer(v:storage()), torch.pointer(t:storage()), 'a view')
  end
  local out = torch.Tensor()
  tester:assert(U.addSingletonDimension(out, t:t(), 1) == out, 'into out')
  tester:assertTensorEq(out:select(1, 1), t:t(), 0, 'a transposed input keeps its strides')
  tester:assertErrorPattern(function() U.addSingletonDimension(t, 4) end, 'dim must be an integer in 1..3')
end

function tests.contiguousView()
  local t = torch.range(1, 6):view(2, 3)
  local v = U.contiguousView(nil, t, 3, 2)
  tester:asserteq(torch.pointer(v:storage()), torch.pointer(t:storage()), 'a contiguous input is viewed')
  local w = U.contiguousView(nil, t:t(), 6)
  tester:assertTensorEq(w, torch.Tensor({ 1, 4, 2, 5, 3, 6 }), 0, 'a transposed input is copied first')
  tester:assertTableEq(U.contiguousView(nil, t, torch.LongStorage({ 6 })):size():totable(), { 6 })
end

function tests.clear()
  local m = nn.Linear(2, 3)
  m:forward(torch.randn(2))
  m.cache = { torch.ones(2) }
  tester:assert(U.clear(m, 'output', 'cache') == m)
  tester:asserteq(m.output:nElement(), 0)
  tester:asserteq(#m.cache, 0)
  U.clear(m, { 'gradInput' })
  tester:asserteq(m.gradInput:nElement(), 0)
  tester:asserteq(m.weight:nElement(), 6, 'other fields untouched')
end

tester:add(tests)
tester:run()
