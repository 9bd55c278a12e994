-- Integer tensor arithmetic wraps modulo 2^bits (Note [Integer wraparound] in
-- kernels/scalar_ops.h): the results PyTorch and NumPy give, and no signed overflow in the kernels
-- (the sanitizer build, `make test-asan`, turns one into a failure). Values are powers of two so
-- Lua's doubles hold them exactly.
local tester = torch.Tester()
local tests = torch.TestSuite()

local I32_MIN, I32_MAX, I64_MIN = -2 ^ 31, 2 ^ 31 - 1, -2 ^ 63

function tests.negAndAbsOfTheMinimum()
  tester:asserteq(torch.IntTensor({ I32_MIN }):abs()[1], I32_MIN)
  tester:asserteq(torch.IntTensor({ I32_MIN }):neg()[1], I32_MIN)
  tester:asserteq(torch.LongTensor({ I64_MIN }):abs()[1], I64_MIN)
  tester:asserteq(torch.LongTensor({ I64_MIN }):neg()[1], I64_MIN)
  tester:eq(torch.IntTensor({ -3, 0, 5 }):abs():totable(), { 3, 0, 5 })
end

function tests.addSubMulWrap()
  local max, one = torch.IntTensor({ I32_MAX }), torch.IntTensor({ 1 })
  tester:asserteq(torch.add(max, one)[1], I32_MIN)
  tester:asserteq(torch.add(max, 2, one)[1], I32_MIN + 1, 'alpha*y wraps too')
  tester:asserteq(torch.csub(torch.IntTensor({ I32_MIN }), one)[1], I32_MAX)
  local big = torch.IntTensor({ 2 ^ 16 })
  tester:asserteq(torch.cmul(big, big)[1], 0)
  tester:asserteq(torch.square(big)[1], 0)
  tester:asserteq(torch.pow(torch.IntTensor({ 2 }), torch.IntTensor({ 32 }))[1], 0)
  tester:asserteq(torch.addcmul(one, big, big)[1], 1)
  local lbig = torch.LongTensor({ 2 ^ 32 })
  tester:asserteq(torch.cmul(lbig, lbig)[1], 0)
  tester:asserteq(torch.add(torch.LongTensor({ I64_MIN }), torch.LongTensor({ -1 }))[1], 2 ^ 63 - 1)
end

function tests.floorDivideOfTheMinimumByMinusOne()
  tester:asserteq(torch.floorDivide(torch.IntTensor({ I32_MIN }), torch.IntTensor({ -1 }))[1], I32_MIN)
  tester:eq(torch.floorDivide(torch.IntTensor({ -7, 7 }), torch.IntTensor({ 2, -2 })):totable(), { -4, -4 })
end

function tests.bytesStayUnsigned()
  tester:asserteq(torch.add(torch.ByteTensor({ 255 }), torch.ByteTensor({ 1 }))[1], 0)
  tester:asserteq(torch.ByteTensor({ 16 }):square()[1], 0)
  tester:asserteq(torch.ByteTensor({ 200 }):neg()[1], 56)
end

tester:add(tests)
tester:run()
