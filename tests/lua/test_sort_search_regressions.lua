-- Review of the ordering ops against PyTorch 1.13 (and Torch7's call forms): sort, topk, kthvalue,
-- median, mode, msort, argsort, unique, uniqueConsecutive, searchsorted, bucketize, histc,
-- bincount, cummax/cummin, max/min/argmax/argmin with ties and NaN, their gradients, dtypes,
-- empty, 0-dim and non-contiguous inputs. Expected values are PyTorch 1.13's (float64), indices
-- shifted to 1-based, unless a comment says otherwise.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D, L = torch.DoubleTensor, torch.LongTensor
local nan = 0 / 0

-- Some cases below had their cause in C++ (core/autograd/formulas/reduce.cpp's selection,
-- nanmedian() recorded as a whole selection, topk of a 0-dim tensor with k = 0 refused).

-- Compares tables elementwise, NaN equal to NaN.
local function same(a, b, msg, tol)
  if torch.isTensor(a) then a = a:dim() == 0 and a:item() or a:totable() end
  if type(a) ~= 'table' then a = { a } end
  if type(b) ~= 'table' then b = { b } end
  tester:asserteq(#a, #b, msg .. ': length')
  for i = 1, math.max(#a, #b) do
    local x, y = a[i], b[i]
    if type(x) == 'table' or torch.isTensor(x) then same(x, y, msg .. '[' .. i .. ']', tol)
    elseif x ~= x or y ~= y then tester:assert(x ~= x and y ~= y, msg .. ': NaN at ' .. i)
    else tester:assertalmosteq(x, y, tol or 0, msg .. ' at ' .. i) end
  end
end
local function sizes(t) return t:size():totable() end
local function grad(f, v)
  local x = D(v):requiresGrad()
  local y = f(x)
  y:sum():backward()
  return x.grad
end

-- ---- values and indices against PyTorch ----------------------------------------------------

function tests.sortNaNSignedZeroAndStability()
  local x = D({ 3, nan, 1, -0.0, 0.0, nan, 2, 1 })
  local v, i = torch.sort(x)
  same(v, { -0.0, 0, 1, 1, 2, 3, nan, nan }, 'sort values')
  same(i, { 4, 5, 3, 8, 7, 1, 2, 6 }, 'sort indices (stable, NaN last)')
  tester:asserteq(1 / v[1], -math.huge, '-0 keeps its sign and its place before +0')
  v, i = torch.sort(x, 1, true)
  same(v, { nan, nan, 3, 2, 1, 1, -0.0, 0 }, 'descending values')
  same(i, { 2, 6, 1, 7, 3, 8, 4, 5 }, 'descending indices (stable, NaN first)')
  same(torch.argsort(x), { 4, 5, 3, 8, 7, 1, 2, 6 }, 'argsort')
  same(torch.argsort(x, true), { 2, 6, 1, 7, 3, 8, 4, 5 }, 'argsort descending')
  -- Torch7's result-buffer form sort(resval, resind, x, dim, descending), into a transposed buffer
  local m = D({ { 3, 1, 2 }, { 0, 5, 4 } })
  local rv, ri = D(3, 2):t(), L(3, 2):t()
  local a, b = torch.sort(rv, ri, m, 2, true)
  tester:assert(a == rv and b == ri, 'the result tensors are returned')
  same(rv, { { 3, 2, 1 }, { 5, 4, 0 } }, 'sort into buffers')
  same(ri, { { 1, 3, 2 }, { 2, 3, 1 } }, 'sort indices into buffers')
  local y = m:clone()
  torch.sort(y, L(), y, 2)  -- the input as its own value buffer
  same(y, { { 1, 2, 3 }, { 0, 4, 5 } }, 'sort in place through the buffer form')
end

function tests.sortDtypesAndLayouts()
  same(torch.sort(torch.ByteTensor({ 3, 1, 2 }), true), { 3, 2, 1 }, 'byte descending')
  local v, i = torch.sort(torch.BoolTensor({ true, false, true }))
  same(i, { 2, 1, 3 }, 'bool sort indices')
  tester:eq(v:totable(), { false, true, true }, 'bool sort values')
  v, i = torch.sort(torch.HalfTensor({ 3, 1, 2 }))
  same(v:double(), { 1, 2, 3 }, 'half')
  same(i, { 2, 3, 1 }, 'half indices')
  same(torch.sort(L({ 5, -1, 3 }), 1, true), { 5, 3, -1 }, 'long descending')
  -- non-contiguous input, negative dims
  local nc = D({ { 3, 1, 2 }, { 0, 5, 4 } }):t()
  v, i = torch.sort(nc, 1)
  same(v, { { 1, 0 }, { 2, 4 }, { 3, 5 } }, 'transposed input along dim 1')
  same(i, { { 2, 1 }, { 3, 3 }, { 1, 2 } }, 'transposed input indices')
  same(torch.sort(nc, -1, true), { { 3, 0 }, { 5, 1 }, { 4, 2 } }, 'dim -1')
  -- 0-dim and empty
  local z = D({ 5 }):view({})
  v, i = torch.sort(z)
  tester:asserteq(v:dim(), 0, '0-dim sort keeps 0 dims')
  tester:asserteq(i:item(), 1, '0-dim index')
  v, i = torch.sort(D(0, 3), 1)
  tester:eq(sizes(v), { 0, 3 }, 'empty sort')
  tester:eq(sizes(i), { 0, 3 }, 'empty sort indices')
end

function tests.topkLargestSmallestNaNAndK()
  local x = D({ 3, nan, 1, -0.0, 0.0, nan, 2, 1 })
  local v, i = torch.topk(x, 3, 1, true)
  same(v, { nan, nan, 3 }, 'largest: NaN is the largest')  -- PyTorch: [nan, nan, 3] at [1, 5, 0]
  same(i, { 2, 6, 1 }, 'largest indices')
  v = torch.topk(x, 3)  -- Torch7's default: the k smallest
  same(v, { 0, 0, 1 }, 'smallest')
  v, i = torch.topk(x, 0)
  tester:eq(sizes(v), { 0 }, 'k = 0')
  tester:eq(sizes(i), { 0 }, 'k = 0 indices')
  v = torch.topk(x, 8, 1, true, true)
  same(v, { nan, nan, 3, 2, 1, 1, 0, 0 }, 'k = size, sorted')
  v = torch.topk(x, 8, 1, true, false)
  same(torch.sort(v, 1, true), { nan, nan, 3, 2, 1, 1, 0, 0 }, 'k = size, unsorted holds every value')
  tester:assertErrorPattern(function() torch.topk(x, 9) end, '%[topk%].*k = 9')
  tester:assertErrorPattern(function() torch.topk(x, -1) end, '%[topk%]')
end

function tests.topkOfAZeroDimTensorWithKZero()
  -- topk(0-dim x, 0) returned a 0-dim value 0 and index 0 (never written: the result-buffer form
  -- left its buffers' old contents). PyTorch 1.13 returns (x, index 0), i.e. index 1 here;
  -- refusing k = 0 for a 0-dim tensor would do too.
  local z = D({ 5 }):view({})
  local ok, v, i = pcall(torch.topk, z, 0)
  if ok then
    tester:asserteq(v:item(), 5, 'topk(0-dim, 0) value')
    tester:asserteq(i:item(), 1, 'topk(0-dim, 0) index')
  else
    tester:assertErrorPattern(function() torch.topk(z, 0) end, '%[topk%]', 'or a clear error')
  end
end

function tests.kAndTheKeepdimFlagAreChecked()
  -- k = 1.5 was truncated to 1; PyTorch refuses a non-integer k.
  local x = D({ { 3, 1, 2 }, { 0, 5, 4 } })
  tester:assertErrorPattern(function() torch.topk(x, 1.5) end, '%[topk%] k must be an integer, got 1.5')
  tester:assertErrorPattern(function() torch.kthvalue(x, 1.5) end, '%[kthvalue%] k must be an integer, got 1.5')
  tester:assertErrorPattern(function() torch.topk(x, 1e300) end, '%[topk%] k must be an integer')
  tester:assertErrorPattern(function() torch.topk(x, 'a') end, '%[topk%] k must be a number')
  tester:assertErrorPattern(function() torch.median(x, 2, 'no') end, '%[median%] keepdim must be a boolean')
  tester:assertErrorPattern(function() torch.median(x, nil, false) end, '%[median%] keepdim needs a dimension')
  tester:assertErrorPattern(function() torch.mode(x, 2, 1) end, '%[mode%] keepdim must be a boolean')
end

function tests.keepdimFalseDropsTheDim()
  -- PyTorch's x.kthvalue(2, 1) / median(1) / mode(0): the reduced dim is dropped. keepdim = false
  -- was ignored (a 2x1 result); Torch7's default (keep it) is unchanged.
  local x = D({ { 3, 1, 2 }, { 0, 5, 4 } })
  local v, i = torch.kthvalue(x, 2, 2, false)
  tester:eq(sizes(v), { 2 }, 'kthvalue keepdim = false')
  same(v, { 2, 4 }, 'kthvalue values')
  same(i, { 3, 3 }, 'kthvalue indices')
  v, i = torch.median(x, 2, false)
  tester:eq(sizes(i), { 2 }, 'median keepdim = false')
  same(v, { 2, 4 }, 'median values')
  v, i = torch.mode(D({ 2, 2, 1 }), 1, false)
  tester:asserteq(v:dim(), 0, 'mode of a vector, keepdim = false: 0-dim')
  tester:asserteq(v:item(), 2, 'mode value')
  tester:asserteq(i:item(), 2, 'mode index (the last of the run)')
  tester:eq(sizes(torch.median(x, 2)), { 2, 1 }, 'Torch7 default keeps the dim')
  tester:eq(sizes(torch.median(x, 2, true)), { 2, 1 }, 'keepdim = true')
  tester:eq(sizes(torch.kthvalue(x, 1)), { 2, 1 }, 'kthvalue default keeps the dim')
  local rv, ri = D(), L()
  torch.kthvalue(rv, ri, x, 1, 2, false)
  tester:eq(sizes(rv), { 2 }, 'result form with keepdim = false')
end

function tests.medianResultFormDefaultsToTheLastDim()
  -- Torch7: median(resval, resind, x) works along the last dim; it raised 'result tensors need a
  -- dimension'.
  local x = D({ { 3, 1, 2 }, { 0, 5, 4 } })
  local rv, ri = D(), L()
  local a, b = torch.median(rv, ri, x)
  tester:assert(a == rv and b == ri, 'returns the buffers')
  same(rv, { { 2 }, { 4 } }, 'median along the last dim')
  same(ri, { { 3 }, { 3 } }, 'its indices')
  tester:asserteq(torch.median(x), 2, 'without result tensors: the lower median of all, a number')
end

function tests.medianKthvalueModeValuesAndNaN()
  -- PyTorch 1.13: median picks the lower middle value; NaN propagates with the first NaN's index
  same({ torch.median(D({ 4, 1, 3, 2 }), 1) }, { { 2 }, { 4 } }, 'median of an even count')
  local v, i = torch.median(D({ { 3, 1, 1, 2, 1 }, { nan, 2, 5, nan, 0 } }), 2)
  same(v, { { 1 }, { nan } }, 'median values')
  same(i, { { 5 }, { 1 } }, 'median indices: PyTorch [4, 0]')
  same({ torch.median(D({ 1, 2, nan, nan }), 1) }, { { nan }, { 3 } }, 'median with NaN')
  tester:assert(torch.median(D({ 3, nan, 1 })) ~= torch.median(D({ 3, nan, 1 })), 'median() of NaN input is NaN')
  same({ torch.kthvalue(D({ 3, nan, 1, -0.0, 0.0, nan, 2, 1 }), 8) }, { { nan }, { 6 } }, 'kthvalue of the last: NaN')
  same({ torch.mode(D({ 1, 2, 2, 3, 3 })) }, { { 2 }, { 3 } }, 'mode: the smallest of the most frequent')
  same({ torch.mode(D({ 3, 3, 2, 2, 1 })) }, { { 2 }, { 4 } }, 'mode index: the last occurrence')
  same({ torch.nanmedian(D({ { 1, nan, 3 }, { 2, 5, 4 }, { nan, nan, nan } }), 2) },
       { { 1, 4, nan }, { 1, 3, 1 } }, 'nanmedian')
  tester:asserteq(torch.median(L({ 1, 4, 2, 3 })), 2, 'median of a LongTensor')
  same({ torch.median(torch.HalfTensor({ 3, 1, 2 }), 1) }, { { 2 }, { 3 } }, 'median of half')
  -- empty and 0-dim
  tester:assertErrorPattern(function() torch.median(D(0)) end, '%[median%]')
  tester:assertErrorPattern(function() torch.kthvalue(D(0), 1) end, '%[kthvalue%]')
  tester:assertErrorPattern(function() torch.mode(D(0, 3), 1) end, '%[mode%]')
  tester:eq(sizes(torch.median(D(0, 3), 2)), { 0, 1 }, 'median of 0 rows')
  local z = D({ 5 }):view({})
  same({ torch.kthvalue(z, 1) }, { 5, 1 }, '0-dim kthvalue')
  tester:asserteq(torch.median(z), 5, '0-dim median')
end

function tests.maxMinArgmaxTiesAndNaN()
  -- first occurrence of a tie; NaN wins both max and min (PyTorch 1.13)
  local v, i = torch.max(D({ { 3, 5, 5, 2 }, { 7, 7, 1, nan } }), 2)
  same(v, { { 5 }, { nan } }, 'max values')
  same(i, { { 2 }, { 4 } }, 'max indices')
  v, i = torch.min(D({ { 3, 1, 1, 2 }, { 1, 1, 1, nan } }), 2)
  same(v, { { 1 }, { nan } }, 'min values')
  same(i, { { 2 }, { 4 } }, 'min indices')
  tester:asserteq(torch.argmax(D({ 3, 5, 5, 2 })), 2, 'argmax first')
  tester:asserteq(torch.argmin(D({ 3, 1, 1, 2 })), 2, 'argmin first')
  tester:asserteq(torch.argmax(D({ 3, nan, 5, nan })), 2, 'argmax NaN')
  tester:asserteq(torch.argmin(D({ 3, nan, 5, nan })), 2, 'argmin NaN')
end

function tests.cummaxCumminTiesAndNaN()
  -- PyTorch 1.13: a tie moves the index to the later element; NaN sticks with its last index
  local v, i = torch.cummax(D({ 1, 3, 3, 2, nan, 5, nan }), 1)
  same(v, { 1, 3, 3, 3, nan, nan, nan }, 'cummax values')
  same(i, { 1, 2, 3, 3, 5, 5, 7 }, 'cummax indices')
  v, i = torch.cummin(D({ 3, 1, 1, 2, nan, 0, nan }), 1)
  same(v, { 3, 1, 1, 1, nan, nan, nan }, 'cummin values')
  same(i, { 1, 2, 3, 3, 5, 5, 7 }, 'cummin indices')
  v, i = torch.cummax(torch.BoolTensor({ true, false, true }), 1)
  same(i, { 1, 1, 3 }, 'bool cummax indices')
  v, i = torch.cummax(D({ { 3, 1, 2 }, { 0, 5, 4 } }):t(), 1)
  same(v, { { 3, 0 }, { 3, 5 }, { 3, 5 } }, 'transposed cummax')
  same(i, { { 1, 1 }, { 1, 2 }, { 1, 2 } }, 'transposed cummax indices')
end


-- ---- unique, searchsorted, bucketize, histc, bincount ------------------------------------------

function tests.uniqueAndUniqueConsecutive()
  -- PyTorch 1.13 lists NaN between numbers here ([0, 1, nan, nan, 2]); Tocha sorts each NaN
  -- after the numbers (documented), counting each once.
  local v, inv, cnt = torch.unique(D({ 2, nan, 1, 2, nan, 0, -0.0, 1 }), { returnInverse = true, returnCounts = true })
  same(v, { 0, 1, 2, nan, nan }, 'unique values')
  same(inv, { 3, 4, 2, 3, 5, 1, 1, 2 }, 'unique inverse')
  same(cnt, { 2, 2, 2, 1, 1 }, 'unique counts')
  v, inv, cnt = torch.uniqueConsecutive(D({ 1, 1, nan, nan, 2, 2, 1 }), { returnInverse = true, returnCounts = true })
  same(v, { 1, nan, nan, 2, 1 }, 'uniqueConsecutive values')
  same(inv, { 1, 1, 2, 3, 4, 4, 5 }, 'uniqueConsecutive inverse')
  same(cnt, { 2, 1, 1, 2, 1 }, 'uniqueConsecutive counts')
  local m = D({ { 1, 2, 1, 2 }, { 3, 0, 3, 0 }, { 1, 2, 1, 2 } })
  v, inv, cnt = torch.unique(m, { dim = 1, returnInverse = true, returnCounts = true })
  same(v, { { 1, 2, 1, 2 }, { 3, 0, 3, 0 } }, 'unique rows')
  same(inv, { 1, 2, 1 }, 'row inverse')
  same(cnt, { 2, 1 }, 'row counts')
  v, inv, cnt = torch.unique(m, { dim = 2, returnInverse = true, returnCounts = true })
  same(v, { { 1, 2 }, { 3, 0 }, { 1, 2 } }, 'unique columns')
  same(inv, { 1, 2, 1, 2 }, 'column inverse')
  same(cnt, { 2, 2 }, 'column counts')
  v, inv = torch.uniqueConsecutive(m, { dim = 2, returnInverse = true })
  same(inv, { 1, 2, 3, 4 }, 'no equal neighbouring columns')
  v, cnt = torch.unique(D({ { 1, nan }, { 1, nan } }), { dim = 1, returnCounts = true })
  same(cnt, { 1, 1 }, 'rows holding NaN are distinct')
  v, inv = torch.unique(D({ 3 }):view({}), { returnInverse = true })
  same(v, { 3 }, '0-dim unique')
  tester:asserteq(inv:dim(), 0, '0-dim inverse')
  v, cnt = torch.unique(torch.BoolTensor({ true, false, true }), { returnCounts = true })
  same(cnt, { 1, 2 }, 'bool counts')
  same(torch.unique(torch.ByteTensor({ 3, 1, 3 })), { 1, 3 }, 'byte unique')
  v, inv, cnt = torch.unique(D(0), { returnInverse = true, returnCounts = true })
  tester:asserteq(v:nElement() + inv:nElement() + cnt:nElement(), 0, 'empty unique')
  same(torch.unique(D({ 2, 1, 2 }):requiresGrad()), { 1, 2 }, 'input requiring grad')
  tester:assertErrorPattern(function() torch.unique(m, { dim = 3 }) end, '%[unique%] dimension 3 out of range')
  tester:assertErrorPattern(function() torch.unique(m, { Dim = 1 }) end, '%[unique%] unknown option Dim')
end

function tests.searchsortedAndBucketize()
  -- PyTorch 1.13 values, 0-based + 1
  local s = D({ 1, 3, 3, 5 })
  local v = D({ 0, 1, 3, 4, 5, 6, -math.huge, math.huge })
  same(torch.searchsorted(s, v), { 1, 1, 2, 4, 4, 5, 1, 5 }, 'left')
  same(torch.searchsorted(s, v, true), { 1, 2, 4, 4, 5, 5, 1, 5 }, 'right')
  same(torch.searchsorted(s, v, { side = 'right' }), { 1, 2, 4, 4, 5, 5, 1, 5 }, "side = 'right'")
  same(torch.searchsorted(D({ 3, 1, 5 }), D({ 2, 4 }), { sorter = L({ 2, 1, 3 }) }), { 2, 3 }, 'sorter')
  same(torch.searchsorted(L({ 1, 3, 5 }), D({ 2.5, 3 })), { 2, 2 }, 'integer sequence, float values')
  same(torch.searchsorted(D({ 1, 3, 5 }), L({ 2, 3 })), { 2, 2 }, 'float sequence, integer values')
  same(torch.searchsorted(L({ 1, 3, 5 }), 2.5), 2, 'a float number into longs')
  same(torch.searchsorted(torch.ByteTensor({ 1, 3, 5 }), torch.ByteTensor({ 2, 4 })), { 2, 3 }, 'bytes')
  same(torch.searchsorted(D({ { 1, 3, 5 }, { 2, 4, 6 } }), D({ { 3, 3 }, { 3, 7 } })), { { 2, 2 }, { 2, 4 } }, 'N-D')
  same(torch.searchsorted(D({ 1, 3, 5 }), D({ { 3, 3 }, { 3, 7 } })), { { 2, 2 }, { 2, 4 } }, '1-D into N-D values')
  same(torch.searchsorted(D({ 1, 3, 5, 7 }):index(1, L({ 1, 3 })):t(), D({ 2, 6 })), { 2, 3 }, 'strided')
  same(torch.searchsorted(D(0), D({ 3, 3 })), { 1, 1 }, 'empty sequence')
  tester:asserteq(torch.searchsorted(D({ 1, 3 }), D(0)):nElement(), 0, 'no values')
  tester:asserteq(torch.searchsorted(D({ 1, 3 }), 3):dim(), 0, 'a number gives a 0-dim result')
  tester:asserteq(torch.searchsorted(D({ 1, 3 }), D({ 2 }), { outInt32 = true }):type(), 'torch.IntTensor', 'outInt32')
  -- Tocha's NaN rule (Note [searchsorted and NaN]): NaN elements last, NaN values after them all.
  same(torch.searchsorted(D({ 1, 3, nan }), D({ 4, nan })), { 3, 4 }, 'NaN')
  tester:assertErrorPattern(function() torch.searchsorted(D({ { 1, 3, 5 }, { 2, 4, 6 } }), D({ 3, 3 })) end,
    '%[searchsorted%] sortedSeq of size 2x3 and values of size 2')
  tester:assertErrorPattern(function() torch.searchsorted(D({ 3 }):view({}), D({ 2 })) end, '%[searchsorted%].*0%-dim')
  tester:assertErrorPattern(function() torch.searchsorted(D({ 1, 3 }), D({ 2 }), { sorter = L({ 0, 1 }) }) end,
    '%[searchsorted%] sorter holds index 0')
  tester:assertErrorPattern(function() torch.searchsorted(D({ 1, 3 }), D({ 2 }), { side = 'up' }) end,
    "%[searchsorted%] side must be 'left' or 'right'")
  same(torch.bucketize(D({ { 0, 1 }, { 3, 9 } }), D({ 1, 3, 5 }), true), { { 1, 2 }, { 3, 4 } }, 'bucketize right')
  same(torch.bucketize(D({ { 0, 1 }, { 3, 9 } }), D({ 1, 3, 5 })), { { 1, 1 }, { 2, 4 } }, 'bucketize left')
  same(torch.bucketize(3, D({ 1, 3, 5 })), 2, 'bucketize a number')
  tester:assertErrorPattern(function() torch.bucketize(D({ 1 }), D({ { 1, 3 } })) end,
    '%[bucketize%] boundaries must be 1D')
end

function tests.histcAndBincount()
  -- PyTorch 1.13
  same(torch.histc(D({ 1, 2, 1, 4, 5 }), 4), { 2, 1, 0, 2 }, 'min = max = 0: the data range')
  same(torch.histc(D({ 1, 2, 1, 4, 5 }), 4, 2, 4), { 1, 0, 0, 1 }, 'values outside ignored')
  same(torch.histc(D({ 3, 3, 3 }), 4), { 0, 0, 3, 0 }, 'constant data: [v - 1, v + 1]')
  same(torch.histc(D({ 1, 2, 3 }), 4, 2, 2), { 1, 0, 1, 1 }, 'min = max given: widened by 1')
  same(torch.histc(D({ 0, 1, 2, 3 }), 3, 0, 3), { 1, 1, 2 }, 'max lands in the last bin')
  same(torch.histc(D({ 0.1, 0.2, 0.3 }), 3, 0, 0.3), { 0, 1, 2 }, 'bin edges as PyTorch computes them')
  same(torch.histc(D(0), 4), { 0, 0, 0, 0 }, 'empty')
  same(torch.histc(D({ 0, 1, 2, 3 }):view(2, 2):t(), 3), { 1, 1, 2 }, 'transposed')
  tester:asserteq(torch.histc(D({ 1, 2, 1, 4, 5 })):nElement(), 100, "Torch7's 100 bins")
  -- PyTorch 1.13 counts the NaN in the first bin ([1, 1, 1, 0]); Tocha leaves NaN out.
  same(torch.histc(D({ 1, nan, 2 }), 4, 0, 3), { 0, 1, 1, 0 }, 'NaN left out')
  tester:assertErrorPattern(function() torch.histc(D({ 1, nan, 2 }), 4) end, '%[histc%] range .* is not finite')
  tester:assertErrorPattern(function() torch.histc(D({ 1, 2 }), 4, 3, 1) end, '%[histc%] max 1 must not be smaller')
  tester:assertErrorPattern(function() torch.histc(D({ 1, 2 }), 0) end, '%[histc%] number of bins must be positive')
  same(torch.bincount(L({ 0, 2, 2, 5 })), { 1, 0, 2, 0, 0, 1 }, 'bincount')
  same(torch.bincount(L({ 0, 2, 2, 5 }), nil, 8), { 1, 0, 2, 0, 0, 1, 0, 0 }, 'minlength')
  same(torch.bincount(L({ 0, 2, 2, 5 }), D({ 0.5, 1, 2, 3 })), { 0.5, 0, 3, 0, 0, 3 }, 'weights')
  tester:asserteq(torch.bincount(L({ 0, 2 }), L({ 1, 2 })):type(), 'torch.DoubleTensor', 'integer weights: double')
  tester:asserteq(torch.bincount(L({ 0, 2 }), torch.FloatTensor({ 1, 2 })):type(), 'torch.FloatTensor', 'float weights')
  same(torch.bincount(L(0), nil, 3), { 0, 0, 0 }, 'empty with minlength')
  tester:assertErrorPattern(function() torch.bincount(D({ 0, 1 })) end, '%[bincount%] expected an integer tensor')
  tester:assertErrorPattern(function() torch.bincount(L({ 0, 1 }), nil, -1) end,
    '%[bincount%] minlength must not be negative')
  tester:assertErrorPattern(function() torch.bincount(L({ 0, 1 }), D({ 1 })) end, '%[bincount%] weights of size 1')
end

function tests.argsortTakesPyTorchKeywords()
  -- torch.sort took {dim =, descending =, stable =}; argsort raised 'expected a dimension'.
  local x = D({ { 3, 1, 2 }, { 0, 5, 4 } })
  same(torch.argsort(x, { descending = true }), { { 1, 3, 2 }, { 2, 3, 1 } }, 'descending')
  same(torch.argsort(x, { dim = 1, stable = true }), { { 2, 1, 1 }, { 1, 2, 2 } }, 'dim 1')
  same(x:argsort(1, { descending = true }), { { 1, 2, 2 }, { 2, 1, 1 } }, 'positional dim with options')
  same(x:argsort(1, true), { { 1, 2, 2 }, { 2, 1, 1 } }, 'positional form unchanged')
  tester:assertErrorPattern(function() torch.argsort(x, { stable = 1 }) end, '%[argsort%] stable must be a boolean')
  tester:assertErrorPattern(function() torch.argsort(x, { foo = 1 }) end, '%[argsort%] unknown option foo')
  same(torch.msort(D({ { 3, 1 }, { 1, 2 }, { nan, 0 } })), { { 1, 0 }, { 3, 1 }, { nan, 2 } }, 'msort')
end

-- ---- gradients ----------------------------------------------------------------------------------

function tests.gradcheckInDouble()
  local gc = torch.autograd.gradcheck
  local M = function() return D({ { 0.3, 1.7, 0.9, -0.4 }, { 2.2, 0.5, 1.1, 1.3 } }):requiresGrad() end
  local V = function() return D({ 0.4, 1.3, 0.8, -0.2, 2.5 }):requiresGrad() end
  local cases = {
    sort = function(x) return (torch.sort(x, 1, true)) end,
    sortLast = function(x) return (torch.sort(x)) end,
    topk = function(x) return (torch.topk(x, 2, 1, true)) end,
    topkUnsorted = function(x) return (torch.topk(x, 2, 1, false, false)) end,
    kthvalue = function(x) return (torch.kthvalue(x, 2, 1)) end,
    kthvalueNoKeepdim = function(x) return (torch.kthvalue(x, 2, 1, false)) end,
    median = function(x) return (torch.median(x, 1)) end,
    medianNoKeepdim = function(x) return (torch.median(x, 1, false)) end,
    medianAll = function(x) return torch.median(x) end,
    mode = function(x) return (torch.mode(x, 1, false)) end,
    cummax = function(x) return (torch.cummax(x, 1)) end,
    cummin = function(x) return (torch.cummin(x, 1)) end,
    max = function(x) return (torch.max(x, 1)) end,
    msort = function(x) return torch.msort(x) end,
  }
  for name, f in pairs(cases) do
    for _, mk in ipairs({ M, V }) do
      local ok, err = pcall(gc, f, { mk() })
      tester:assert(ok and err, name .. ': ' .. tostring(err))
    end
    local ok, err = pcall(gc, f, { M():t() })
    tester:assert(ok and err, name .. ' on a transposed input: ' .. tostring(err))
  end
  -- the result-buffer form is differentiable too
  local x = D({ { 3, 1, 2 } }):requiresGrad()
  local rv, ri = D(), L()
  torch.kthvalue(rv, ri, x, 2)
  rv:sum():backward()
  same(x.grad, { { 0, 0, 1 } }, 'kthvalue into buffers')
end

function tests.selectionGradientTiesAlongADim()
  -- PyTorch 1.13: along a dim the gradient goes to the returned index; over all elements, ties
  -- share it (evenly_distribute_backward).
  same(grad(function(x) return (torch.max(x, 2)) end, { { 1, 3, 3, 2 } }), { { 0, 1, 0, 0 } }, 'max dim')
  same(grad(function(x) return (torch.min(x, 2)) end, { { 3, 1, 1, 2 }, { 2, 2, 5, 0 } }),
       { { 0, 1, 0, 0 }, { 0, 0, 0, 1 } }, 'min dim')
  same(grad(function(x) return (torch.median(x, 2)) end, { { 3, 1, 1, 2, 1 }, { nan, 2, 5, nan, 0 } }),
       { { 0, 0, 0, 0, 1 }, { 1, 0, 0, 0, 0 } }, 'median dim, ties and NaN')
  same(grad(function(x) return (torch.mode(x, 2)) end, { { 1, 3, 3, 2 } }), { { 0, 0, 1, 0 } }, 'mode dim')
  same(grad(function(x) return (torch.max(x, 2)) end, { { 3, nan, 1, nan } }), { { 0, 1, 0, 0 } }, 'max dim NaN')
  same(grad(function(x) return x:median() end, { 1, 2, 2, 3 }), { 0, 0.5, 0.5, 0 }, 'median() ties')
  same(grad(function(x) return x:median() end, { 2, 2, 2, 1 }), { 1 / 3, 1 / 3, 1 / 3, 0 }, 'median() 3 ties', 1e-15)
  same(grad(function(x) return x:max() end, { 1, 3, 3, 2 }), { 0, 0.5, 0.5, 0 }, 'max() ties')
  same(grad(function(x) return (torch.sort(x, 1)) end, { 1, 2, 2, 3 }), { 1, 1, 1, 1 }, 'sort ties')
  same(grad(function(x) return (torch.cummax(x, 1)) end, { 1, 3, 3, 2 }), { 1, 1, 2, 0 }, 'cummax ties')
  same(grad(function(x) return (torch.cummax(x, 1)) end, { 1, nan, 3, 2 }), { 1, 3, 0, 0 }, 'cummax NaN')
  same(grad(function(x) return (torch.cummin(x, 1)) end, { 3, 1, 1, 2 }), { 1, 1, 2, 0 }, 'cummin ties')
end

function tests.selectionGradientOneDimAlongItsDim()
  -- A 1-D input reduced along dim 1 took the all-elements path of the selection vjp, so ties
  -- shared the gradient instead of going to the returned index (PyTorch 1.13's values).
  same(grad(function(x) return (torch.max(x, 1)) end, { 1, 3, 3, 2 }), { 0, 1, 0, 0 }, 'max(x, 1)')
  same(grad(function(x) return (torch.min(x, 1)) end, { 3, 1, 1, 2 }), { 0, 1, 0, 0 }, 'min(x, 1)')
  same(grad(function(x) return (torch.median(x, 1)) end, { 1, 2, 2, 3 }), { 0, 1, 0, 0 }, 'median(x, 1)')
  same(grad(function(x) return (torch.mode(x, 1)) end, { 1, 3, 3, 2 }), { 0, 0, 1, 0 }, 'mode(x, 1)')
  same(grad(function(x) return (torch.max(x, 1)) end, { 3, nan, 1, nan }), { 0, 1, 0, 0 }, 'max(x, 1) NaN')
  local x = D({ 1, 3, 3, 2 }):requiresGrad()
  local v, i = torch.kthvalue(x, 3, 1)
  v:sum():backward()
  local want = { 0, 0, 0, 0 }
  want[i[1]] = 1
  same(x.grad, want, 'kthvalue(x, 3, 1): the returned index')
end

function tests.selectionGradientOverAllWithNaN()
  -- PyTorch 1.13: a NaN result shares the gradient among the NaN elements; Tocha's mask
  -- (x == NaN) is empty, so every element got 0/0 = NaN.
  same(grad(function(x) return x:max() end, { 1, nan, nan, 2 }), { 0, 0.5, 0.5, 0 }, 'max() NaN')
  same(grad(function(x) return x:min() end, { 3, nan, 1, nan }), { 0, 0.5, 0, 0.5 }, 'min() NaN')
  same(grad(function(x) return x:median() end, { 3, nan, 1, nan }), { 0, 0.5, 0, 0.5 }, 'median() NaN')
end

function tests.nanmedianGradientOverAllTies()
  -- PyTorch 1.13: nanmedian() shares the gradient among the elements equal to the result (among
  -- the NaNs when every element is NaN), as median() does; Tocha's went to one sorted index.
  same(grad(function(x) return torch.nanmedian(x) end, { 1, 2, 2, nan }), { 0, 0.5, 0.5, 0 }, 'nanmedian() ties')
  same(grad(function(x) return torch.nanmedian(x) end, { nan, nan }), { 0.5, 0.5 }, 'nanmedian() of NaNs')
end

tester:add(tests)
return tester:run()
