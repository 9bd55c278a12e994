-- Reference helpers shared by the API suites that check ops against plain Lua loops
-- (test_arrange, test_index_extra, test_scatter_reduce, test_shape_views, test_stats*): tensors as
-- Lua values, row-major coordinates, the dtypes, and a gradcheck assertion.
local M = {}

M.TYPES = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
            'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
M.FLOATS = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }

-- True, after a SKIPPED line naming why, when there is no CUDA device (the suites' CUDA halves).
function M.no_cuda()
  if torch.cuda.isAvailable() then return false end
  print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
  return true
end

-- Elements of t in row-major order, as doubles, and t's sizes, as Lua tables.
function M.flat(t) return t:double():contiguous():view(t:nElement()):totable() end
function M.sizes(t) return t:dim() == 0 and {} or t:size():totable() end

-- Row-major coordinates (1-based) of linear index i (0-based) for sizes sz, and back.
function M.coords(i, sz)
  local c = {}
  for d = #sz, 1, -1 do
    c[d] = i % sz[d] + 1
    i = math.floor(i / sz[d])
  end
  return c
end
function M.linear(c, sz)
  local i = 0
  for d = 1, #sz do i = i * sz[d] + c[d] - 1 end
  return i
end
function M.numel(sz)
  local n = 1
  for _, s in ipairs(sz) do n = n * s end
  return n
end

-- A function that asserts torch.autograd.gradcheck(fn, inputs) passes, named in the failure.
function M.gradchecker(tester)
  return function(name, fn, inputs)
    local ok, err = pcall(torch.autograd.gradcheck, fn, inputs)
    tester:assert(ok and err, name .. ': ' .. tostring(err))
  end
end

-- a and b equal within tol relative to max(1, |b|), NaN equal to NaN.
function M.near(a, b, tol)
  if a ~= a or b ~= b then return a ~= a and b ~= b end
  if a == b then return true end
  return math.abs(a - b) <= tol * math.max(1, math.abs(b))
end

-- A function that asserts two Lua lists are near element by element, naming the first mismatch.
function M.list_asserter(tester)
  return function(got, want, tol, what)
    tester:asserteq(#got, #want, what .. ': element count')
    for i = 1, #want do
      if not M.near(got[i], want[i], tol) then
        tester:assert(false, string.format('%s: element %d is %s, expected %s', what, i, tostring(got[i]),
          tostring(want[i])))
        return
      end
    end
    tester:assert(true)
  end
end

-- Integers in [0, hi) of dtype tname and the given sizes (bool: 0/1), exact in every dtype.
function M.sample_below(tname, hi, ...)
  local x = torch.DoubleTensor(...):uniform(0, hi):floor()
  if tname == 'torch.BoolTensor' then x:fmod(2) end
  return x:type(tname)
end
-- A value as dtype tname stores it (bool: 0/1).
function M.cast(tname, v)
  if tname == 'torch.BoolTensor' then return v ~= 0 and 1 or 0 end
  return v
end

return M
