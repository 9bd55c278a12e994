-- torch.roll, tile, movedim/moveaxis, meshgrid and diff (lua/torch/arrange.lua): hand-computed
-- values, a reference loop over element coordinates for every dtype and for non-contiguous
-- inputs, edge cases (empty, 0-dim, large and negative shifts), errors, gradchecks, and CUDA
-- against the CPU when a device is present.
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local TYPES, flat, sizes, coords, linear, numel = R.TYPES, R.flat, R.sizes, R.coords, R.linear, R.numel

-- Small integer values (exact in every dtype); bool gets 0/1.
local function sample(tname, ...)
  local x = torch.DoubleTensor(...):uniform(0, 6):floor()
  if tname == 'torch.BoolTensor' then x:fmod(2) end
  return x:type(tname)
end
local function leaf(t) return torch.DoubleTensor(t):requiresGrad() end
local function rnd(...) return torch.rand(...):double():requiresGrad() end
local check = R.gradchecker(tester)

-- ---- roll ------------------------------------------------------------------------------------

-- Reference: out[c] = x[c - shift (mod n)] along each dim; no dims: the flat sequence rolled.
local function roll_ref(x, shifts, dims)
  local v, sz = flat(x), sizes(x)
  local n = #v
  local out = {}
  if dims == nil then
    for i = 0, n - 1 do out[i + 1] = v[(i - shifts) % n + 1] end
    return out
  end
  for i = 0, n - 1 do
    local c = coords(i, sz)
    for k, d in ipairs(dims) do
      if d < 0 then d = #sz + d + 1 end
      c[d] = (c[d] - 1 - shifts[k]) % sz[d] + 1
    end
    out[i + 1] = v[linear(c, sz) + 1]
  end
  return out
end

function tests.rollValues()
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.roll(m, 1, 2):totable(), { { 3, 1, 2 }, { 6, 4, 5 } })
  tester:eq(torch.roll(m, -1, 2):totable(), { { 2, 3, 1 }, { 5, 6, 4 } })
  tester:eq(torch.roll(m, 1, 1):totable(), { { 4, 5, 6 }, { 1, 2, 3 } })
  tester:eq(torch.roll(m, { 1, -1 }, { 1, 2 }):totable(), { { 5, 6, 4 }, { 2, 3, 1 } })
  tester:eq(m:roll(7):totable(), { { 6, 1, 2 }, { 3, 4, 5 } })        -- flattened, 7 = 1 (mod 6)
  tester:eq(m:roll(-8):totable(), { { 3, 4, 5 }, { 6, 1, 2 } })       -- -8 = 4 (mod 6)
  tester:eq(m:roll(4, -1):totable(), { { 3, 1, 2 }, { 6, 4, 5 } })    -- 4 = 1 (mod 3), last dim
  tester:eq(m:roll({ 1, 1 }, { 2, 2 }):totable(), { { 2, 3, 1 }, { 5, 6, 4 } })  -- a dim twice: shifts add
  tester:eq(m:roll(3, 2):totable(), m:totable())                      -- a whole turn
  tester:eq(m:roll(torch.LongStorage({ 1 }), torch.LongStorage({ 1 })):totable(), { { 4, 5, 6 }, { 1, 2, 3 } })
  -- a copy, never a view, even when nothing moves
  local r = m:roll(0, 1)
  r:fill(0)
  tester:eq(m:totable(), { { 1, 2, 3 }, { 4, 5, 6 } })
  -- 0-dim and empty tensors
  local z = torch.roll(torch.Tensor({ 5 }):view({}), 3)
  tester:asserteq(z:dim(), 0)
  tester:asserteq(z:item(), 5)
  tester:asserteq(torch.roll(torch.Tensor({ 5 }):view({}), 2, 1):item(), 5)
  tester:eq(sizes(torch.roll(torch.Tensor(0, 3), 2, 1)), { 0, 3 })
  tester:eq(sizes(torch.roll(torch.Tensor(2, 0), 2)), { 2, 0 })
end

function tests.rollAgainstLoop()
  torch.manualSeed(1)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    for _, case in ipairs({ { 2 }, { -7 }, { 13 }, { { 1 }, { 1 } }, { { -2 }, { 3 } }, { { 5, -9 }, { 2, -1 } },
                            { { 1, 2, 3 }, { 1, 2, 3 } }, { { 4, 4 }, { 3, 3 } } }) do
      local shifts, dims = case[1], case[2]
      local got = dims and x:roll(shifts, dims) or x:roll(shifts)
      tester:eq(flat(got), roll_ref(x, shifts, dims), tname .. ' roll')
      tester:asserteq(got:type(), tname)
    end
    -- non-contiguous inputs: transposed and narrowed
    local t = x:transpose(1, 3)
    tester:eq(flat(t:roll({ 2, -1 }, { 1, 3 })), roll_ref(t, { 2, -1 }, { 1, 3 }), tname .. ' transposed')
    tester:eq(flat(t:roll(11)), roll_ref(t, 11), tname .. ' transposed, flattened')
    local n = x:narrow(2, 2, 2)
    tester:eq(flat(n:roll(1, 2)), roll_ref(n, { 1 }, { 2 }), tname .. ' narrowed')
  end
end

function tests.rollErrors()
  local m = torch.Tensor(2, 3)
  tester:assertErrorPattern(function() torch.roll(m, { 1, 2 }) end,
    '%[roll%] without dims, expected one shift, got 2 shifts {1, 2}')
  tester:assertErrorPattern(function() torch.roll(m, { 1, 2 }, 1) end,
    '%[roll%] got 2 shifts {1, 2} but 1 dims {1}; expected as many of each')
  tester:assertErrorPattern(function() torch.roll(m, 1, 3) end, '%[roll%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() torch.roll(m, 1.5) end, '%[roll%] shifts 1 is 1.5, expected an integer')
  -- past int64 (once wrapped to -2^63 by the FFI and rolled by that)
  tester:assertErrorPattern(function() torch.roll(m, 1e300) end, '%[roll%] shifts 1 is 1e%+300, expected an integer')
  tester:assertErrorPattern(function() torch.roll(m, { 1, -math.huge }, { 1, 2 }) end, '%[roll%] shifts 2 is %-inf')
  tester:assertErrorPattern(function() torch.roll(m) end, '%[roll%] expected shifts')
  tester:assertErrorPattern(function() torch.roll(m, {}) end, '%[roll%] expected at least one shift')
  tester:assertErrorPattern(function() torch.roll(3, 1) end, '%[roll%] expected a tensor as argument 1, got number')
end

-- ---- tile ------------------------------------------------------------------------------------

-- Reference: out[c] = x[c mod size] with x's sizes padded with leading 1s to #reps dims.
local function tile_ref(x, reps)
  local sz = sizes(x)
  local n = math.max(#sz, #reps)
  local xs, rs, out_sz = {}, {}, {}
  for i = 1, n do
    xs[i] = sz[i - (n - #sz)] or 1
    rs[i] = reps[i - (n - #reps)] or 1
    out_sz[i] = xs[i] * rs[i]
  end
  local v, out = flat(x), {}
  for i = 0, numel(out_sz) - 1 do
    local c = coords(i, out_sz)
    for d = 1, n do c[d] = (c[d] - 1) % xs[d] + 1 end
    out[i + 1] = v[linear(c, xs) + 1]
  end
  return out, out_sz
end

function tests.tileValues()
  local v = torch.Tensor({ 1, 2, 3 })
  tester:eq(torch.tile(v, 2):totable(), { 1, 2, 3, 1, 2, 3 })
  tester:eq(torch.tile(v, { 2, 1 }):totable(), { { 1, 2, 3 }, { 1, 2, 3 } })
  tester:eq(v:tile(1, 2):totable(), { { 1, 2, 3, 1, 2, 3 } })
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(m:tile(2):totable(), { { 1, 2, 1, 2 }, { 3, 4, 3, 4 } })   -- fewer reps: leading 1s
  tester:eq(sizes(m:tile(3, 1, 1)), { 3, 2, 2 })                         -- more reps: a new dim
  tester:eq(m:tile({ 2, 2 }):totable(), m:repeatTensor(2, 2):totable())  -- Torch7's repeatTensor
  tester:eq(torch.tile(torch.Tensor({ 5 }):view({}), 2, 3):totable(), { { 5, 5, 5 }, { 5, 5, 5 } })
  tester:eq(sizes(torch.tile(torch.Tensor({ 5 }):view({}), {})), {})
  tester:eq(sizes(m:tile(0, 2)), { 0, 4 })
  tester:eq(sizes(torch.Tensor(0, 2):tile(3)), { 0, 6 })
  local c = m:tile(1)  -- a copy even when nothing repeats
  c:fill(0)
  tester:eq(m:totable(), { { 1, 2 }, { 3, 4 } })
end

function tests.tileAgainstLoop()
  torch.manualSeed(2)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 2, 3, 4)
    for _, reps in ipairs({ { 2 }, { 3, 1 }, { 2, 1, 3 }, { 2, 2, 1, 2 }, { 1, 1, 1, 1, 1 } }) do
      local got = x:tile(reps)
      local want, want_sz = tile_ref(x, reps)
      tester:eq(flat(got), want, tname .. ' tile')
      tester:eq(sizes(got), want_sz, tname .. ' tile size')
      tester:asserteq(got:type(), tname)
    end
    local t = x:transpose(1, 3)  -- 4x3x2, not contiguous
    tester:eq(flat(t:tile(2, 1, 2)), (tile_ref(t, { 2, 1, 2 })), tname .. ' transposed')
  end
end

function tests.tileErrors()
  local m = torch.Tensor(2, 3)
  tester:assertErrorPattern(function() m:tile(-1) end, '%[tile%] repetitions must not be negative, got {%-1}')
  -- once truncated to 1 and wrapped to -2^63 on their way to C
  tester:assertErrorPattern(function() m:tile(1.5) end, '%[tile%] repetition 1 is 1.5, expected an integer')
  tester:assertErrorPattern(function() m:tile({ 2, math.huge }) end, '%[tile%] repetition 2 is inf, expected an integer')
  tester:assertErrorPattern(function() m:tile() end, '%[tile%] expected repetitions')
  tester:assertErrorPattern(function() torch.tile(torch.Tensor(1, 1, 1, 1, 1, 1, 1, 1, 1), 2) end,
    '%[tile%] at most 8 dims')
  -- reps times sizes past 2^63 (once an unchecked int64 product) or past the element limit
  tester:assertErrorPattern(function() m:tile(2 ^ 62) end, '%[tile%] repeating size 3 4611686018427387904 times overflows')
  tester:assertErrorPattern(function() m:tile(2 ^ 31, 2 ^ 31) end, '%[tile%] shape .* has too many elements')
  -- Torch7's repeatTensor is tile with one count per dim at least, its errors in its own name
  tester:assertErrorPattern(function() m:repeatTensor(2) end, '%[repeatTensor%] got 1 repeat counts for a 2D tensor')
  tester:assertErrorPattern(function() m:repeatTensor(2, -1) end, '%[repeatTensor%] repeat count 2 is negative %(%-1%)')
  tester:assertErrorPattern(function() m:repeatTensor(1, 1, 1, 1, 1, 1, 1, 1, 1) end,
    '%[repeatTensor%] at most 8 repeat counts, got 9')
  tester:assertErrorPattern(function() m:repeatTensor(2 ^ 40, 2 ^ 30) end,
    '%[repeatTensor%] repeating a tensor of size .* gives too many elements')
end

-- ---- movedim ---------------------------------------------------------------------------------

function tests.movedimValues()
  local x = torch.range(1, 24):view(2, 3, 4)
  tester:eq(sizes(torch.movedim(x, 1, 3)), { 3, 4, 2 })
  tester:eq(sizes(torch.movedim(x, -1, 1)), { 4, 2, 3 })
  tester:eq(sizes(x:movedim({ 1, 2 }, { 3, 1 })), { 3, 4, 2 })
  tester:eq(sizes(x:moveaxis({ 3, 1 }, { 1, 2 })), { 4, 2, 3 })
  tester:eq(sizes(torch.moveaxis(torch.zeros(2, 3, 4, 5), { 1, 2 }, { 3, 4 })), { 4, 5, 2, 3 })
  -- values: element (i, j, k) of x sits at (j, k, i) after moving dim 1 last
  local y = x:movedim(1, 3)
  for i = 1, 2 do for j = 1, 3 do for k = 1, 4 do
    tester:asserteq(y[j][k][i], x[i][j][k])
  end end end
  tester:eq(y:totable(), x:permute(2, 3, 1):totable())
  -- a view: writing through it changes x
  y[1][1][1] = 100
  tester:asserteq(x[1][1][1], 100)
  tester:eq(sizes(x:movedim({}, {})), { 2, 3, 4 })
  local z = torch.Tensor({ 7 }):view({})
  tester:asserteq(z:movedim(1, 1):item(), 7)
  tester:eq(x:transpose(1, 3):movedim(1, 2):totable(), x:transpose(1, 3):transpose(1, 2):totable())
end

function tests.movedimErrors()
  local x = torch.zeros(2, 3, 4)
  tester:assertErrorPattern(function() x:movedim({ 1, 2 }, 1) end,
    '%[movedim%] got 2 source dims but 1 destination dims')
  tester:assertErrorPattern(function() x:movedim({ 1, 1 }, { 2, 3 }) end,
    '%[movedim%] dimension 1 appears more than once in source {1, 1}')
  tester:assertErrorPattern(function() x:movedim({ 1, 2 }, { 3, -1 }) end,
    '%[movedim%] dimension 3 appears more than once in destination {3, %-1}')
  tester:assertErrorPattern(function() x:movedim(4, 1) end, '%[movedim%] dimension 4 out of range for a 3D tensor')
end

-- ---- meshgrid --------------------------------------------------------------------------------

function tests.meshgridValues()
  local a, b = torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 4, 5 })
  local g = torch.meshgrid(a, b)
  tester:asserteq(#g, 2)
  tester:eq(g[1]:totable(), { { 1, 1 }, { 2, 2 }, { 3, 3 } })
  tester:eq(g[2]:totable(), { { 4, 5 }, { 4, 5 }, { 4, 5 } })
  local xy = torch.meshgrid({ a, b }, 'xy')
  tester:eq(xy[1]:totable(), { { 1, 2, 3 }, { 1, 2, 3 } })
  tester:eq(xy[2]:totable(), { { 4, 4, 4 }, { 5, 5, 5 } })
  tester:eq(torch.meshgrid(a, b, 'ij')[1]:totable(), g[1]:totable())
  -- three inputs, one of them 0-dim; against a loop
  local c = torch.Tensor({ 9 }):view({})
  local d = torch.Tensor({ 6, 7, 8, 9 })
  local h = torch.meshgrid({ a, c, d })
  for k = 1, 3 do tester:eq(sizes(h[k]), { 3, 1, 4 }) end
  for i = 1, 3 do for k = 1, 4 do
    tester:asserteq(h[1][i][1][k], a[i])
    tester:asserteq(h[2][i][1][k], 9)
    tester:asserteq(h[3][i][1][k], d[k])
  end end
  local h3 = torch.meshgrid(a, b, d, 'xy')
  tester:eq(sizes(h3[1]), { 2, 3, 4 })
  tester:asserteq(h3[1][2][3][4], a[3])
  tester:asserteq(h3[2][2][3][4], b[2])
  tester:asserteq(h3[3][2][3][4], d[4])
  -- one input: itself (a view); empty inputs give empty grids
  tester:eq(torch.meshgrid(a)[1]:totable(), { 1, 2, 3 })
  tester:eq(sizes(torch.meshgrid(a, torch.Tensor(0))[1]), { 3, 0 })
  -- views of expanded inputs: they share memory with the inputs
  local shared = torch.meshgrid(a, b)[1]
  a[2] = 20
  tester:eq(shared:totable(), { { 1, 1 }, { 20, 20 }, { 3, 3 } })
  -- every dtype
  for _, tname in ipairs(TYPES) do
    local p, q = sample(tname, 3), sample(tname, 2)
    local r = torch.meshgrid(p, q)
    tester:asserteq(r[1]:type(), tname)
    tester:eq(flat(r[2]), { flat(q)[1], flat(q)[2], flat(q)[1], flat(q)[2], flat(q)[1], flat(q)[2] }, tname)
  end
end

function tests.meshgridErrors()
  local a = torch.Tensor({ 1, 2 })
  tester:assertErrorPattern(function() torch.meshgrid(a, torch.zeros(2, 2)) end,
    '%[meshgrid%] expected 0%-dim or 1D tensors, got a tensor of size 2x2 as tensor 2')
  tester:assertErrorPattern(function() torch.meshgrid(a, torch.LongTensor({ 1 })) end,
    '%[meshgrid%] expected tensors of one type, got a torch.FloatTensor %(tensor 1%) and a torch.LongTensor %(tensor 2%)')
  tester:assertErrorPattern(function() torch.meshgrid(a, a, 'ji') end, "%[meshgrid%] indexing must be 'ij' or 'xy', got 'ji'")
  tester:assertErrorPattern(function() torch.meshgrid() end, '%[meshgrid%] expected at least one tensor')
  tester:assertErrorPattern(function() torch.meshgrid(a, 3) end, '%[meshgrid%] expected a tensor as argument 2, got number')
  local big = torch.ones(1):expand(2 ^ 32)  -- 2^96 grid elements: the error named expand's 'shape'
  tester:assertErrorPattern(function() torch.meshgrid(big, big, big) end, '%[meshgrid%] shape .* has too many elements')
end

-- ---- diff ------------------------------------------------------------------------------------

-- Reference: one difference pass along dim d of a table tensor (nested tables), recursively.
local function diff_ref(t, d, bool)
  if d == 1 then
    local r = {}
    for i = 1, #t - 1 do
      if type(t[i]) == 'table' then
        local row = {}
        for k = 1, #t[i] do row[k] = diff_ref({ t[i][k], t[i + 1][k] }, 1, bool)[1] end
        r[i] = row
      elseif bool then
        r[i] = (t[i + 1] ~= t[i]) and 1 or 0
      else
        r[i] = t[i + 1] - t[i]
      end
    end
    return r
  end
  local r = {}
  for i = 1, #t do r[i] = diff_ref(t[i], d - 1, bool) end
  return r
end

function tests.diffValues()
  local v = torch.Tensor({ 1, 3, 6, 10 })
  tester:eq(torch.diff(v):totable(), { 2, 3, 4 })
  tester:eq(v:diff(2):totable(), { 1, 1 })
  tester:eq(v:diff(3):totable(), { 0 })
  tester:eq(sizes(v:diff(4)), { 0 })
  tester:eq(sizes(v:diff(9)), { 0 })                        -- past the size: empty, no error
  tester:eq(sizes(v:diff(1e300)), { 0 })                    -- once wrapped to -2^63: 'must not be negative'
  tester:eq(v:diff({ n = 0, prepend = 0, append = 11 }):totable(), { 1, 3, 6, 10 })  -- n = 0 ignores them (PyTorch)
  local z = v:diff(0)                                       -- n = 0: a copy of x
  tester:eq(z:totable(), { 1, 3, 6, 10 })
  z:fill(0)
  tester:eq(v:totable(), { 1, 3, 6, 10 })
  local m = torch.Tensor({ { 1, 2, 4 }, { 7, 11, 16 } })
  tester:eq(m:diff():totable(), { { 1, 2 }, { 4, 5 } })     -- the last dim by default
  tester:eq(m:diff(1, 1):totable(), { { 6, 9, 12 } })
  tester:eq(m:diff(1, -2):totable(), { { 6, 9, 12 } })
  tester:eq(m:diff({ dim = 1 }):totable(), { { 6, 9, 12 } })
  -- prepend / append: tensors, or numbers as size-1 slices
  tester:eq(torch.diff(v, 1, 1, torch.Tensor({ 0 }), torch.Tensor({ 20, 21 })):totable(), { 1, 2, 3, 4, 10, 1 })
  tester:eq(torch.diff(v, { prepend = 0, append = 10 }):totable(), { 1, 2, 3, 4, 0 })
  tester:eq(m:diff({ dim = 1, prepend = torch.zeros(1, 3) }):totable(), { { 1, 2, 4 }, { 6, 9, 12 } })
  tester:eq(m:diff({ n = 2, append = torch.Tensor({ { 0 }, { 0 } }) }):totable(), { { 1, -6 }, { 1, -21 } })
  -- integer types keep theirs (ByteTensor wraps around, as PyTorch's uint8); bool is xor
  tester:eq(torch.LongTensor({ 5, 2, 9 }):diff():totable(), { -3, 7 })
  tester:asserteq(torch.LongTensor({ 5, 2 }):diff():type(), 'torch.LongTensor')
  tester:eq(torch.ByteTensor({ 5, 2 }):diff():totable(), { 253 })
  local b = torch.BoolTensor({ 1, 0, 0, 1 }):diff()
  tester:asserteq(b:type(), 'torch.BoolTensor')
  tester:eq(flat(b), { 1, 0, 1 })
  -- prepend of another type: promoted like cat
  tester:asserteq(torch.diff(torch.LongTensor({ 1, 2 }), { prepend = torch.DoubleTensor({ 0.5 }) }):type(),
    'torch.DoubleTensor')
  tester:eq(sizes(torch.Tensor(0, 3):diff(1, 1)), { 0, 3 })
  tester:eq(sizes(torch.Tensor(2, 0):diff()), { 2, 0 })
end

function tests.diffAgainstLoop()
  torch.manualSeed(3)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    local bool = tname == 'torch.BoolTensor'
    local signed = not (bool or tname == 'torch.ByteTensor')
    for d = 1, 3 do
      for n = 1, 2 do
        local want = x:double():totable()
        for _ = 1, n do want = diff_ref(want, d, bool) end
        local got = x:diff(n, d)
        tester:asserteq(got:type(), tname)
        if signed or bool then
          tester:eq(got:double():totable(), want, tname .. ' diff')
        else  -- uint8 wraps: compare modulo 256
          local w = torch.DoubleTensor(want):remainder(256)
          tester:eq(got:double():totable(), w:totable(), tname .. ' diff')
        end
      end
    end
    local t = x:transpose(1, 3)  -- non-contiguous
    local want = diff_ref(t:double():totable(), 2, bool)
    if tname == 'torch.ByteTensor' then want = torch.DoubleTensor(want):remainder(256):totable() end
    tester:eq(t:diff(1, 2):double():totable(), want, tname .. ' transposed')
  end
end

function tests.diffErrors()
  local m = torch.Tensor(2, 3)
  tester:assertErrorPattern(function() torch.diff(torch.Tensor({ 1 }):view({})) end,
    '%[diff%] expected a tensor with at least one dimension, got a 0%-dim tensor')
  tester:assertErrorPattern(function() m:diff(-1) end, '%[diff%] order n must not be negative, got %-1')
  tester:assertErrorPattern(function() m:diff(1.5) end, '%[diff%] order n must be an integer')
  tester:assertErrorPattern(function() m:diff(0 / 0) end, '%[diff%] order n must be an integer, got nan')
  tester:assertErrorPattern(function() m:diff(1, 3) end, '%[diff%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() m:diff(1, 2, torch.zeros(3, 1)) end,
    '%[diff%] prepend of size 3x1 does not fit x of size 2x3: expected the same sizes except in dimension 2')
  tester:assertErrorPattern(function() m:diff({ append = torch.zeros(2) }) end,
    '%[diff%] append of size 2 does not fit x of size 2x3')
  tester:assertErrorPattern(function() m:diff({ prepend = 'a' }) end, '%[diff%] prepend must be a tensor or a number, got string')
end

-- ---- gradients -------------------------------------------------------------------------------

function tests.gradients()
  check('roll', function(t) return t:roll(1, 2) end, { rnd(3, 4) })
  check('roll 2 dims', function(t) return t:roll({ -1, 5 }, { 1, 2 }) end, { rnd(3, 4) })
  check('roll flat', function(t) return t:roll(5) end, { rnd(2, 3) })
  check('roll transposed', function(t) return t:t():roll(2, 1) end, { rnd(3, 4) })
  check('tile', function(t) return t:tile(2, 3) end, { rnd(2, 3) })
  check('tile new dims', function(t) return t:tile(2, 1, 2) end, { rnd(3) })
  check('repeatTensor', function(t) return t:repeatTensor(2, 1, 3) end, { rnd(2, 3) })  -- tile inside
  check('diff', function(t) return t:diff() end, { rnd(3, 4) })
  check('diff n=2 dim 1', function(t) return t:diff(2, 1) end, { rnd(4, 3) })
  check('diff prepend append', function(t, p, a) return t:diff(1, 2, p, a) end, { rnd(2, 3), rnd(2, 1), rnd(2, 2) })
  check('movedim', function(t) return t:movedim(1, 3):contiguous() end, { rnd(2, 3, 4) })
  local function second(t) return torch.cmul(t:roll(1, 1):tile(1, 2):diff(), t:tile(1, 2):narrow(2, 1, 5)) end
  local ok, err = pcall(torch.autograd.gradgradcheck, second, { rnd(3, 3) })
  tester:assert(ok and err, 'second order roll, tile, diff: ' .. tostring(err))
  check('meshgrid', function(a, b)
    local g = torch.meshgrid(a, b)
    return torch.cmul(g[1], g[2])
  end, { leaf({ 0.3, 1.2, 0.7 }), leaf({ 0.5, 2.1 }) })
end

-- ---- CUDA ------------------------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(4)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    local g = x:cuda()
    local function same(a, b, what) tester:eq(flat(a), flat(b:float()), tname .. ' ' .. what) end
    same(x:roll({ 2, -1 }, { 1, 3 }), g:roll({ 2, -1 }, { 1, 3 }), 'roll')
    same(x:roll(7), g:roll(7), 'roll flat')
    same(x:transpose(1, 3):roll(1, 2), g:transpose(1, 3):roll(1, 2), 'roll transposed')
    same(x:tile(2, 1, 1, 2), g:tile(2, 1, 1, 2), 'tile')
    same(x:movedim(1, 3), g:movedim(1, 3), 'movedim')
    same(x:diff(2, 2), g:diff(2, 2), 'diff')
    same(torch.meshgrid(x[1][1], x[2][2])[2], torch.meshgrid(g[1][1], g[2][2])[2], 'meshgrid')
  end
  local w = torch.randn(3, 4)
  local gx = torch.randn(3, 4):cuda():requiresGrad()
  torch.cmul(gx:roll(1, 2):diff(), w:cuda():narrow(2, 1, 3)):sum():backward()
  local cx = gx:float():detach():requiresGrad()
  torch.cmul(cx:roll(1, 2):diff(), w:narrow(2, 1, 3)):sum():backward()
  tester:assertlt((gx.grad:float() - cx.grad):abs():max(), 1e-5, 'roll+diff gradient on CUDA')
end

tester:add(tests)
tester:run()
