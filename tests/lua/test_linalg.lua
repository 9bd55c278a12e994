-- BLAS products from Lua: hand-computed values, Torch7's call forms (result tensors, optional
-- multipliers, method forms) and errors. LAPACK is in test_linalg_lapack.lua.
local tester = torch.Tester()
local tests = torch.TestSuite()

local T = torch.Tensor  -- FloatTensor by default

function tests.dot()
  tester:asserteq(torch.dot(T{ 1, 2, 3 }, T{ 4, 5, 6 }), 32)
  tester:asserteq(T{ 1, 2, 3 }:dot(T{ 4, 5, 6 }), 32)
  tester:asserteq(T{ 1, 2, 3 } * T{ 4, 5, 6 }, 32)
  tester:asserteq(torch.dot(T{ { 1, 2 }, { 3, 4 } }, T{ 1, 1, 1, 1 }), 10)  -- Torch7: any shapes
  tester:asserteq(torch.dot(torch.LongTensor{ 1, 2 }, torch.LongTensor{ 3, 4 }), 11)
  tester:asserteq(type(torch.dot(torch.DoubleTensor{ 0.5 }, torch.DoubleTensor{ 3 })), 'number')
  tester:assertErrorPattern(function() torch.dot(T{ 1, 2 }, T{ 1, 2, 3 }) end, '%[dot%] x has 2 elements but y has 3')
  tester:assertErrorPattern(function() torch.dot(T{ 1 }, 2) end, '%[dot%] expected two tensors')
end

function tests.mv()
  local M, v = T{ { 1, 2, 3 }, { 4, 5, 6 } }, T{ 1, 0, -1 }
  tester:eq(torch.mv(M, v):totable(), { -2, -2 })
  tester:eq((M * v):totable(), { -2, -2 })
  local res = T()
  tester:assert(torch.mv(res, M, v) == res)  -- resized into res
  tester:eq(res:totable(), { -2, -2 })
  local r2 = T(2)
  tester:assert(r2:mv(M, v) == r2)
  tester:eq(r2:totable(), { -2, -2 })
  tester:eq(M:t():mv(T{ 1, 1 }):totable(), { 5, 7, 9 })  -- transposed matrix, new result
  tester:eq(torch.mv(torch.IntTensor{ { 1, 2 } }, torch.IntTensor{ 3, 4 }):totable(), { 11 })
  tester:assertErrorPattern(function() torch.mv(M, T{ 1, 2 }) end, '%[mv%] mat is 2x3 but vec has 2 elements')
  tester:assertErrorPattern(function() torch.mv(M, M) end, '%[mv%] vec must be 1D, got size 2x3')
  tester:assertErrorPattern(function() torch.mv(M) end, '%[mv%] expected tensors')
end

function tests.mm()
  local A, B = T{ { 1, 2 }, { 3, 4 } }, T{ { 5, 6 }, { 7, 8 } }
  tester:eq(torch.mm(A, B):totable(), { { 19, 22 }, { 43, 50 } })
  tester:eq((A * B):totable(), { { 19, 22 }, { 43, 50 } })
  tester:eq(torch.mm(A:t(), B):totable(), { { 26, 30 }, { 38, 44 } })
  tester:eq(torch.mm(A, B:t()):totable(), { { 17, 23 }, { 39, 53 } })
  local res = T(5, 5)
  tester:assert(torch.mm(res, A, B) == res)
  tester:eq(res:size():totable(), { 2, 2 })
  tester:eq(res:totable(), { { 19, 22 }, { 43, 50 } })
  res:zero():mm(A, B)
  tester:eq(res:totable(), { { 19, 22 }, { 43, 50 } })
  tester:eq(A:mm(B):totable(), { { 19, 22 }, { 43, 50 } })  -- one argument: a new tensor
  tester:eq(A:totable(), { { 1, 2 }, { 3, 4 } })
  local C = A:clone()
  C:mm(C, C)  -- res is both operands
  tester:eq(C:totable(), { { 7, 10 }, { 15, 22 } })
  local L = torch.mm(torch.LongTensor{ { 1, 2 }, { 3, 4 } }, torch.LongTensor{ { 1, 2 }, { 3, 4 } })
  tester:asserteq(L:type(), 'torch.LongTensor')
  tester:eq(L:totable(), { { 7, 10 }, { 15, 22 } })
  tester:asserteq(torch.mm(A:double(), B:double()):type(), 'torch.DoubleTensor')
  tester:eq(torch.mm(A:half(), B:half()):float():totable(), { { 19, 22 }, { 43, 50 } })
  tester:eq(torch.mm(T(0, 3), T(3, 2)):size():totable(), { 0, 2 })
  tester:assertErrorPattern(function() torch.mm(T(2, 3), T(4, 5)) end, '%[mm%] a is 2x3 but b is 4x5')
  tester:assertErrorPattern(function() torch.mm(A, B:double()) end,
    '%[mm%] a is a torch.FloatTensor but b is a torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.mm(T(2, 2, 2), A) end, '%[mm%] a must be 2D, got size 2x2x2')
  tester:assertErrorPattern(function() torch.mm(torch.DoubleTensor(), A, B) end,
    '%[mm%] result is a torch.DoubleTensor but the operands are torch.FloatTensors')
  tester:assertErrorPattern(function() torch.mm(A, 'x') end, '%[mm%] expected tensors %(%[res,%] a, b%)')
  tester:assertErrorPattern(function() return T(2, 2, 2) * A end, 'tensor %* tensor is dot, mv or mm')
end

function tests.bmm()
  local b1 = T{ { { 1, 2 } }, { { 3, 4 } } }        -- 2x1x2
  local b2 = T{ { { 1 }, { 1 } }, { { 2 }, { 0 } } }  -- 2x2x1
  tester:eq(torch.bmm(b1, b2):totable(), { { { 3 } }, { { 6 } } })
  local res = T()
  res:bmm(b1, b2)
  tester:eq(res:totable(), { { { 3 } }, { { 6 } } })
  local M = T{ { { 1 } }, { { 1 } } }
  tester:eq(torch.baddbmm(M, b1, b2):totable(), { { { 4 } }, { { 7 } } })
  tester:eq(torch.baddbmm(2, M, 3, b1, b2):totable(), { { { 11 } }, { { 20 } } })
  local m = M:clone()
  m:baddbmm(b1, b2)
  tester:eq(m:totable(), { { { 4 } }, { { 7 } } })
  tester:eq(torch.addbmm(T{ { 1 } }, b1, b2):totable(), { { 10 } })  -- 1 + 3 + 6
  local acc = T{ { 1 } }
  acc:addbmm(2, b1, b2)
  tester:eq(acc:totable(), { { 19 } })
  tester:eq(torch.addbmm(0.5, T{ { 2 } }, 2, b1, b2):totable(), { { 19 } })
  tester:assertErrorPattern(function() torch.bmm(b1, T(3, 2, 1)) end, '%[bmm%] batch1 is 2x1x2 but batch2 is 3x2x1')
  tester:assertErrorPattern(function() torch.bmm(b1, T(2, 2)) end, '%[bmm%] batch2 must be 3D, got size 2x2')
  tester:assertErrorPattern(function() torch.addbmm(T(2, 2), b1, b2) end,
    '%[addbmm%] M is 2x2 but the batch product is 1x1')
end

function tests.gerAndAddr()
  local x, y = T{ 1, 2, 3 }, T{ 1, 2 }
  tester:eq(torch.ger(T{ 1, 2 }, T{ 1, 2, 3 }):totable(), { { 1, 2, 3 }, { 2, 4, 6 } })
  local res = T()
  res:ger(x, y)
  tester:eq(res:totable(), { { 1, 2 }, { 2, 4 }, { 3, 6 } })
  -- Torch7's documented examples (doc/maths.md, addr).
  local M = T(3, 2):zero()
  M:addr(x, y)
  tester:eq(M:totable(), { { 1, 2 }, { 2, 4 }, { 3, 6 } })
  M:addr(2, 1, x, y)
  tester:eq(M:totable(), { { 3, 6 }, { 6, 12 }, { 9, 18 } })
  local A = T{ { 1, 2 }, { 3, 4 }, { 5, 6 } }
  M:addr(2, A, 1, x, y)
  tester:eq(M:totable(), { { 3, 6 }, { 8, 12 }, { 13, 18 } })
  tester:eq(torch.addr(A, x, y):totable(), { { 2, 4 }, { 5, 8 }, { 8, 12 } })
  local r = T()
  torch.addr(r, A, x, y)
  tester:eq(r:totable(), { { 2, 4 }, { 5, 8 }, { 8, 12 } })
  tester:assertErrorPattern(function() torch.ger(x, A) end, '%[ger%] vec2 must be 1D, got size 3x2')
end

function tests.addmmForms()
  local M, A, I = T{ { 1, 0 }, { 0, 1 } }, T{ { 1, 2 }, { 3, 4 } }, T{ { 1, 0 }, { 0, 1 } }
  -- A @ I = A, so each form is easy to check by hand.
  tester:eq(torch.addmm(M, A, I):totable(), { { 2, 2 }, { 3, 5 } })
  tester:eq(M:totable(), { { 1, 0 }, { 0, 1 } })
  tester:eq(torch.addmm(2, M, A, I):totable(), { { 3, 2 }, { 3, 6 } })
  tester:eq(torch.addmm(M, 3, A, I):totable(), { { 4, 6 }, { 9, 13 } })
  tester:eq(torch.addmm(2, M, 3, A, I):totable(), { { 5, 6 }, { 9, 14 } })
  local res = T()
  tester:assert(torch.addmm(res, M, A, I) == res)
  tester:eq(res:totable(), { { 2, 2 }, { 3, 5 } })
  torch.addmm(res, 2, M, 3, A, I)
  tester:eq(res:totable(), { { 5, 6 }, { 9, 14 } })
  -- Method forms (doc/maths.md "Differences when used as a method").
  local m = M:clone()
  tester:assert(m:addmm(A, I) == m)
  tester:eq(m:totable(), { { 2, 2 }, { 3, 5 } })
  m = M:clone()
  m:addmm(3, A, I)  -- one number is v2
  tester:eq(m:totable(), { { 4, 6 }, { 9, 13 } })
  m = M:clone()
  m:addmm(2, 3, A, I)
  tester:eq(m:totable(), { { 5, 6 }, { 9, 14 } })
  local r = T(2, 2):fill(7)
  r:addmm(M, A, I)
  tester:eq(r:totable(), { { 2, 2 }, { 3, 5 } })
  r:addmm(M, 3, A, I)
  tester:eq(r:totable(), { { 4, 6 }, { 9, 13 } })
  r:addmm(2, M, 3, A, I)
  tester:eq(r:totable(), { { 5, 6 }, { 9, 14 } })
  m = M:clone()
  m:addmm_(A, I)
  tester:eq(m:totable(), { { 2, 2 }, { 3, 5 } })
  -- beta = 0 ignores M, NaNs included; a row M broadcasts.
  local nan = T(2, 2):fill(0 / 0)
  nan:addmm(0, 1, A, I)
  tester:eq(nan:totable(), A:totable())
  tester:eq(torch.addmm(T{ { 10, 20 } }, A, I):totable(), { { 11, 22 }, { 13, 24 } })
  tester:assertErrorPattern(function() torch.addmm(T(3, 3), A, I) end, '%[addmm%] M is 3x3 but the product is 2x2')
  tester:assertErrorPattern(function() torch.addmm(A, I) end, '%[addmm%] expected %(%[res,%] %[v1,%] M')
  tester:assertErrorPattern(function() torch.addmm('x', M, A, I) end, '%[addmm%] expected')
  tester:assertErrorPattern(function() m:addmm(1, 2, 3, A, I) end, '%[addmm%] expected')
  local L = torch.LongTensor{ { 1 } }
  tester:assertErrorPattern(function() L:addmm(0.5, L, L) end,
    '%[addmm%] multipliers 1 and 0.5 must be integers for a torch.LongTensor')
end

function tests.addmvForms()
  -- doc/maths.md addmv example.
  local x, M, y = T(3):fill(0), T(3, 2):fill(3), T(2):fill(2)
  x:addmv(M, y)
  tester:eq(x:totable(), { 12, 12, 12 })
  local r = T{ 1, 1, 1 }
  r:addmv(2, M, y)  -- r = r + 2 * M y
  tester:eq(r:totable(), { 25, 25, 25 })
  r:addmv(T{ 1, 2, 3 }, 2, M, y)  -- r = v + 2 * M y
  tester:eq(r:totable(), { 25, 26, 27 })
  r:addmv(2, -1, M, y)  -- r = 2 r - M y
  tester:eq(r:totable(), { 38, 40, 42 })
  tester:eq(torch.addmv(T{ 1, 2, 3 }, M, y):totable(), { 13, 14, 15 })
  tester:eq(torch.addmv(0.5, T{ 2, 2, 2 }, 0.5, M, y):totable(), { 7, 7, 7 })
  tester:assertErrorPattern(function() torch.addmv(T{ 1, 2 }, M, y) end, '%[addmv%] vec1 is 2 but mat @ vec2 is 3')
end

tester:add(tests)
tester:run()
