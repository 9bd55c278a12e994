-- Joining and matrix-shape helpers: torch.cat, torch.stack, diag, tril, triu with Torch7's call
-- forms (1-based dims), dtype promotion and error cases.
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.catTwoTensors()
  local a, b = torch.Tensor({ { 1, 2 }, { 3, 4 } }), torch.Tensor({ { 5, 6 } })
  tester:eq(torch.cat(a, b, 1):totable(), { { 1, 2 }, { 3, 4 }, { 5, 6 } })
  tester:eq(torch.cat(a, a):totable(), { { 1, 2, 1, 2 }, { 3, 4, 3, 4 } })  -- default: the last dim
  tester:eq(torch.cat(a, a, -2):size():totable(), { 4, 2 })
  tester:eq(torch.cat(torch.Tensor({ 1, 2 }), torch.Tensor({ 3 })):totable(), { 1, 2, 3 })
  -- Torch7: a dim past the last adds one; 1D inputs become columns
  tester:eq(torch.cat(torch.Tensor({ 1, 2 }), torch.Tensor({ 3, 4 }), 2):totable(), { { 1, 3 }, { 2, 4 } })
  -- [res,] form, and the method form
  local res = torch.Tensor()
  tester:assert(torch.cat(res, a, b, 1) == res)
  tester:eq(res:size():totable(), { 3, 2 })
  tester:eq(a:cat(b, 1):totable(), { { 1, 2 }, { 3, 4 }, { 5, 6 } })
  res:cat(b, b, 1)
  tester:eq(res:totable(), { { 5, 6 }, { 5, 6 } })
  -- Torch7's x = x:cat(...) idiom: the result tensor may be one of the inputs
  local acc = torch.Tensor({ 1 })
  for i = 2, 4 do acc:cat(acc, torch.Tensor({ i }), 1) end
  tester:eq(acc:totable(), { 1, 2, 3, 4 })
end

function tests.catTable()
  local a, b, c = torch.ones(2, 1), torch.zeros(2, 2), torch.Tensor({ { 7 }, { 8 } })
  tester:eq(torch.cat({ a, b, c }):totable(), { { 1, 0, 0, 7 }, { 1, 0, 0, 8 } })
  tester:eq(torch.cat({ a, c }, 1):totable(), { { 1 }, { 1 }, { 7 }, { 8 } })
  local res = torch.Tensor()
  torch.cat(res, { a, c }, 2)
  tester:eq(res:totable(), { { 1, 7 }, { 1, 8 } })
  res:cat({ c, a }, 2)
  tester:eq(res:totable(), { { 7, 1 }, { 8, 1 } })
  tester:eq(torch.cat({ a }, 1):totable(), a:totable())
  -- empty tensors are skipped (Torch7's torch.Tensor() accumulator idiom)
  local all = torch.Tensor()
  for i = 1, 3 do all = torch.cat(all, torch.Tensor({ { i, -i } }), 1) end
  tester:eq(all:totable(), { { 1, -1 }, { 2, -2 }, { 3, -3 } })
  tester:eq(torch.cat({ torch.Tensor(), torch.Tensor() }):nElement(), 0)
  -- strided inputs
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.cat({ m:t(), m }, 1):totable(), { { 1, 3 }, { 2, 4 }, { 1, 2 }, { 3, 4 } })
end

function tests.catPromotes()
  local r = torch.cat(torch.IntTensor({ 1, 2 }), torch.DoubleTensor({ 0.5 }))
  tester:asserteq(r:type(), 'torch.DoubleTensor')
  tester:eq(r:totable(), { 1, 2, 0.5 })
  tester:asserteq(torch.cat({ torch.ByteTensor({ 1 }), torch.LongTensor({ 2 }) }):type(), 'torch.LongTensor')
  tester:asserteq(torch.cat(torch.BoolTensor({ true }), torch.BoolTensor({ false })):type(), 'torch.BoolTensor')
  local res = torch.FloatTensor()
  torch.cat(res, torch.LongTensor({ 1 }), torch.IntTensor({ 2 }))
  tester:asserteq(res:type(), 'torch.FloatTensor')
  tester:eq(res:totable(), { 1, 2 })
end

function tests.stack()
  local a, b = torch.Tensor({ 1, 2 }), torch.Tensor({ 3, 4 })
  tester:eq(torch.stack({ a, b }):totable(), { { 1, 2 }, { 3, 4 } })
  tester:eq(torch.stack({ a, b }, 2):totable(), { { 1, 3 }, { 2, 4 } })
  tester:eq(torch.stack({ a, b }, -1):totable(), { { 1, 3 }, { 2, 4 } })
  local res = torch.Tensor()
  tester:assert(torch.stack(res, { a, a, b }, 1) == res)
  tester:eq(res:size():totable(), { 3, 2 })
  tester:eq(torch.stack({ torch.ones(2, 3), torch.zeros(2, 3) }, 2):size():totable(), { 2, 2, 3 })
end

function tests.diag()
  tester:eq(torch.diag(torch.Tensor({ 1, 2 })):totable(), { { 1, 0 }, { 0, 2 } })
  tester:eq(torch.diag(torch.Tensor({ 1, 2 }), 1):totable(), { { 0, 1, 0 }, { 0, 0, 2 }, { 0, 0, 0 } })
  tester:eq(torch.diag(torch.Tensor({ 1, 2 }), -1):totable(), { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 2, 0 } })
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.diag(m):totable(), { 1, 5 })
  tester:eq(m:diag(1):totable(), { 2, 6 })
  tester:eq(m:diag(-1):totable(), { 4 })
  tester:eq(m:diag(3):nElement(), 0)
  tester:eq(m:t():diag():totable(), { 1, 5 })
  local res = torch.Tensor()
  res:diag(torch.Tensor({ 3 }))
  tester:eq(res:totable(), { { 3 } })
  torch.diag(res, m, 2)
  tester:eq(res:totable(), { 3 })
  local d = torch.diag(m)
  d[1] = 100  -- a copy, not a view
  tester:eq(m[1][1], 1)
  tester:asserteq(torch.diag(torch.LongTensor({ 1 })):type(), 'torch.LongTensor')
end

function tests.trilTriu()
  local function ones() return torch.ones(3, 3) end
  tester:eq(torch.tril(ones()):totable(), { { 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 } })
  tester:eq(torch.triu(ones()):totable(), { { 1, 1, 1 }, { 0, 1, 1 }, { 0, 0, 1 } })
  tester:eq(torch.tril(ones(), -1):totable(), { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 } })
  tester:eq(torch.triu(ones(), 2):totable(), { { 0, 0, 1 }, { 0, 0, 0 }, { 0, 0, 0 } })
  -- x:tril() works in place; res:tril(x) fills res; torch.tril(res, x, k)
  local x = ones()
  tester:assert(x:triu(1) == x)
  tester:eq(x:totable(), { { 0, 1, 1 }, { 0, 0, 1 }, { 0, 0, 0 } })
  local res = torch.Tensor()
  res:tril(ones(), 0)
  tester:eq(res:totable(), { { 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 } })
  torch.triu(res, torch.Tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } }), -1)
  tester:eq(res:totable(), { { 1, 2 }, { 3, 4 }, { 0, 6 } })
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(m:t():tril():totable(), { { 1, 0 }, { 2, 4 } })
  tester:eq(m:totable(), { { 1, 2 }, { 0, 4 } })  -- in place through the transposed view
  tester:eq(torch.tril(torch.ones(2, 2, 2)):sum(), 6)
end

function tests.errors()
  local a = torch.ones(2, 3)
  tester:assertErrorPattern(function() torch.cat(a, torch.ones(3, 3), 2) end,
    'cat%] tensor 2 has size 3x3 but tensor 1 has size 2x3; they must match except in dimension 2')
  tester:assertErrorPattern(function() torch.cat({}) end, 'cat%] expected at least one tensor')
  tester:assertErrorPattern(function() torch.cat({ a, 1 }) end, 'element 2 of the table is number')
  tester:assertErrorPattern(function() torch.cat(a) end, 'expected %(%[res,%] tensor, tensor')
  tester:assertErrorPattern(function() torch.cat(a, a, 0) end, 'dimension 0 is out of range')
  tester:assertErrorPattern(function() torch.cat(a, a, 4) end, 'dimension 4 out of range')
  tester:assertErrorPattern(function() torch.cat(torch.LongTensor(), a, a) end,
    'cat%] result of type torch.FloatTensor cannot be written into a torch.LongTensor')
  tester:assertErrorPattern(function() torch.stack({ a, torch.ones(3, 2) }) end, 'stacked tensors must have the same size')
  tester:assertErrorPattern(function() torch.stack(a) end, 'stack%] expected a table of tensors')
  tester:assertErrorPattern(function() torch.diag(torch.ones(2, 2, 2)) end, 'diag%] expected a vector or a matrix')
  tester:assertErrorPattern(function() torch.diag(a, 0.5) end, 'diagonal offset')
  tester:assertErrorPattern(function() torch.tril(torch.ones(3)) end, 'tril%] expected a matrix')
  tester:assertErrorPattern(function() torch.triu('x') end, 'triu%] expected a matrix %(a tensor%), got string')
end

tester:add(tests)
tester:run()
