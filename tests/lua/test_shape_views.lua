-- torch.swapaxes/swapdims, unflatten, unbind, diagonal, broadcastTo/Tensors/Shapes, atleast1d/2d/3d,
-- hstack/vstack/dstack/columnStack/rowStack, tensorSplit/hsplit/vsplit/dsplit, rot90,
-- repeatInterleave, torch.clone/numel and x:tolist() (lua/torch/shape.lua): values against
-- reference loops over coordinates for every dtype and non-contiguous inputs, edge cases, errors,
-- gradchecks, and CUDA against the CPU when a device is present.
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local TYPES, flat, sizes, coords, linear, numel = R.TYPES, R.flat, R.sizes, R.coords, R.linear, R.numel

local function sample(tname, ...)
  local x = torch.DoubleTensor(...):uniform(0, 6):floor()
  if tname == 'torch.BoolTensor' then x:fmod(2) end
  return x:type(tname)
end
local function rnd(...) return torch.rand(...):double():requiresGrad() end
local check = R.gradchecker(tester)
-- Builds the reference tensor of sizes osz: element c takes v[src(c)] (src returns 1-based coords
-- into x of sizes xsz).
local function ref_by_coords(x, osz, src)
  local v, xsz = flat(x), sizes(x)
  local out = {}
  for i = 0, numel(osz) - 1 do
    local c = src(coords(i, osz))
    out[i + 1] = v[linear(c, xsz) + 1]
  end
  return out
end
local function shares(a, b) return torch.pointer(a:storage()) == torch.pointer(b:storage()) end

-- ---- swapaxes, unflatten, unbind --------------------------------------------------------------

function tests.swapaxesAndUnflatten()
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 2, 3, 4)
    local s = torch.swapaxes(x, 1, 3)
    tester:eq(sizes(s), { 4, 3, 2 })
    tester:eq(flat(s), ref_by_coords(x, { 4, 3, 2 }, function(c) return { c[3], c[2], c[1] } end), tname)
    tester:eq(flat(x:swapdims(-1, 2)), flat(x:transpose(3, 2)))
    local u = torch.unflatten(x, 3, { 2, 2 })
    tester:eq(sizes(u), { 2, 3, 2, 2 })
    tester:eq(flat(u), flat(x), tname .. ' unflatten keeps order')
    tester:eq(sizes(x:unflatten(-1, { -1, 1 })), { 2, 3, 4, 1 })
    tester:eq(sizes(x:unflatten(2, torch.LongStorage({ 3 }))), { 2, 3, 4 })
    -- a non-contiguous input: the values follow the logical order
    local t = x:transpose(1, 3)
    tester:eq(flat(t:unflatten(1, { 2, 2 })), flat(t), tname .. ' transposed unflatten')
  end
  local x = torch.zeros(6, 2)
  tester:assert(shares(x:unflatten(1, { 2, 3 }), x), 'unflatten is a view')
  tester:eq(sizes(torch.zeros(0, 2):unflatten(1, { 0, 5 })), { 0, 5, 2 })
  tester:assertErrorPattern(function() x:unflatten(1, { 4, 2 }) end,
    '%[unflatten%] sizes {4, 2} do not multiply to 6, the size of dimension 1')
  tester:assertErrorPattern(function() x:unflatten(1, { -1, -1 }) end, '%[unflatten%] only one size may be %-1')
  tester:assertErrorPattern(function() x:unflatten(3, { 2 }) end, '%[unflatten%] dimension 3 out of range')
  tester:assertErrorPattern(function() torch.Tensor({ 1 }):view({}):unflatten(1, { 1 }) end, '%[unflatten%] .*0%-dim')
end

function tests.unbind()
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 2, 3)
    local r = torch.unbind(x, 2)
    tester:asserteq(#r, 3)
    for j = 1, 3 do tester:eq(flat(r[j]), flat(x:select(2, j)), tname) end
    tester:asserteq(#x:unbind(), 2)
    tester:assert(shares(r[1], x), 'unbind gives views')
  end
  tester:eq(#torch.unbind(torch.zeros(0, 3)), 0)
  tester:eq(#torch.unbind(torch.zeros(0, 3), 2), 3)
  tester:assertErrorPattern(function() torch.unbind(torch.zeros(2), 2) end, '%[unbind%] dimension 2 out of range')
  tester:assertErrorPattern(function() torch.unbind(torch.Tensor({ 1 }):view({})) end, '%[unbind%] .*0%-dim')
  check('unbind', function(t) local r = t:unbind(2) return torch.cmul(r[1], r[3]) end, { rnd(3, 4) })
  -- a huge (expanded) dim is an error, not a table of 2^30 views
  tester:assertErrorPattern(function() torch.unbind(torch.zeros(1):expand(2 ^ 30)) end,
    '%[unbind%] at most 2%^24 slices, got 1073741824')
end

-- ---- diagonal ----------------------------------------------------------------------------------

-- Reference: coordinates of the other dims in order, then the diagonal position k (1-based).
local function diagonal_ref(x, offset, d1, d2)
  local xsz = sizes(x)
  local nd = #xsz
  if d1 < 0 then d1 = d1 + nd + 1 end
  if d2 < 0 then d2 = d2 + nd + 1 end
  local n1, n2 = xsz[d1], xsz[d2]
  local len = offset >= 0 and math.max(0, math.min(n1, n2 - offset)) or math.max(0, math.min(n1 + offset, n2))
  local osz = {}
  for k = 1, nd do if k ~= d1 and k ~= d2 then osz[#osz + 1] = xsz[k] end end
  osz[#osz + 1] = len
  local vals = ref_by_coords(x, osz, function(c)
    local src, j = {}, 1
    for k = 1, nd do
      if k ~= d1 and k ~= d2 then src[k] = c[j]; j = j + 1 end
    end
    local t = c[#c]
    src[d1] = offset >= 0 and t or t - offset
    src[d2] = offset >= 0 and t + offset or t
    return src
  end)
  return vals, osz
end

function tests.diagonalValues()
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.diagonal(m):totable(), { 1, 5 })
  tester:eq(m:diagonal(1):totable(), { 2, 6 })
  tester:eq(m:diagonal(-1):totable(), { 4 })
  tester:eq(m:diagonal(2):totable(), { 3 })
  tester:eq(sizes(m:diagonal(3)), { 0 })
  tester:eq(sizes(m:diagonal(-2)), { 0 })
  tester:eq(m:diagonal({ offset = 1 }):totable(), { 2, 6 })
  torch.manualSeed(2)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    for _, case in ipairs({ { 0, 1, 2 }, { 1, 1, 3 }, { -2, 3, 1 }, { 2, -1, -2 }, { -1, 2, 3 }, { 4, 1, 2 } }) do
      local want, osz = diagonal_ref(x, case[1], case[2], case[3])
      local got = x:diagonal(case[1], case[2], case[3])
      tester:eq(sizes(got), osz, tname .. ' diagonal size')
      tester:eq(flat(got), want, tname .. ' diagonal ' .. table.concat(case, ','))
      tester:asserteq(got:type(), tname)
    end
    local t = x:transpose(1, 3):narrow(2, 2, 3)
    local want = diagonal_ref(t, 1, 1, 3)
    tester:eq(flat(t:diagonal(1, 1, 3)), want, tname .. ' non-contiguous')
  end
  -- a view: writing into it writes the matrix
  local z = torch.zeros(3, 3)
  z:diagonal():fill(7)
  tester:eq(z:totable(), { { 7, 0, 0 }, { 0, 7, 0 }, { 0, 0, 7 } })
  tester:assertErrorPattern(function() torch.zeros(3):diagonal() end,
    '%[diagonal%] expected a tensor with at least 2 dimensions, got a tensor of size 3')
  tester:assertErrorPattern(function() torch.zeros(3, 3):diagonal(0, 2, -1) end, '%[diagonal%] dims 2 and 2 are the same')
  tester:assertErrorPattern(function() torch.zeros(3, 3):diagonal(0, 1, 3) end, '%[diagonal%] dimension 3 out of range')
  tester:assertErrorPattern(function() torch.zeros(3, 3):diagonal(0.5) end, '%[diagonal%] offset must be an integer')
  check('diagonal', function(t) return t:diagonal(1) end, { rnd(3, 4) })
  check('diagonal 3d', function(t) return t:diagonal(-1, 3, 1) end, { rnd(3, 2, 4) })
end

-- The diagonal of an expanded (stride-0) tensor: the gradient had come back multiplied by the
-- expansion (as_strided's gradient takes elements as distinct); values and storage sharing kept.
function tests.diagonalOfExpanded()
  local a = torch.DoubleTensor({ { 1, 2, 3 } }):requiresGrad()
  a:expand(3, 3):diagonal():sum():backward()
  tester:eq(a.grad:totable(), { { 1, 1, 1 } })
  local cases = { -- base sizes, expanded sizes, offset, dim1, dim2
    { { 3, 1 }, { 3, 4 } }, { { 1, 4 }, { 3, 4 } }, { { 1, 1 }, { 3, 3 } }, { { 2, 1, 4 }, { 2, 3, 4 } },
    { { 1, 3, 1 }, { 2, 3, 4 } }, { { 2, 1, 1 }, { 2, 3, 3 } }, { { 1 }, { 4, 3 } },
  }
  for _, c in ipairs(cases) do
    for _, dims in ipairs({ { 1, 2 }, { 2, 1 }, { 1, -1 }, { -1, 1 } }) do
      for offset = -2, 2 do
        local what = ('%s -> %s offset %d dims %d,%d'):format(table.concat(c[1], 'x'), table.concat(c[2], 'x'), offset,
          dims[1], dims[2])
        local base = rnd(unpack(c[1]))
        local e = base:expand(unpack(c[2]))
        local got = e:diagonal(offset, dims[1], dims[2])
        local want = e:contiguous():diagonal(offset, dims[1], dims[2])
        tester:eq(sizes(got), sizes(want), what .. ' size')
        tester:eq(flat(got), flat(want), what)
        if got:nElement() > 0 then tester:assert(shares(got, base), what .. ' shares storage') end
        check(what, function(t) return t:expand(unpack(c[2])):diagonal(offset, dims[1], dims[2]) * 2 end, { base })
      end
    end
  end
end

-- ---- broadcasting ------------------------------------------------------------------------------

function tests.broadcasting()
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 1)
    local b = torch.broadcastTo(x, 2, 3, 4)
    tester:eq(sizes(b), { 2, 3, 4 })
    tester:eq(flat(b), ref_by_coords(x, { 2, 3, 4 }, function(c) return { c[2], 1 } end), tname)
    tester:eq(sizes(x:broadcastTo({ -1, 5 })), { 3, 5 })
    local y = sample(tname, 4)
    local r = torch.broadcastTensors(x, y)
    tester:eq(sizes(r[1]), { 3, 4 })
    tester:eq(sizes(r[2]), { 3, 4 })
    tester:eq(flat(r[2]), ref_by_coords(y, { 3, 4 }, function(c) return { c[2] } end), tname)
    tester:assert(shares(r[1], x), 'broadcastTensors gives views')
  end
  tester:eq(#torch.broadcastTensors({ torch.zeros(2) }), 1)
  tester:eq(torch.broadcastShapes({ 2, 1 }, { 3 }, 1):totable(), { 2, 3 })
  tester:eq(torch.broadcastShapes({ 5, 1, 4 }, torch.LongStorage({ 3, 1 })):totable(), { 5, 3, 4 })
  tester:eq(torch.broadcastShapes({}, { 0 }):totable(), { 0 })
  tester:eq(#torch.broadcastShapes():totable(), 0)
  tester:assertErrorPattern(function() torch.broadcastShapes({ 2 }, { 3 }) end,
    '%[broadcastShapes%] shape 3 %(argument 2%) does not broadcast with 2')
  tester:assertErrorPattern(function() torch.broadcastTo(torch.zeros(3), 2) end,
    '%[broadcastTo%] cannot broadcast a tensor of size 3 to {2}')
  tester:assertErrorPattern(function() torch.broadcastTo(torch.zeros(2, 3), 3) end, '%[broadcastTo%] .*fewer dims')
  tester:assertErrorPattern(function() torch.broadcastTensors(torch.zeros(2), torch.zeros(3)) end,
    '%[broadcastTensors%] shape 3 %(argument 2%) does not broadcast with 2')
  tester:assertErrorPattern(function() torch.broadcastTensors(torch.zeros(2), 3) end,
    '%[broadcastTensors%] expected a tensor as tensor 2, got number')
  check('broadcastTo', function(t) return t:broadcastTo(2, 3, 4) end, { rnd(3, 1) })
  check('broadcastTensors', function(a, b) local r = torch.broadcastTensors(a, b) return torch.cmul(r[1], r[2]) end,
    { rnd(3, 1), rnd(4) })
end

function tests.atleast()
  local s = torch.Tensor({ 5 }):view({})
  tester:eq(sizes(torch.atleast1d(s)), { 1 })
  tester:eq(sizes(torch.atleast2d(s)), { 1, 1 })
  tester:eq(sizes(torch.atleast3d(s)), { 1, 1, 1 })
  local v = torch.Tensor({ 1, 2, 3 })
  tester:eq(sizes(v:atleast1d()), { 3 })
  tester:eq(sizes(v:atleast2d()), { 1, 3 })
  tester:eq(sizes(v:atleast3d()), { 1, 3, 1 })
  local m = torch.zeros(2, 3)
  tester:eq(sizes(m:atleast3d()), { 2, 3, 1 })
  tester:eq(sizes(torch.zeros(2, 3, 4, 5):atleast3d()), { 2, 3, 4, 5 })
  local r = torch.atleast2d(s, v, m)
  tester:eq(sizes(r[1]), { 1, 1 })
  tester:eq(sizes(r[2]), { 1, 3 })
  tester:eq(sizes(r[3]), { 2, 3 })
  tester:eq(#torch.atleast1d({ s, v }), 2)
  tester:assert(shares(v:atleast3d(), v), 'atleast3d is a view')
  tester:eq(v:t():atleast2d():totable(), { { 1, 2, 3 } })
  tester:assertErrorPattern(function() torch.atleast2d(3) end, '%[atleast2d%] expected a tensor as tensor 1')
end

-- ---- stacking ----------------------------------------------------------------------------------

function tests.stackFamily()
  for _, tname in ipairs(TYPES) do
    local a, b = sample(tname, 2, 3), sample(tname, 2, 3)
    local function rows(t) return t:double():totable() end
    tester:eq(rows(torch.hstack({ a, b })), rows(torch.cat(a, b, 2)), tname .. ' hstack')
    tester:eq(rows(torch.vstack({ a, b })), rows(torch.cat(a, b, 1)), tname .. ' vstack')
    tester:eq(rows(torch.rowStack(a, b)), rows(torch.cat(a, b, 1)), tname .. ' rowStack')
    local d = torch.dstack({ a, b })
    tester:eq(sizes(d), { 2, 3, 2 })
    tester:eq(flat(d:select(3, 2)), flat(b), tname .. ' dstack')
    local u, v = sample(tname, 3), sample(tname, 3)
    tester:eq(flat(torch.hstack({ u, v })), flat(torch.cat(u, v, 1)), tname .. ' hstack 1D')
    tester:eq(rows(torch.vstack({ u, v })), { flat(u), flat(v) }, tname .. ' vstack 1D')
    local cs = torch.columnStack({ u, v, a:t() })
    tester:eq(sizes(cs), { 3, 4 })
    tester:eq(flat(cs:select(2, 2)), flat(v), tname .. ' columnStack')
    tester:eq(flat(cs:narrow(2, 3, 2)), flat(a:t()), tname .. ' columnStack 2D part')
    tester:asserteq(cs:type(), tname)
  end
  local s = torch.Tensor({ 5 }):view({})
  tester:eq(torch.hstack({ s, s }):totable(), { 5, 5 })
  tester:eq(torch.vstack({ s, s }):totable(), { { 5 }, { 5 } })
  tester:eq(torch.columnStack({ s, s }):totable(), { { 5, 5 } })
  -- mixed types promote, as cat does
  tester:asserteq(torch.hstack({ torch.LongTensor({ 1 }), torch.DoubleTensor({ 2.5 }) }):type(), 'torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.vstack({ torch.zeros(2), torch.zeros(3) }) end,
    '%[vstack%] tensor 2 of size 3 does not fit tensor 1 of size 2')
  tester:assertErrorPattern(function() torch.rowStack({ torch.zeros(2), torch.zeros(3) }) end,
    '%[rowStack%] tensor 2 of size 3 does not fit tensor 1 of size 2')
  tester:assertErrorPattern(function() torch.hstack({}) end, '%[hstack%] expected at least one tensor')
  tester:assertErrorPattern(function() torch.dstack({ torch.zeros(2), 'x' }) end, '%[dstack%] expected a tensor as tensor 2')
  check('hstack', function(a, b) return torch.hstack({ a, b }) end, { rnd(2, 3), rnd(2, 1) })
  check('dstack', function(a, b) return torch.dstack({ a, b }) end, { rnd(3), rnd(3) })
  check('columnStack', function(a, b) return torch.columnStack({ a, b }) end, { rnd(3), rnd(3, 2) })
end

-- ---- splitting ---------------------------------------------------------------------------------

local function parts(list)
  local r = {}
  for i, t in ipairs(list) do r[i] = t:nElement() == 0 and {} or flat(t) end
  return r
end

function tests.tensorSplit()
  local x = torch.range(1, 7)
  tester:eq(parts(torch.tensorSplit(x, 3)), { { 1, 2, 3 }, { 4, 5 }, { 6, 7 } })
  tester:eq(parts(x:tensorSplit(9)), { { 1 }, { 2 }, { 3 }, { 4 }, { 5 }, { 6 }, { 7 }, {}, {} })
  tester:eq(parts(x:tensorSplit({ 2, 4 })), { { 1 }, { 2, 3 }, { 4, 5, 6, 7 } })
  tester:eq(parts(x:tensorSplit(torch.LongTensor({ 3 }))), { { 1, 2 }, { 3, 4, 5, 6, 7 } })
  tester:eq(parts(x:tensorSplit({ -2 })), { { 1, 2, 3, 4, 5 }, { 6, 7 } })      -- -2: the second-to-last starts
  tester:eq(parts(x:tensorSplit({ 1 })), { {}, { 1, 2, 3, 4, 5, 6, 7 } })
  tester:eq(parts(x:tensorSplit({ 8 })), { { 1, 2, 3, 4, 5, 6, 7 }, {} })
  tester:eq(parts(x:tensorSplit({ 20, 3 })), { { 1, 2, 3, 4, 5, 6, 7 }, {}, { 3, 4, 5, 6, 7 } })  -- as slicing
  tester:eq(parts(x:tensorSplit({})), { { 1, 2, 3, 4, 5, 6, 7 } })
  -- reference: part sizes of n sections, every dtype, along a non-contiguous dim
  for _, tname in ipairs(TYPES) do
    local t = sample(tname, 4, 5):t()
    local r = t:tensorSplit(2, 2)
    tester:eq(sizes(r[1]), { 5, 2 })
    tester:eq(flat(r[2]), flat(t:narrow(2, 3, 2)), tname)
    tester:assert(shares(r[1], t), 'views')
  end
  tester:eq(#torch.tensorSplit(torch.zeros(0), 3), 3)
  tester:assertErrorPattern(function() x:tensorSplit(0) end, '%[tensorSplit%] number of sections must be positive, got 0')
  tester:assertErrorPattern(function() x:tensorSplit({ 0 }) end, '%[tensorSplit%] index 1 is 0; split indices are 1%-based')
  tester:assertErrorPattern(function() x:tensorSplit({ 1.5 }) end, '%[tensorSplit%] index 1 must be an integer')
  tester:assertErrorPattern(function() x:tensorSplit(2, 2) end, '%[tensorSplit%] dimension 2 out of range')
  tester:assertErrorPattern(function() x:tensorSplit('a') end, '%[tensorSplit%] expected a number of sections')
  tester:assertErrorPattern(function() torch.Tensor({ 1 }):view({}):tensorSplit(1) end, '%[tensorSplit%] .*0%-dim')
  check('tensorSplit', function(t) local r = t:tensorSplit({ 2 }, 2) return torch.cmul(r[1], r[2]:narrow(2, 1, 1)) end,
    { rnd(3, 4) })
end

function tests.hvdsplit()
  local m = torch.range(1, 8):view(2, 4)
  local h = torch.hsplit(m, 2)
  tester:eq(h[1]:totable(), { { 1, 2 }, { 5, 6 } })
  tester:eq(h[2]:totable(), { { 3, 4 }, { 7, 8 } })
  tester:eq(parts(torch.hsplit(torch.range(1, 4), { 2 })), { { 1 }, { 2, 3, 4 } })
  tester:eq(parts(m:vsplit(2)), { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } })
  local c = torch.range(1, 8):view(1, 2, 4)
  tester:eq(parts(c:dsplit({ 4 })), { { 1, 2, 3, 5, 6, 7 }, { 4, 8 } })
  tester:assertErrorPattern(function() torch.hsplit(m, 3) end, '%[hsplit%] dimension 2 of size 4 is not divisible into 3')
  tester:assertErrorPattern(function() torch.vsplit(torch.zeros(4), 2) end,
    '%[vsplit%] expected a tensor with at least 2 dimensions, got a tensor of size 4')
  tester:assertErrorPattern(function() torch.dsplit(m, 2) end, '%[dsplit%] expected a tensor with at least 3 dimensions')
end

-- ---- rot90 -------------------------------------------------------------------------------------

function tests.rot90()
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.rot90(m):totable(), { { 2, 4 }, { 1, 3 } })         -- counter-clockwise, as NumPy
  tester:eq(m:rot90(2):totable(), { { 4, 3 }, { 2, 1 } })
  tester:eq(m:rot90(-1):totable(), { { 3, 1 }, { 4, 2 } })
  tester:eq(m:rot90(3):totable(), m:rot90(-1):totable())
  tester:eq(m:rot90(4):totable(), m:totable())
  tester:eq(m:rot90(1, { 2, 1 }):totable(), m:rot90(-1):totable())
  -- reference: k = 1 maps out[i][j] (size n2 x n1) = x[j][n2 + 1 - i] in the plane
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 2)
    local r = x:rot90(1, { 1, 2 })
    tester:eq(sizes(r), { 4, 3, 2 })
    tester:eq(flat(r), ref_by_coords(x, { 4, 3, 2 }, function(c) return { c[2], 4 + 1 - c[1], c[3] } end), tname)
    local t = x:transpose(1, 3)   -- 2 x 4 x 3
    local r3 = t:rot90(3, { 1, 3 })  -- 3 x 4 x 2: out[i][j][k] = t[k][j][3 + 1 - i]... k=3 is k=-1
    tester:eq(flat(r3), ref_by_coords(t, { 3, 4, 2 }, function(c) return { 2 + 1 - c[3], c[2], c[1] } end),
      tname .. ' k = 3 non-contiguous')
    tester:asserteq(r3:type(), tname)
  end
  local c = m:rot90(0)
  c:fill(0)
  tester:eq(m:totable(), { { 1, 2 }, { 3, 4 } }, 'rot90 copies')
  tester:assertErrorPattern(function() torch.rot90(torch.zeros(3)) end, '%[rot90%] expected a tensor with at least 2')
  tester:assertErrorPattern(function() m:rot90(1, { 1, 1 }) end, '%[rot90%] dims {1, 1} name the same dimension twice')
  tester:assertErrorPattern(function() m:rot90(1, { 1 }) end, '%[rot90%] expected dims as a table of two dims')
  tester:assertErrorPattern(function() m:rot90(0.5) end, '%[rot90%] k must be an integer')
  tester:assertErrorPattern(function() m:rot90(1, { 1, 3 }) end, '%[rot90%] dimension 3 out of range')
  check('rot90', function(t) return t:rot90() end, { rnd(2, 3) })
  check('rot90 k=3', function(t) return t:rot90(3, { 3, 1 }) end, { rnd(2, 3, 2) })
end

-- ---- repeatInterleave --------------------------------------------------------------------------

function tests.repeatInterleave()
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.repeatInterleave(m, 2):totable(), { 1, 1, 2, 2, 3, 3, 4, 4 })
  tester:eq(m:repeatInterleave(2, 1):totable(), { { 1, 2 }, { 1, 2 }, { 3, 4 }, { 3, 4 } })
  tester:eq(m:repeatInterleave(torch.LongTensor({ 1, 2 }), 1):totable(), { { 1, 2 }, { 3, 4 }, { 3, 4 } })
  tester:eq(m:repeatInterleave({ 0, 3 }, 2):totable(), { { 2, 2, 2 }, { 4, 4, 4 } })
  tester:eq(torch.repeatInterleave(torch.LongTensor({ 2, 0, 1 })):totable(), { 1, 1, 3 })
  tester:eq(torch.Tensor({ 7 }):view({}):repeatInterleave(3):totable(), { 7, 7, 7 })
  tester:eq(sizes(m:repeatInterleave(0, 2)), { 2, 0 })
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4):t()   -- 4 x 3, non-contiguous
    local reps = { 2, 0, 1 }
    local r = x:repeatInterleave(torch.LongTensor(reps), 2)
    tester:eq(sizes(r), { 4, 3 })
    local src = { 1, 1, 3 }
    tester:eq(flat(r), ref_by_coords(x, { 4, 3 }, function(c) return { c[1], src[c[2]] } end), tname)
    tester:asserteq(r:type(), tname)
  end
  tester:assertErrorPattern(function() m:repeatInterleave(-1) end, '%[repeatInterleave%] repeats must not be negative')
  tester:assertErrorPattern(function() m:repeatInterleave({ 1, 2, 3 }, 1) end,
    '%[repeatInterleave%] repeats has 3 elements but dimension 1 has size 2')
  tester:assertErrorPattern(function() m:repeatInterleave(torch.Tensor({ 1, 2 }), 1) end,
    '%[repeatInterleave%] repeats must be an integer tensor')
  tester:assertErrorPattern(function() m:repeatInterleave(1.5) end, '%[repeatInterleave%] repeats must be an integer')
  tester:assertErrorPattern(function() m:repeatInterleave(2, 3) end, '%[repeatInterleave%] dimension 3 out of range')
  check('repeatInterleave', function(t) return t:repeatInterleave(torch.LongTensor({ 2, 1, 3 }), 2) end, { rnd(2, 3) })
  check('repeatInterleave flat', function(t) return t:repeatInterleave(2) end, { rnd(2, 2) })
  -- one count for all slices is an expand and one copy: every dim, non-contiguous input, no alias
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4):t()   -- 4 x 3, non-contiguous
    for d = 1, 2 do
      local r = x:repeatInterleave(3, d)
      tester:eq(sizes(r), d == 1 and { 12, 3 } or { 4, 9 })
      tester:eq(flat(r), ref_by_coords(x, sizes(r), function(c)
        return d == 1 and { math.floor((c[1] - 1) / 3) + 1, c[2] } or { c[1], math.floor((c[2] - 1) / 3) + 1 }
      end), tname .. ' dim ' .. d)
    end
  end
  local once = m:repeatInterleave(1, 1)
  once[1][1] = 9
  tester:asserteq(m[1][1], 1, 'repeats of 1 give a copy, not a view')
  tester:assertErrorPattern(function() torch.Tensor(2, 0):repeatInterleave(2 ^ 62, 1):repeatInterleave(4, 1) end,
    'overflows 64 bits')
  check('repeatInterleave 3 along dim 2', function(t) return t:repeatInterleave(3, 2) end, { rnd(2, 3) })
end

-- ---- clone, numel, tolist ----------------------------------------------------------------------

function tests.cloneNumelTolist()
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  local c = torch.clone(m:t())
  tester:eq(c:totable(), { { 1, 3 }, { 2, 4 } })
  tester:assert(c:isContiguous())
  c:fill(0)
  tester:eq(m:totable(), { { 1, 2 }, { 3, 4 } })
  tester:asserteq(torch.numel(m), 4)
  tester:asserteq(torch.numel(torch.zeros(0, 3)), 0)
  tester:asserteq(torch.numel(torch.Tensor({ 1 }):view({})), 1)
  tester:eq(m:tolist(), { { 1, 2 }, { 3, 4 } })
  tester:eq(m:t():tolist(), { { 1, 3 }, { 2, 4 } })
  tester:asserteq(torch.Tensor({ 5 }):view({}):tolist(), 5)
  tester:eq(torch.BoolTensor({ true, false }):tolist(), { true, false })
  tester:eq(torch.tolist(torch.LongTensor({ 3 })), { 3 })
  tester:assertErrorPattern(function() torch.clone(3) end, '%[clone%] expected a tensor as argument 1')
  tester:assertErrorPattern(function() torch.numel('x') end, '%[numel%] expected a tensor')
  check('clone', function(t) return torch.clone(t) end, { rnd(2, 3) })
end

-- ---- CUDA --------------------------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(5)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    local g = x:cuda()
    local function same(a, b, what) tester:eq(flat(a), flat(b:float()), tname .. ' ' .. what) end
    same(x:diagonal(1, 1, 3), g:diagonal(1, 1, 3), 'diagonal')
    same(x:rot90(1, { 2, 3 }), g:rot90(1, { 2, 3 }), 'rot90')
    same(x:repeatInterleave(torch.LongTensor({ 1, 0, 2, 1 }), 2), g:repeatInterleave(torch.LongTensor({ 1, 0, 2, 1 }):cuda(), 2),
      'repeatInterleave')
    same(torch.hstack({ x, x }), torch.hstack({ g, g }), 'hstack')
    same(x:tensorSplit(3, 3)[2], g:tensorSplit(3, 3)[2], 'tensorSplit')
    same(x:unflatten(3, { 5, 1 }), g:unflatten(3, { 5, 1 }), 'unflatten')
  end
  local gx = torch.randn(3, 4):cuda():requiresGrad()
  gx:diagonal(1):sum():backward()
  local cx = gx:float():detach():requiresGrad()
  cx:diagonal(1):sum():backward()
  tester:eq(gx.grad:float():totable(), cx.grad:totable(), 'diagonal gradient on CUDA')
end

tester:add(tests)
tester:run()
