-- Shared helpers of the differential suites (tests/lua/test_differential_*.lua): layouts, the
-- checks of an op across layouts, precisions and result forms, and the sizes they sweep.
-- Usage: local H = dofile(dir .. '/differential/common.lua')(tester)
--
-- What they check, the CPU kernels' special cases against each other: an op on non-contiguous
-- inputs (transposed, narrowed inside a larger buffer, stepped with :unfold, expanded with stride 0)
-- against the same op on contiguous copies; f32 against f64 on the same values; sizes around the
-- vector blocks and the threading grain (32768 elements) and dims of size 0 and 1; the result-tensor
-- forms (torch.f(res, ...), x:f(...) in place) against the allocating form, with res empty, of the
-- wrong size, or a non-contiguous view whose buffer must stay untouched outside it. Fast paths that
-- assume a layout or a size are where wrong results hide; the seed is fixed so a failure reproduces.
return function(tester)
local SIZES = { 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 32767, 32768, 32769, 70000 }
local SENTINEL = 777

-- Note: contiguous f32/f64 loops of these ops call glibc's libmvec vector functions
-- (kernels/cpu/simd_math.h), which agree with scalar libm to a few ulp, not bit for bit; so for them
-- a strided or tail element may differ from a vectorized one by an ulp or two. Every other op must
-- agree exactly across layouts.
local MVEC = { exp = true, expm1 = true, log = true, log1p = true, sin = true, cos = true, tanh = true,
  erf = true, pow = true, sigmoid = true, gelu = true, silu = true,
  -- glibc 2.35's additions (kernels/cpu/simd_math.h)
  acos = true, asin = true, atan = true, tan = true, sinh = true, cosh = true, log2 = true, log10 = true,
  erfc = true, atan2 = true }
local function layout_tol(name)
  local base = name:match('^x:(%w+)') or name:match('^(%w+)') or name
  if MVEC[base] or name:find('%^') then return 5e-7, 1e-8 end  -- 4 ulp
  return 0, 0
end

-- ---- helpers -------------------------------------------------------------------------------------

local function shape(t)
  if type(t) ~= 'cdata' and type(t) ~= 'userdata' and type(t) ~= 'table' then return tostring(t) end
  if not torch.isTensor(t) then return tostring(t) end
  local s = t:size():totable()
  return #s == 0 and '(0-dim)' or table.concat(s, 'x')
end

local function is_float(t) local ty = t:type() return ty == 'torch.FloatTensor' or ty == 'torch.DoubleTensor' end

-- Position (a table of 1-based indices) of flat element i (1-based) of a tensor of size sz.
local function position(sz, i)
  local pos, rest = {}, i - 1
  for d = #sz, 1, -1 do
    pos[d] = rest % sz[d] + 1
    rest = math.floor(rest / sz[d])
  end
  return '{' .. table.concat(pos, ',') .. '}'
end

-- Compares got with ref elementwise: |got - ref| <= atol + rtol * |ref|, NaNs in the same places and
-- equal infinities count as equal. Returns ok and a message naming the worst element.
local function compare(got, ref, rtol, atol)
  rtol, atol = rtol or 0, atol or 0
  if type(ref) == 'number' or type(ref) == 'boolean' then
    if type(got) ~= type(ref) then return false, string.format('got %s, expected %s', tostring(got), tostring(ref)) end
    if type(ref) == 'boolean' then return got == ref, string.format('got %s, expected %s', tostring(got), tostring(ref)) end
    if got ~= got and ref ~= ref then return true end
    if got == ref then return true end
    local ok = math.abs(got - ref) <= atol + rtol * math.abs(ref)
    return ok, string.format('got %.10g, expected %.10g', got, ref)
  end
  if not torch.isTensor(got) then return false, 'got a ' .. type(got) .. ', expected a tensor' end
  if got:dim() ~= ref:dim() or (got:nElement() > 0 or ref:nElement() > 0) and not got:isSameSizeAs(ref) then
    return false, 'size ' .. shape(got) .. ', expected ' .. shape(ref)
  end
  if not got:isSameSizeAs(ref) then return false, 'size ' .. shape(got) .. ', expected ' .. shape(ref) end
  if ref:nElement() == 0 then return true end
  local g, r = got:double():contiguous(), ref:double():contiguous()
  local gn, rn = torch.ne(g, g), torch.ne(r, r)
  local d = torch.abs(g - r)
  d:maskedFill(torch.eq(g, r), 0)
  d:maskedFill(torch.cmul(gn, rn), 0)
  local lim = torch.abs(r):mul(rtol):add(atol)
  lim:maskedFill(rn, 0)
  local excess = torch.csub(d, lim)
  excess:maskedFill(torch.ne(excess, excess), math.huge)  -- NaN against a number
  excess:maskedFill(torch.eq(d, 0), 0)                     -- equal infinities (inf * rtol 0 is NaN)
  local worst, at = torch.max(excess:view(-1), 1)
  if worst[1] <= 0 then return true end
  local i = at[1]
  return false, string.format('at %s of %s: got %.10g, expected %.10g', position(r:size():totable(), i), shape(r),
    g:view(-1)[i], r:view(-1)[i])
end

-- Asserts that two packed result lists agree.
local function check_same(got, ref, rtol, atol, what)
  tester:assert(#got == #ref, what .. ': ' .. #got .. ' results, expected ' .. #ref)
  for k = 1, math.min(#got, #ref) do
    local ok, msg = compare(got[k], ref[k], rtol, atol)
    tester:assert(ok, what .. (#ref > 1 and (' (result ' .. k .. ')') or '') .. ': ' .. (msg or ''))
  end
end

local function pack(ok, ...)
  if not ok then return { error = tostring((...)) } end
  return { ... }
end

-- Runs f(...) and packs its results; an error is recorded as a failure.
local function run(what, f, ...)
  local r = pack(pcall(f, ...))
  if r.error then tester:assert(false, what .. ' raised: ' .. r.error) return nil end
  return r
end

-- Layouts with the same size and values as x but other strides. A buffer around a view is filled
-- with SENTINEL so that a kernel that reads outside the view shows it.
-- (x.new():resize, not x.new(LongStorage): for a LongTensor, Torch7 reads a LongStorage as its storage)
local function with_sizes(x, sz) return x.new():resize(torch.LongStorage(sz)) end
local layouts = {
  transposed = function(x)
    local n = x:dim()
    if n < 2 then return nil end
    local rs, perm = {}, {}
    for i = 1, n do rs[i], perm[i] = x:size(n - i + 1), n - i + 1 end
    local y = with_sizes(x, rs):permute(unpack(perm))
    y:copy(x)
    return y
  end,
  narrowed = function(x)
    local n = x:dim()
    if n == 0 then return nil end
    local big = {}
    for i = 1, n do big[i] = x:size(i) + 3 end
    local y = with_sizes(x, big):fill(SENTINEL)
    for i = 1, n do y = y:narrow(i, 2, x:size(i)) end
    y:copy(x)
    return y
  end,
  stepped = function(x)   -- every other element along every dim, through :unfold
    local n = x:dim()
    if n == 0 then return nil end
    local big = {}
    for i = 1, n do
      if x:size(i) == 0 then return nil end
      big[i] = 2 * x:size(i)
    end
    local y = with_sizes(x, big):fill(SENTINEL)
    for i = 1, n do y = y:unfold(i, 1, 2):select(n + 1, 1) end
    y:copy(x)
    return y
  end,
}
local LAYOUTS = { 'transposed', 'narrowed', 'stepped' }

local function clone_all(inputs)
  local c = {}
  for i = 1, #inputs do c[i] = torch.isTensor(inputs[i]) and inputs[i]:clone() or inputs[i] end
  return c
end

-- The non-contiguity check: f(inputs) with each tensor input (and all at once) in each layout, and
-- each readable input expanded with stride 0 along its first dim of size > 1, against f on
-- contiguous copies. f gets fresh tensors on every call, so it may write into them. opts.rtol,
-- opts.atol: tolerances (0: exact); opts.writes: set of inputs f writes into (never expanded).
local function check_layouts(what, f, inputs, opts)
  opts = opts or {}
  local rtol, atol = opts.rtol or 0, opts.atol or 0
  local writes = opts.writes or {}
  local ref = run(what .. ' contiguous', f, unpack(clone_all(inputs)))
  if not ref then return end
  local tensor_inputs = {}
  for i = 1, #inputs do if torch.isTensor(inputs[i]) then tensor_inputs[#tensor_inputs + 1] = i end end
  for _, name in ipairs(LAYOUTS) do
    local all = clone_all(inputs)
    local any = false
    for _, i in ipairs(tensor_inputs) do
      local args = clone_all(inputs)
      local v = layouts[name](inputs[i])
      if v then
        any = true
        args[i] = v
        all[i] = layouts[name](inputs[i])
        local got = run(what .. ' ' .. name .. ' input ' .. i, f, unpack(args))
        if got then check_same(got, ref, rtol, atol, string.format('%s, input %d %s', what, i, name)) end
      end
    end
    if any and #tensor_inputs > 1 then
      local got = run(what .. ' all ' .. name, f, unpack(all))
      if got then check_same(got, ref, rtol, atol, string.format('%s, all inputs %s', what, name)) end
    end
  end
  if opts.expand == false then return end
  for _, i in ipairs(tensor_inputs) do
    local x = inputs[i]
    if not writes[i] and not (opts.noexpand and opts.noexpand[i]) then
      for d = 1, x:dim() do
        if x:size(d) > 1 then
          local e = x:narrow(d, 1, 1):expandAs(x)
          local args = clone_all(inputs)
          args[i] = e:clone()
          local eref = run(what .. ' expanded reference', f, unpack(args))
          args = clone_all(inputs)
          args[i] = e
          local got = run(what .. ' expanded input ' .. i, f, unpack(args))
          if got and eref then
            check_same(got, eref, rtol, atol, string.format('%s, input %d expanded along dim %d', what, i, d))
          end
          break
        end
      end
    end
  end
end

-- The precision check: f on f32 copies of the inputs against f on f64 ones (the same values).
local function check_precision(what, f, inputs, rtol, atol)
  local f32, f64 = {}, {}
  for i = 1, #inputs do
    local x = inputs[i]
    if torch.isTensor(x) and is_float(x) then
      f32[i] = x:float()
      f64[i] = f32[i]:double()
    else
      f32[i] = torch.isTensor(x) and x:clone() or x
      f64[i] = torch.isTensor(x) and x:clone() or x
    end
  end
  local got = run(what .. ' f32', f, unpack(f32))
  local ref = run(what .. ' f64', f, unpack(f64))
  if not got or not ref then return end
  for k = 1, #got do
    if torch.isTensor(got[k]) and torch.isTensor(ref[k]) and ref[k]:type() == 'torch.DoubleTensor' then
      tester:assert(got[k]:type() == 'torch.FloatTensor', what .. ': f32 inputs gave a ' .. got[k]:type())
    end
  end
  check_same(got, ref, rtol, atol, what .. ' f32 vs f64')
end

-- The result-tensor check: out(res, inputs...) against alloc(inputs...) with res empty, of the
-- wrong size, and of the right size but contiguous with garbage, transposed, or narrowed inside a
-- sentinel buffer (which must stay untouched, and whose view must receive the values).
local function check_out(what, alloc, out, inputs, opts)
  opts = opts or {}
  local ref = run(what .. ' allocating', alloc, unpack(clone_all(inputs)))
  if not ref then return end
  local r = ref[1]
  local proto = r.new and r or torch.Tensor()
  local cases = {
    { 'empty', function() return proto.new() end },
    { 'wrong size', function() return with_sizes(proto, { 3, 7 }):fill(5) end },
    { 'garbage', function() return with_sizes(proto, r:size():totable()):fill(SENTINEL) end },
  }
  if r:dim() >= 2 then cases[#cases + 1] = { 'transposed', function() return layouts.transposed(r:clone():fill(SENTINEL)) end } end
  local bufs = {}
  if r:dim() >= 1 then
    cases[#cases + 1] = { 'narrowed', function()
      local n, big = r:dim(), {}
      for i = 1, n do big[i] = r:size(i) + 3 end
      local buf = with_sizes(r, big):fill(SENTINEL)
      local v = buf
      for i = 1, n do v = v:narrow(i, 2, r:size(i)) end
      bufs.narrowed = buf
      return v
    end }
  end
  for _, case in ipairs(cases) do
    local res = case[2]()
    local got = run(what .. ' into ' .. case[1] .. ' result', out, res, unpack(clone_all(inputs)))
    if got then
      check_same({ res }, { r }, opts.rtol, opts.atol, what .. ' into ' .. case[1] .. ' result')
      check_same({ got[1] }, { r }, opts.rtol, opts.atol, what .. ' into ' .. case[1] .. ' result, returned')
      local buf = bufs[case[1]]
      if buf then
        local v = buf
        for i = 1, r:dim() do v = v:narrow(i, 2, r:size(i)) end
        check_same({ v }, { r }, opts.rtol, opts.atol, what .. ' into a narrowed result: the buffer under the view')
        v:fill(SENTINEL)
        tester:assert(torch.eq(buf, SENTINEL):all(), what .. ' into a narrowed result wrote outside the view')
      end
    end
  end
end

local function randn(...) return torch.randn(...):double() end
local function rand(...) return torch.rand(...):double() end
-- Random doubles that are exact in f32 (so f32 and f64 see the same values).
local function frandn(...) return torch.randn(...):float():double() end


-- Value generators by name (f32-representable values): normal, wider, halves, positive, in (-1, 1).
local gens = {
  n = function(sz) return frandn(unpack(sz)) end,
  n3 = function(sz) return frandn(unpack(sz)):mul(3):float():double() end,
  h = function(sz) return frandn(unpack(sz)):mul(4):round():div(2):float():double() end,  -- halves
  p = function(sz) return rand(unpack(sz)):mul(5):add(0.05):float():double() end,
  u = function(sz) return rand(unpack(sz)):mul(1.98):add(-0.99):float():double() end,
}

return {
  gens = gens,
  SIZES = SIZES,
  SENTINEL = SENTINEL,
  MVEC = MVEC,
  layout_tol = layout_tol,
  shape = shape,
  is_float = is_float,
  position = position,
  compare = compare,
  check_same = check_same,
  pack = pack,
  run = run,
  with_sizes = with_sizes,
  layouts = layouts,
  LAYOUTS = LAYOUTS,
  clone_all = clone_all,
  check_layouts = check_layouts,
  check_precision = check_precision,
  check_out = check_out,
  randn = randn,
  rand = rand,
  frandn = frandn,
}
end
