-- PyTorch's tensor attributes and factories (lua/torch/tensor_pytorch.lua, tensor_pytorch_new.lua):
-- the properties (T, mT, H, mH, shape, ndim, dtype, itemsize, nbytes), the predicates, the
-- new_* factories with their options, errors, and a CUDA part. Expected values are PyTorch 1.13's
-- or follow from the definitions (a transpose moves element (i, j, k) to (k, j, i)).
local tester = torch.Tester()
local tests = torch.TestSuite()

local function range3() return torch.range(0, 23):view(2, 3, 4) end

function tests.transposeProperties()
  local x = range3()
  -- PyTorch 1.13: x.T is 4x3x2 with x.T[3,2,1] == 23; x.mT is 2x4x3 with x.mT[1,3,2] == 23
  tester:assertTableEq(x.T:size():totable(), { 4, 3, 2 })
  tester:asserteq(x.T[4][3][2], 23)
  for i = 1, 2 do for j = 1, 3 do for k = 1, 4 do
    tester:asserteq(x.T[k][j][i], x[i][j][k])
    tester:asserteq(x.mT[i][k][j], x[i][j][k])
    tester:asserteq(x.mH[i][k][j], x[i][j][k])
  end end end
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:assertTensorEq(m.T, m:t():contiguous(), 0)
  tester:assertTensorEq(m.H, m:t():contiguous(), 0)
  -- views: writing through x.T writes x
  m.T[3][1] = 30
  tester:asserteq(m[1][3], 30)
  local v = torch.Tensor({ 1, 2 })
  tester:assertTensorEq(v.T, v, 0)
  tester:asserteq(torch.Tensor(1):fill(5):view({}).T:dim(), 0)
  tester:assertErrorPattern(function() return v.mT end, '%[mT%].*at least 2 dims')
  tester:assertErrorPattern(function() return x.H end, '%[H%].*at most 2 dims')
end

function tests.transposePropertiesGradients()
  local x = torch.DoubleTensor({ { 1, 2, 3 }, { 4, 5, 6 } }):requiresGrad()
  local w = torch.DoubleTensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } })
  local y = torch.cmul(x.T, w):sum()
  y:backward()
  tester:assertTensorEq(x.grad, w:t():contiguous(), 0)
  tester:assert(torch.autograd.gradcheck(function(a) return a.mT end,
    { torch.DoubleTensor(2, 2, 3):uniform():requiresGrad() }))
end

function tests.sizeProperties()
  local x = torch.DoubleTensor(2, 3)
  tester:assertTableEq(x.shape:totable(), { 2, 3 })
  tester:asserteq(x.ndim, 2)
  tester:asserteq(x.itemsize, 8)
  tester:asserteq(x.nbytes, 48)  -- PyTorch 1.13: zeros(2, 3, float64).nbytes == 48
  tester:asserteq(torch.zeros(2, 0).nbytes, 0)
  local names = { FloatTensor = 'float32', DoubleTensor = 'float64', HalfTensor = 'float16',
    BFloat16Tensor = 'bfloat16', LongTensor = 'int64', IntTensor = 'int32', ByteTensor = 'uint8', BoolTensor = 'bool' }
  local sizes = { float32 = 4, float64 = 8, float16 = 2, bfloat16 = 2, int64 = 8, int32 = 4, uint8 = 1, bool = 1 }
  for ctor, name in pairs(names) do
    local t = torch[ctor](3)
    tester:asserteq(t.dtype, name, ctor)
    tester:asserteq(t.itemsize, sizes[name], ctor)
    tester:asserteq(t.itemsize, t:elementSize(), ctor)
  end
  tester:asserteq(torch.zeros(2).dtype, torch.getDefaultDtype())
  -- torch.sparse's x:isSparse() method takes the name when it is loaded
  if torch._tensor_methods.isSparse then tester:asserteq(x:isSparse(), false) else tester:asserteq(x.isSparse, false) end
  tester:asserteq(x.isQuantized, false)
  tester:asserteq(x.isMeta, false)
end

function tests.predicates()
  local f, l, b = torch.zeros(2), torch.LongTensor(2):zero(), torch.ByteTensor(2)
  tester:assert(f:isFloatingPoint() and torch.HalfTensor(1):isFloatingPoint())
  tester:assert(not l:isFloatingPoint() and not torch.isFloatingPoint(b))
  tester:assert(not f:isComplex() and not torch.isComplex(l))
  tester:assert(f:isSigned() and l:isSigned() and not b:isSigned() and not torch.BoolTensor(1):isSigned())
  tester:assert(not f:isConj() and not torch.isNeg(f))
  tester:asserteq(torch.resolveConj(f), f)
  tester:asserteq(f:resolveNeg(), f)
  tester:asserteq(torch.conj(f), f)
  tester:assert(f:isCpu())
  -- PyTorch 1.13: tensor([0.]).is_nonzero() False, tensor([[2]]).is_nonzero() True
  tester:asserteq(torch.Tensor({ 0 }):isNonzero(), false)
  tester:asserteq(torch.LongTensor({ { 2 } }):isNonzero(), true)
  -- a BoolTensor's element reads as a Lua boolean: false was taken for non-zero
  tester:asserteq(torch.BoolTensor({ false }):isNonzero(), false)
  tester:asserteq(torch.BoolTensor({ true }):isNonzero(), true)
  tester:assertErrorPattern(function() torch.zeros(2):isNonzero() end, '%[isNonzero%].*exactly one element')
  tester:assert(f:isSameSize(torch.ones(2)) and not torch.isSameSize(f, torch.ones(3)))
  tester:assertErrorPattern(function() f:isSameSize(3) end, '%[isSameSize%]')
  -- PyTorch 1.13: isreal(tensor([1., nan])) is [True, True]
  tester:assertTensorEq(torch.isreal(torch.Tensor({ 1, 0 / 0 })):double(), torch.DoubleTensor({ 1, 1 }), 0)
  tester:asserteq(torch.zeros(2, 3):nelement(), 6)
  tester:asserteq(torch.zeros(2, 3):ndimension(), 2)
  tester:asserteq(torch.getDevice(f), -1)
  tester:assertErrorPattern(function() torch.isFloatingPoint(3) end, '%[isFloatingPoint%].*number')
end

function tests.pointersAndStorage()
  local ffi = require 'ffi'
  local x = torch.DoubleTensor({ 1, 2, 3, 4 })
  local v = x:narrow(1, 3, 2)
  tester:asserteq(v:dataPtr() - x:dataPtr(), 16)
  tester:asserteq(x:dataPtr(), tonumber(ffi.cast('intptr_t', x:data())))
  tester:asserteq(x:storageType(), torch.DoubleStorage)
  tester:asserteq(torch.LongTensor(1):storageType(), torch.LongStorage)
  local d = torch.detach(torch.ones(2):requiresGrad())
  tester:assert(not d:needsGrad() and d:isLeaf())
end

function tests.newFactories()
  local l = torch.LongTensor({ 5 })
  local z = l:newZeros(2, 3)
  tester:asserteq(torch.type(z), 'torch.LongTensor')
  tester:assertTensorEq(z, torch.LongTensor(2, 3):zero(), 0)
  tester:assertTableEq(l:newZeros({ 2, 3 }):size():totable(), { 2, 3 })
  tester:assertTableEq(l:newZeros(torch.LongStorage({ 4 })):size():totable(), { 4 })
  tester:asserteq(l:newZeros({}):dim(), 0)
  tester:assertTensorEq(torch.zeros(1):newOnes({ 2 }, { dtype = 'float64' }), torch.DoubleTensor({ 1, 1 }), 0)
  tester:asserteq(torch.type(torch.zeros(1):newOnes(2, { dtype = 'torch.IntTensor' })), 'torch.IntTensor')
  tester:assertTensorEq(torch.zeros(1):newFull({ 2, 2 }, 3.5), torch.Tensor(2, 2):fill(3.5), 0)
  tester:assertTensorEq(torch.zeros(1):newFull({ 2 }, true, { dtype = 'bool' }):long(), torch.LongTensor({ 1, 1 }), 0)
  tester:assertTableEq(torch.zeros(1):newEmpty(2, 3):size():totable(), { 2, 3 })
  -- PyTorch 1.13: new_empty_strided((2, 3), (1, 2)).stride() == (1, 2)
  local s = torch.zeros(1):newEmptyStrided({ 2, 3 }, { 1, 2 })
  tester:assertTableEq(s:stride():totable(), { 1, 2 })
  tester:asserteq(s:storage():size(), 6)
  local r = torch.DoubleTensor(1):newOnes(2, { requiresGrad = true })
  tester:assert(r:needsGrad() and r:isLeaf())
end

function tests.newTensor()
  local l = torch.LongTensor(1)
  local t = l:newTensor({ { 1, 2 }, { 3, 4 } })
  tester:asserteq(torch.type(t), 'torch.LongTensor')
  tester:assertTensorEq(t, torch.LongTensor({ { 1, 2 }, { 3, 4 } }), 0)
  local n = torch.zeros(1):newTensor(2.5)
  tester:asserteq(n:dim(), 0)
  tester:asserteq(n:item(), 2.5)
  -- from a tensor: a detached copy converted to the prototype's type
  local src = torch.DoubleTensor({ 1.5, 2.5 }):requiresGrad()
  local c = torch.zeros(1):newTensor(src)
  tester:asserteq(torch.type(c), 'torch.FloatTensor')
  tester:assert(not c:needsGrad())
  local same = torch.DoubleTensor(1):newTensor(src)
  same[1] = 9
  tester:asserteq(src[1], 1.5)  -- never shares storage
  tester:asserteq(torch.type(torch.zeros(1):newTensor({ 1 }, { dtype = 'int32' })), 'torch.IntTensor')
end

function tests.newFactoryErrors()
  local x = torch.zeros(1)
  tester:assertErrorPattern(function() x:newZeros() end, '%[newZeros%].*expected sizes')
  tester:assertErrorPattern(function() x:newZeros(2, { dtype = 'complex64' }) end, "%[newZeros%].*'complex64'")
  tester:assertErrorPattern(function() x:newOnes(2, { dtyp = 'float64' }) end, "%[newOnes%].*unknown option 'dtyp'")
  tester:assertErrorPattern(function() x:newFull(2, 1) end, '%[newFull%].*table')
  tester:assertErrorPattern(function() x:newFull({ 2 }, 'a') end, '%[newFull%].*fill value')
  tester:assertErrorPattern(function() x:newEmptyStrided({ 2, 3 }, { 1 }) end, '%[newEmptyStrided%].*different lengths')
  tester:assertErrorPattern(function() x:newTensor('abc') end, '%[newTensor%].*expected data')
  tester:assertErrorPattern(function() x:newZeros(2, { dtype = 'int64', requiresGrad = true }) end,
    '%[newZeros%].*floating%-point')
  tester:assertErrorPattern(function() torch.LongTensor.newZeros(3, 2) end, '%[newZeros%]')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local x = torch.range(1, 6):view(2, 3):cuda()
  tester:assertTensorEq(x.T:float(), x:float():t():contiguous(), 0)
  tester:assert(not x:isCpu() and x:isFloatingPoint())
  local z = x:newZeros(2, 2)
  tester:assert(z:isCuda())
  tester:asserteq(z.dtype, 'float32')
  local t = x:newTensor({ 1, 2 }, { dtype = 'int64' })
  tester:assert(t:isCuda())
  tester:assertTensorEq(t:long(), torch.LongTensor({ 1, 2 }), 0)
  tester:assert(not x:newOnes(2, { device = 'cpu' }):isCuda())
  tester:assertErrorPattern(function() x:dataPtr() end, '%[dataPtr%].*CPU')
end

tester:add(tests):run()
