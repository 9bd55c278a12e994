-- torch.argsort, unique, uniqueConsecutive, searchsorted and bucketize (lua/torch/search.lua):
-- hand-computed values (PyTorch's, + 1 for positions and indices), loops over Lua tables for
-- every dtype sort takes, ties, duplicates, NaN, empty and 0-dim inputs, non-contiguous inputs,
-- errors, and CUDA against the CPU when a device is present.
local tester = torch.Tester()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local tests = torch.TestSuite()

local TYPES = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
local nan = 0 / 0

local function flat(t) return t:double():contiguous():view(t:nElement()):totable() end
local function sizes(t) return t:dim() == 0 and {} or t:size():totable() end
-- Small integer values with many ties (exact in every dtype); bool gets 0/1.
local function sample_below(tname, hi, ...)
  local x = torch.DoubleTensor(...):uniform(0, hi):floor()
  if tname == 'torch.BoolTensor' then x:fmod(2) end
  return x:type(tname)
end
local function sample(tname, ...) return sample_below(tname, 6, ...) end

-- ---- argsort ---------------------------------------------------------------------------------

function tests.argsortValues()
  tester:eq(torch.argsort(torch.Tensor({ 3, 1, 2 })):totable(), { 2, 3, 1 })
  tester:asserteq(torch.argsort(torch.Tensor({ 3, 1, 2 })):type(), 'torch.LongTensor')
  tester:eq(torch.argsort(torch.Tensor({ 2, 1, 2, 1 })):totable(), { 2, 4, 1, 3 })        -- stable ties
  tester:eq(torch.argsort(torch.Tensor({ 2, 1, 2, 1 }), true):totable(), { 1, 3, 2, 4 })  -- descending, stable
  tester:eq(torch.argsort(torch.Tensor({ 2, nan, 1, 2 })):totable(), { 3, 1, 4, 2 })      -- NaN last
  tester:eq(torch.argsort(torch.Tensor({ 2, nan, 1, 2 }), 1, true):totable(), { 2, 1, 4, 3 })  -- PyTorch: [1,0,3,2]
  local m = torch.Tensor({ { 3, 1, 2 }, { 1, 3, 2 } })
  tester:eq(m:argsort():totable(), { { 2, 3, 1 }, { 1, 3, 2 } })
  tester:eq(m:argsort(1):totable(), { { 2, 1, 1 }, { 1, 2, 2 } })
  tester:eq(m:argsort(-2, true):totable(), { { 1, 2, 1 }, { 2, 1, 2 } })
  tester:eq(m:t():argsort(1):totable(), { { 2, 1 }, { 3, 3 }, { 1, 2 } })  -- non-contiguous
  tester:asserteq(torch.argsort(torch.Tensor({ 7 }):view({})):item(), 1)
  tester:eq(sizes(torch.argsort(torch.Tensor(0, 3), 1)), { 0, 3 })
  -- the sorting permutation: x[argsort(x)] is sort(x), for every dtype sort takes
  torch.manualSeed(1)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 4, 9)
    for _, desc in ipairs({ false, true }) do
      local v, i = torch.sort(x, 2, desc)
      local a = x:argsort(2, desc)
      tester:eq(a:totable(), i:totable(), tname)
      tester:eq(flat(x:gather(2, a)), flat(v), tname)
    end
  end
end

function tests.argsortErrors()
  tester:assertErrorPattern(function() torch.argsort(torch.Tensor(2, 3), 3) end,
    '%[argsort%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() torch.argsort(torch.Tensor(2), 1, 'yes') end,
    '%[argsort%] descending must be a boolean, got string')
  tester:assertErrorPattern(function() torch.argsort({ 1, 2 }) end, '%[argsort%] expected a tensor as argument 1')
end

-- ---- unique ----------------------------------------------------------------------------------

-- Reference on a Lua list: sorted distinct values (NaN after numbers, each distinct), inverse
-- (1-based) and counts.
local function unique_ref(list)
  local vals, seen, nans = {}, {}, 0
  for _, v in ipairs(list) do
    if v ~= v then nans = nans + 1
    elseif not seen[v] then seen[v] = true; vals[#vals + 1] = v end
  end
  table.sort(vals)
  local pos, counts = {}, {}
  for i, v in ipairs(vals) do pos[v], counts[i] = i, 0 end
  local inverse, k = {}, #vals
  for i, v in ipairs(list) do
    if v ~= v then
      k = k + 1
      inverse[i] = k
    else
      inverse[i] = pos[v]
      counts[pos[v]] = counts[pos[v]] + 1
    end
  end
  for _ = 1, nans do vals[#vals + 1], counts[#counts + 1] = nan, 1 end
  return vals, inverse, counts
end

function tests.uniqueValues()
  local x = torch.Tensor({ 3, 1, 3, 2, 1 })
  tester:eq(torch.unique(x):totable(), { 1, 2, 3 })
  local v, inv = x:unique({ returnInverse = true })
  tester:eq(v:totable(), { 1, 2, 3 })
  tester:eq(inv:totable(), { 3, 1, 3, 2, 1 })
  local v2, c2 = x:unique({ returnCounts = true })  -- counts come second when inverse is not asked for
  tester:eq(v2:totable(), { 1, 2, 3 })
  tester:eq(c2:totable(), { 2, 1, 2 })
  local _, i3, c3 = x:unique({ returnInverse = true, returnCounts = true, sorted = true })
  tester:eq(i3:totable(), { 3, 1, 3, 2, 1 })
  tester:eq(c3:totable(), { 2, 1, 2 })
  tester:asserteq(select('#', x:unique()), 1)
  tester:asserteq(i3:type(), 'torch.LongTensor')
  -- the inverse has x's shape; values[inverse] rebuilds x
  local m = torch.Tensor({ { 2, 2, 5 }, { 5, 0, 2 } })
  local mv, mi = m:unique({ returnInverse = true })
  tester:eq(mv:totable(), { 0, 2, 5 })
  tester:eq(mi:totable(), { { 2, 2, 3 }, { 3, 1, 2 } })
  tester:eq(mv:index(1, mi:view(6)):view(2, 3):totable(), m:totable())
  -- NaN: each one distinct, after the numbers (PyTorch's values), counted once
  local nv, ni, nc = torch.Tensor({ nan, 1, nan, 2, 1 }):unique({ returnInverse = true, returnCounts = true })
  tester:eq(nv:totable(), { 1, 2, nan, nan })
  tester:eq(ni:totable(), { 3, 1, 4, 2, 1 })
  tester:eq(nc:totable(), { 2, 1, 1, 1 })
  -- 0-dim and empty
  local zv, zi, zc = torch.Tensor({ 5 }):view({}):unique({ returnInverse = true, returnCounts = true })
  tester:eq(zv:totable(), { 5 })
  tester:asserteq(zi:dim(), 0)
  tester:asserteq(zi:item(), 1)
  tester:eq(zc:totable(), { 1 })
  local ev, ei, ec = torch.Tensor(0, 3):unique({ returnInverse = true, returnCounts = true })
  tester:eq(sizes(ev), { 0 })
  tester:eq(sizes(ei), { 0, 3 })
  tester:eq(sizes(ec), { 0 })
  -- bool (PyTorch: [False, True], inverse [1, 0, 1] + 1)
  local bv, bi = torch.BoolTensor({ 1, 0, 1 }):unique({ returnInverse = true })
  tester:asserteq(bv:type(), 'torch.BoolTensor')
  tester:eq(flat(bv), { 0, 1 })
  tester:eq(bi:totable(), { 2, 1, 2 })
end

function tests.uniqueAgainstLoop()
  torch.manualSeed(2)
  for _, tname in ipairs(TYPES) do
    for _, x in ipairs({ sample(tname, 5, 7), sample(tname, 6, 4):t(), sample(tname, 3, 8):narrow(2, 2, 5) }) do
      local want_v, want_i, want_c = unique_ref(flat(x))
      local v, i, c = x:unique({ returnInverse = true, returnCounts = true })
      tester:asserteq(v:type(), tname)
      tester:eq(flat(v), want_v, tname .. ' values')
      tester:eq(flat(i), want_i, tname .. ' inverse')
      tester:eq(sizes(i), sizes(x), tname .. ' inverse size')
      tester:eq(c:totable(), want_c, tname .. ' counts')
    end
  end
  -- floating values with NaN sprinkled in
  local x = torch.DoubleTensor(200):uniform(0, 10):floor()
  for k = 1, 200, 17 do x[k] = nan end
  local want_v, want_i, want_c = unique_ref(x:totable())
  local v, i, c = x:float():unique({ returnInverse = true, returnCounts = true })
  tester:eq(flat(v), want_v)
  tester:eq(i:totable(), want_i)
  tester:eq(c:totable(), want_c)
end

function tests.uniqueDim()
  -- PyTorch: unique(dim=0) of [[1,2],[1,2],[0,5]] is [[0,5],[1,2]], inverse [1,1,0], counts [1,2]
  local v, i, c = torch.LongTensor({ { 1, 2 }, { 1, 2 }, { 0, 5 } }):unique({ dim = 1, returnInverse = true,
                                                                              returnCounts = true })
  tester:eq(v:totable(), { { 0, 5 }, { 1, 2 } })
  tester:eq(i:totable(), { 2, 2, 1 })
  tester:eq(c:totable(), { 1, 2 })
  local v2, i2, c2 = torch.Tensor({ { 1, 2, 1 }, { 3, 4, 3 } }):unique({ dim = -1, returnInverse = true,
                                                                         returnCounts = true })
  tester:eq(v2:totable(), { { 1, 2 }, { 3, 4 } })
  tester:eq(i2:totable(), { 1, 2, 1 })
  tester:eq(c2:totable(), { 2, 1 })
  -- lexicographic order decided by later columns when earlier ones tie; a 3D tensor along dim 2
  tester:eq(torch.Tensor({ { 1, 3 }, { 1, 2 }, { 0, 9 }, { 1, 2 } }):unique({ dim = 1 }):totable(),
    { { 0, 9 }, { 1, 2 }, { 1, 3 } })
  torch.manualSeed(3)
  for _, tname in ipairs(TYPES) do
    local x = sample_below(tname, 2, 2, 6, 2)  -- 6 slices of 2x2 with values 0/1: repeats
    local vals, inv, cnt = x:unique({ dim = 2, returnInverse = true, returnCounts = true })
    tester:asserteq(vals:type(), tname)
    -- every slice of x is the slice of vals its inverse names; the slices of vals are distinct
    -- and ascending (compared as flattened 2x2 blocks); counts add up
    local keys = {}
    for k = 1, vals:size(2) do keys[k] = flat(vals:select(2, k)) end
    for s = 1, 6 do tester:eq(flat(x:select(2, s)), keys[inv[s]], tname .. ' inverse') end
    for k = 2, #keys do
      local a, b, less = keys[k - 1], keys[k], nil
      for j = 1, 4 do if less == nil and a[j] ~= b[j] then less = a[j] < b[j] end end
      tester:assert(less == true, tname .. ' ascending, distinct slices')
    end
    tester:asserteq(cnt:sum(), 6)
    for k = 1, #keys do tester:asserteq(cnt[k], inv:eq(k):sum(), tname .. ' counts') end
  end
  local ev, ei, ec = torch.Tensor(0, 3):unique({ dim = 1, returnInverse = true, returnCounts = true })
  tester:eq(sizes(ev), { 0, 3 })
  tester:eq(sizes(ei), { 0 })
  tester:eq(sizes(ec), { 0 })
  -- three empty slices are equal: one unique slice counted three times (PyTorch 1.13 refuses)
  local zv, zi, zc = torch.Tensor(0, 3):unique({ dim = 2, returnInverse = true, returnCounts = true })
  tester:eq(sizes(zv), { 0, 1 })
  tester:eq(zi:totable(), { 1, 1, 1 })
  tester:eq(zc:totable(), { 3 })
end

function tests.uniqueConsecutive()
  -- PyTorch: [1, 2, 3, 1], inverse [0,0,1,1,2,3,3], counts [2,2,1,2]
  local v, i, c = torch.uniqueConsecutive(torch.Tensor({ 1, 1, 2, 2, 3, 1, 1 }), { returnInverse = true,
                                                                                   returnCounts = true })
  tester:eq(v:totable(), { 1, 2, 3, 1 })
  tester:eq(i:totable(), { 1, 1, 2, 2, 3, 4, 4 })
  tester:eq(c:totable(), { 2, 2, 1, 2 })
  tester:eq(torch.Tensor({ { 1, 1 }, { 1, 2 } }):uniqueConsecutive():totable(), { 1, 2 })
  tester:eq(torch.Tensor({ nan, nan, 1 }):uniqueConsecutive():totable(), { nan, nan, 1 })
  local dv, di = torch.Tensor({ { 1, 1, 2, 1 }, { 3, 3, 4, 3 } }):uniqueConsecutive({ dim = 2, returnInverse = true })
  tester:eq(dv:totable(), { { 1, 2, 1 }, { 3, 4, 3 } })
  tester:eq(di:totable(), { 1, 1, 2, 3 })
  for _, tname in ipairs(TYPES) do
    local x = sample_below(tname, 3, 40)
    local list, want, want_c = flat(x), {}, {}
    for k, e in ipairs(list) do
      if k == 1 or e ~= list[k - 1] then want[#want + 1], want_c[#want_c + 1] = e, 0 end
      want_c[#want_c] = want_c[#want_c] + 1
    end
    local got, cnt = x:uniqueConsecutive({ returnCounts = true })
    tester:eq(flat(got), want, tname)
    tester:eq(cnt:totable(), want_c, tname)
  end
  tester:eq(sizes(torch.Tensor(0):uniqueConsecutive()), { 0 })
end

function tests.uniqueErrors()
  local x = torch.Tensor({ 1, 2 })
  tester:assertErrorPattern(function() x:unique({ returnInvrese = true }) end, '%[unique%] unknown option returnInvrese')
  tester:assertErrorPattern(function() x:unique(true) end, '%[unique%] options must be a table, got boolean')
  tester:assertErrorPattern(function() x:unique({ returnCounts = 1 }) end, '%[unique%] returnCounts must be a boolean, got number')
  tester:assertErrorPattern(function() x:unique({ dim = 2 }) end, '%[unique%] dimension 2 out of range for a 1D tensor')
  tester:assertErrorPattern(function() torch.Tensor({ 1 }):view({}):unique({ dim = 1 }) end,
    '%[unique%] dim needs a tensor with at least one dimension, got a 0%-dim tensor')
  tester:assertErrorPattern(function() x:uniqueConsecutive({ sorted = true }) end,
    '%[uniqueConsecutive%] unknown option sorted')
end

-- ---- searchsorted / bucketize ----------------------------------------------------------------

-- Reference: the first 1-based position whose element is >= v (right: > v), or #row + 1.
local function position_ref(row, v, right)
  for k, e in ipairs(row) do
    if (right and e > v) or (not right and e >= v) then return k end
  end
  return #row + 1
end

function tests.searchsortedValues()
  local s = torch.Tensor({ 1, 3, 5, 7 })
  -- Note [1-based insertion points]: the two simplest cases
  tester:asserteq(torch.searchsorted(torch.Tensor({ 1, 3 }), 2):item(), 2)  -- before the 3
  tester:asserteq(torch.searchsorted(torch.Tensor({ 1, 3 }), 0):item(), 1)  -- before everything
  tester:eq(torch.searchsorted(s, torch.Tensor({ 3, 6, 9, 0 })):totable(), { 2, 4, 5, 1 })
  tester:eq(torch.searchsorted(s, torch.Tensor({ 3, 6, 9, 0 }), { right = true }):totable(), { 3, 4, 5, 1 })
  tester:eq(torch.searchsorted(s, torch.Tensor({ 3, 7 }), { side = 'right' }):totable(), { 3, 5 })
  tester:eq(torch.searchsorted(s, torch.Tensor({ 3, 7 }), { side = 'left', right = false }):totable(), { 2, 4 })
  tester:eq(torch.searchsorted(s, torch.Tensor({ 3, 7 }), true):totable(), { 3, 5 })
  -- ties: left gives the first of equal elements, right one past the last
  local t = torch.Tensor({ 1, 2, 2, 2, 3 })
  tester:eq(torch.searchsorted(t, torch.Tensor({ 2 })):totable(), { 2 })
  tester:eq(torch.searchsorted(t, torch.Tensor({ 2 }), { right = true }):totable(), { 5 })
  -- N-D: rows along the last dim, one per leading index (PyTorch: [[1, 3], [0, 3]])
  local rows = torch.LongTensor({ { 1, 3, 5 }, { 2, 4, 6 } })
  tester:eq(torch.searchsorted(rows, torch.LongTensor({ { 3, 6 }, { 1, 7 } })):totable(), { { 2, 4 }, { 1, 4 } })
  -- values of any shape against a 1D sequence; a number gives a 0-dim result
  tester:eq(sizes(torch.searchsorted(s, torch.Tensor(2, 3, 2):fill(4))), { 2, 3, 2 })
  local z = torch.searchsorted(s, 4)
  tester:asserteq(z:dim(), 0)
  tester:asserteq(z:item(), 3)
  tester:asserteq(torch.searchsorted(torch.LongTensor({ 1, 2, 3 }), 2.5):item(), 3)  -- integer seq, fractional value
  -- sorter: indices (1-based) that sort the sequence (PyTorch: seq [5,1,3], sorter [1,2,0] -> [1, 2])
  local u = torch.Tensor({ 5, 1, 3 })
  tester:eq(torch.searchsorted(u, torch.Tensor({ 2, 4 }), { sorter = torch.LongTensor({ 2, 3, 1 }) }):totable(), { 2, 3 })
  tester:eq(torch.searchsorted(u, torch.Tensor({ 2, 4, 6 }), { sorter = u:argsort() }):totable(), { 2, 3, 4 })
  -- NaN (Note [searchsorted and NaN]): NaN elements are larger than every number, NaN values go
  -- after every element (PyTorch 1.13: left [1, 1, 3, 3, 5, 5], right [1, 2, 3, 5, 5, 5], its
  -- answers past the NaN being artifacts of its probes)
  local n = torch.Tensor({ 1, 2, 3, nan })
  local q = torch.Tensor({ 0, 1, 2.5, 3, 4, nan })
  tester:eq(torch.searchsorted(n, q):totable(), { 1, 1, 3, 3, 4, 5 })
  tester:eq(torch.searchsorted(n, q, { right = true }):totable(), { 1, 2, 3, 4, 4, 5 })
  tester:eq(torch.searchsorted(torch.Tensor({ 1, nan, nan }), torch.Tensor({ 0, 1, 5, nan })):totable(), { 1, 1, 2, 4 })
  tester:eq(torch.searchsorted(s, torch.Tensor({ nan })):totable(), { 5 })  -- PyTorch's too
  tester:eq(torch.searchsorted(torch.sort(torch.Tensor({ nan, 2, nan, 1 })), torch.Tensor({ 1.5, nan }),
                               { right = true }):totable(), { 2, 5 })
  -- IntTensor results; an empty sequence (every value goes to 1) and empty values
  local i32 = torch.searchsorted(s, torch.Tensor({ 4 }), { outInt32 = true })
  tester:asserteq(i32:type(), 'torch.IntTensor')
  tester:eq(i32:totable(), { 3 })
  tester:eq(torch.searchsorted(torch.Tensor(0), torch.Tensor({ 1, 2 })):totable(), { 1, 1 })
  tester:eq(sizes(torch.searchsorted(s, torch.Tensor(0, 2))), { 0, 2 })
  -- mixed dtypes are promoted (PyTorch: seq [1,2,3] long, values [1.5, 2] -> [1, 1])
  tester:eq(torch.searchsorted(torch.LongTensor({ 1, 2, 3 }), torch.Tensor({ 1.5, 2 })):totable(), { 2, 2 })
end

function tests.searchsortedAgainstLoop()
  torch.manualSeed(4)
  for _, tname in ipairs(TYPES) do
    local seq = torch.sort(sample(tname, 3, 10), 2)
    local vals = sample(tname, 3, 7)
    for _, right in ipairs({ false, true }) do
      local got = torch.searchsorted(seq, vals, { right = right })
      local got1 = torch.searchsorted(seq[2], vals, { right = right })
      local sr, vr = seq:double():totable(), vals:double():totable()
      for r = 1, 3 do
        for k = 1, 7 do
          tester:asserteq(got[r][k], position_ref(sr[r], vr[r][k], right), tname .. ' N-D')
          tester:asserteq(got1[r][k], position_ref(sr[2], vr[r][k], right), tname .. ' 1D')
        end
      end
      -- non-contiguous operands: a transposed sequence copy and transposed values
      local st = seq:t():contiguous():t()
      tester:eq(torch.searchsorted(st, vals:t():contiguous():t(), { right = right }):totable(), got:totable(), tname)
      local bucket = torch.bucketize(vals:t(), seq[1], right)
      tester:eq(bucket:totable(), torch.searchsorted(seq[1], vals:t():contiguous(), { right = right }):totable(), tname)
      -- a sorter over an unsorted copy gives the same positions
      local perm = torch.randperm(10):long()
      local shuffled = seq:index(2, perm)
      tester:eq(torch.searchsorted(shuffled, vals, { right = right, sorter = shuffled:argsort(2) }):totable(),
        got:totable(), tname .. ' sorter')
    end
  end
end

function tests.bucketizeValues()
  -- PyTorch: bucketize([0.5, 2, 7, 1], [1, 2, 5]) = [0, 1, 3, 0]; right = True: [0, 2, 3, 1]
  local b = torch.Tensor({ 1, 2, 5 })
  tester:eq(torch.bucketize(torch.Tensor({ 0.5, 2, 7, 1 }), b):totable(), { 1, 2, 4, 1 })
  tester:eq(torch.bucketize(torch.Tensor({ 0.5, 2, 7, 1 }), b, true):totable(), { 1, 3, 4, 2 })
  tester:eq(torch.bucketize(torch.Tensor({ { 3 }, { 6 } }), b, { outInt32 = true }):totable(), { { 3 }, { 4 } })
  tester:asserteq(torch.bucketize(3, b):item(), 3)
  tester:asserteq(torch.bucketize(torch.Tensor({ 1 }), b, { outInt32 = true }):type(), 'torch.IntTensor')
end

function tests.searchErrors()
  local s = torch.Tensor({ 1, 2, 3 })
  tester:assertErrorPattern(function() torch.searchsorted(torch.Tensor({ 1 }):view({}), s) end,
    '%[searchsorted%] sortedSeq must have at least one dimension, got a 0%-dim tensor')
  tester:assertErrorPattern(function() torch.searchsorted(torch.Tensor(2, 3), torch.Tensor(3, 2)) end,
    '%[searchsorted%] sortedSeq of size 2x3 and values of size 3x2: all dims but the last must match')
  tester:assertErrorPattern(function() torch.searchsorted(torch.Tensor(2, 3), torch.Tensor(2)) end,
    '%[searchsorted%] sortedSeq of size 2x3 and values of size 2')
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { side = 'left', right = true }) end,
    "%[searchsorted%] side and right can't be set to opposites")
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { side = 'middle' }) end,
    "%[searchsorted%] side must be 'left' or 'right', got 'middle'")
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { sorter = torch.IntTensor({ 1, 2, 3 }) }) end,
    '%[searchsorted%] sorter must be a torch.LongTensor, got a torch.IntTensor')
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { sorter = torch.LongTensor({ 1, 2 }) }) end,
    '%[searchsorted%] sorter of size 2 must have the size of sortedSeq, 3')
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { sorter = torch.LongTensor({ 1, 4, 2 }) }) end,
    '%[searchsorted%] sorter holds index 4, out of range for rows of 3 elements %(indices 1 to 3%)')
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { sorter = torch.LongTensor({ 0, 1, 2 }) }) end,
    '%[searchsorted%] sorter holds index 0')
  tester:assertErrorPattern(function() torch.searchsorted(s, 'a') end, '%[searchsorted%] values must be a tensor or a number, got string')
  tester:assertErrorPattern(function() torch.searchsorted(s, s, { rigth = true }) end, '%[searchsorted%] unknown option rigth')
  tester:assertErrorPattern(function() torch.bucketize(s, torch.Tensor(2, 2)) end,
    '%[bucketize%] boundaries must be 1D, got a tensor of size 2x2')
  tester:assertErrorPattern(function() torch.bucketize(s, torch.Tensor({ 1 }):view({})) end,
    '%[bucketize%] boundaries must be 1D, got a tensor of size %[%]')
end

-- ---- CUDA ------------------------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(5)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 6, 9)
    local g = x:cuda()
    local function same(a, b, what) tester:eq(flat(a), flat(b:float()), tname .. ' ' .. what) end
    same(x:argsort(2), g:argsort(2), 'argsort')
    same(x:argsort(1, true), g:argsort(1, true), 'argsort descending')
    local v, i, c = x:unique({ returnInverse = true, returnCounts = true })
    local gv, gi, gc = g:unique({ returnInverse = true, returnCounts = true })
    same(v, gv, 'unique')
    same(i, gi, 'unique inverse')
    same(c, gc, 'unique counts')
    same(x:unique({ dim = 2 }), g:unique({ dim = 2 }), 'unique dim')
    same(x:uniqueConsecutive(), g:uniqueConsecutive(), 'uniqueConsecutive')
    local seq = torch.sort(x, 2)
    for _, right in ipairs({ false, true }) do
      same(torch.searchsorted(seq, x, { right = right }), torch.searchsorted(seq:cuda(), g, { right = right }), 'searchsorted')
      same(torch.searchsorted(seq[1], x:t(), { right = right, outInt32 = true }),
        torch.searchsorted(seq[1]:cuda(), g:t(), { right = right, outInt32 = true }), 'searchsorted 1D')
      local shuffled = x[2]
      same(torch.searchsorted(shuffled, x, { sorter = shuffled:argsort() }),
        torch.searchsorted(shuffled:cuda(), g, { sorter = shuffled:cuda():argsort() }), 'searchsorted sorter')
      same(torch.bucketize(x, seq[3], right), torch.bucketize(g, seq[3]:cuda(), right), 'bucketize')
    end
  end
  local n = torch.Tensor({ 1, 2, 3, nan })
  local q = torch.Tensor({ 0, 1, 2.5, 3, 4, nan })
  tester:eq(torch.searchsorted(n:cuda(), q:cuda()):totable(), { 1, 1, 3, 3, 4, 5 }, 'NaN on CUDA')
  tester:eq(torch.searchsorted(n:cuda(), q:cuda(), true):totable(), { 1, 2, 3, 4, 4, 5 }, 'NaN on CUDA, right')
  tester:eq(flat(torch.Tensor({ nan, 1, nan }):cuda():unique()), { 1, nan, nan }, 'unique NaN on CUDA')
end

tester:add(tests)
tester:run()
