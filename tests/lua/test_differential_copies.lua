-- Differential tests of the CPU copy kernels (tests/lua/differential/common.lua says what they
-- check): transposing copies by tiles, and strided copies by rows with dtype conversions.
local tester = torch.Tester()
local tests = torch.TestSuite()
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/differential/common.lua')(tester)
local gens, SIZES, SENTINEL, MVEC, layout_tol, shape, is_float, position, compare, check_same, pack, run, with_sizes, layouts, LAYOUTS, clone_all, check_layouts, check_precision, check_out, randn, rand, frandn = H.gens, H.SIZES, H.SENTINEL, H.MVEC, H.layout_tol, H.shape, H.is_float, H.position, H.compare, H.check_same, H.pack, H.run, H.with_sizes, H.layouts, H.LAYOUTS, H.clone_all, H.check_layouts, H.check_precision, H.check_out, H.randn, H.rand, H.frandn

-- ---- copies -------------------------------------------------------------------------------------------

-- Note [Blocked transposing copies]: copies whose source runs along the destination's columns go by
-- tiles. Shapes around the tile (31-33, 64, 65, ragged edges), a 3-D and a 4-D permute, narrowed
-- sources and destinations, dtype conversions: every element against the source read through its
-- storage and strides (no copy kernel involved).
function tests.transposingCopies()
  torch.manualSeed(31)
  local function element(t, idx)  -- t's element at 1-based idx, read from its storage
    local off = t:storageOffset()
    for d = 1, #idx do off = off + (idx[d] - 1) * t:stride(d) end
    return t:storage()[off]
  end
  local function expect(dst, src, what)  -- dst (any layout) holds src's values at the same indices
    tester:assertTableEq(dst:size():totable(), src:size():totable(), what .. ': size')
    local n, bad, idx = dst:nElement(), 0, {}
    local sizes = dst:size():totable()
    for k = 0, n - 1 do
      local rem = k
      for d = #sizes, 1, -1 do idx[d] = rem % sizes[d] + 1; rem = math.floor(rem / sizes[d]) end
      if element(dst, idx) ~= element(src, idx) then bad = bad + 1 end
    end
    tester:asserteq(bad, 0, what .. ': elements that differ')
  end
  for _, sz in ipairs({ { 31, 33 }, { 32, 32 }, { 33, 65 }, { 64, 100 }, { 129, 40 } }) do
    local tag = string.format(' %dx%d', sz[1], sz[2])
    local a = torch.randn(sz[1], sz[2])
    expect(a:t():contiguous(), a:t(), 't():contiguous()' .. tag)
    expect(a:t():double(), a:t(), 'to double' .. tag)
    local l = torch.LongTensor(sz[1], sz[2]):random(-50, 50)
    expect(l:t():float(), l:t(), 'long to float' .. tag)
    -- a narrowed source inside a wider buffer, into a narrowed destination
    local wide = torch.randn(sz[1], sz[2] + 9)
    local src = wide:narrow(2, 4, sz[2]):t()
    local host = torch.FloatTensor(sz[2], sz[1] + 5):fill(7)
    local dst = host:narrow(2, 3, sz[1])
    dst:copy(src)
    expect(dst, src, 'narrowed' .. tag)
    tester:assert(host:narrow(2, 1, 2):eq(7):all() and host:narrow(2, sz[1] + 3, 3):eq(7):all(),
      'narrowed' .. tag .. ': the rest of the buffer untouched')
  end
  local x = torch.randn(3, 40, 35)
  expect(x:transpose(2, 3):contiguous(), x:transpose(2, 3), '3-D transpose')
  local y = torch.randn(2, 33, 3, 34)
  expect(y:permute(1, 4, 3, 2):contiguous(), y:permute(1, 4, 3, 2), '4-D permute')
end

-- Note [Strided copies by rows] (kernels/cpu/pointwise_other.cpp): rows that are stride-1 on both
-- sides (memcpy or the vector conversions) or broadcast (a fill), against element-by-element
-- conversions through a one-element storage (the scalar conversion functions).
function tests.rowCopies()
  torch.manualSeed(32)
  local function scalar_convert(v, dst_type)
    local s = torch[dst_type:gsub('Tensor$', 'Storage'):gsub('^torch%.', '')](1)
    s[1] = v
    return s[1]
  end
  local function expect(dst, src, what)
    tester:assertTableEq(dst:size():totable(), src:size():totable(), what .. ': size')
    local d, s = dst:contiguous():view(-1), src:contiguous():view(-1)
    if torch.type(s) ~= 'torch.DoubleTensor' then s = src:double():contiguous():view(-1) end
    local bad = 0
    for i = 1, d:nElement() do
      local want = scalar_convert(s[i], torch.type(dst))
      local got = d[i]
      if not (got == want or (got ~= got and want ~= want)) then bad = bad + 1 end
    end
    tester:asserteq(bad, 0, what .. ': elements that differ')
  end
  -- values that exercise rounding: halfway cases, subnormal halves, overflow, NaN, infinities
  local special = { 1 + 2 ^ -11, 1 + 3 * 2 ^ -11, 2 ^ -24, 3 * 2 ^ -25, 2 ^ -15, 65504, 65520, 1e6, -0.0,
                    0 / 0, 1 / 0, -1 / 0, 1 + 2 ^ -8, 1 + 3 * 2 ^ -8 }
  for _, n in ipairs({ 7, 33, 100 }) do
    local base = torch.randn(n, n + 5):mul(100)
    for i = 1, #special do base[1 + (i - 1) % n][1 + (i - 1) % (n + 5)] = special[i] end
    local cases = {
      { 'narrowed rows', base:narrow(2, 3, n) },
      { 'broadcast column', base:narrow(2, 1, 1):expand(n, n) },
      { 'broadcast row', base:narrow(1, 2, 1):narrow(2, 2, n):expand(n, n) },
      { '3-D broadcast middle', base:narrow(2, 1, n):view(n, 1, n):expand(n, 3, n) },
    }
    for _, c in ipairs(cases) do
      for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor',
                               'torch.BFloat16Tensor' }) do
        local src = c[2]:type(tname == 'torch.FloatTensor' and 'torch.DoubleTensor' or 'torch.FloatTensor')
        for _, dst_of in ipairs({ function(sz) return torch.Tensor():type(tname):resize(sz) end,
                                  function(sz)  -- a narrowed destination inside a wider buffer
                                    local w = sz:totable(); w[#w] = w[#w] + 4
                                    return torch.Tensor():type(tname):resize(torch.LongStorage(w)):narrow(#w, 3, sz[#sz])
                                  end }) do
          local dst = dst_of(src:size())
          dst:copy(src)
          expect(dst, src, c[1] .. ' ' .. torch.type(src) .. ' -> ' .. tname .. ' ' .. n)
        end
        -- and back from the reduced types to float, rows strided on both sides
        if tname == 'torch.HalfTensor' or tname == 'torch.BFloat16Tensor' then
          local h = torch.Tensor():type(tname):resize(n, n + 3):copy(base:narrow(2, 1, n + 3)):narrow(2, 2, n)
          local back = torch.FloatTensor(n, n + 2):narrow(2, 2, n)
          back:copy(h)
          expect(back, h, 'narrowed ' .. tname .. ' -> float ' .. n)
        end
      end
    end
  end
  local l = torch.LongTensor(9, 1):random(-1000, 1000)
  expect(torch.FloatTensor(9, 6):copy(l:expand(9, 6)), l:expand(9, 6), 'broadcast long -> float')
  local b = torch.ByteTensor(1, 40):random(0, 255)
  expect(torch.DoubleTensor(5, 40):copy(b:expand(5, 40)), b:expand(5, 40), 'broadcast byte -> double')
end

tester:add(tests)
tester:run(os.getenv('TOCHA_DIFF_ONLY'))  -- a pattern to run some of the tests
