-- Regressions from a review of views, shapes and storages against Torch7's Tensor/Storage API and
-- PyTorch 1.13: resize/set/isSetTo, narrow/select/sub/unfold/asStrided argument checks, view on
-- strided inputs (strides and offsets pasted from PyTorch 1.13), reshape's copies, expand and
-- writes, squeeze/split/chunk/unbind/flatten, and the Storage methods (views with offsets,
-- resize, string). Cases whose cause lies outside lua/torch/{storage,views,shape,
-- tensor_pytorch_shape}.lua are kept but skipped (flags below), as the report says.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function raises(f, pattern, what)
  local ok, err = pcall(f)
  tester:assert(not ok, (what or pattern) .. ': expected an error')
  if not ok then
    tester:assert(tostring(err):find(pattern, 1, true) ~= nil,
      (what or pattern) .. ': error "' .. tostring(err) .. '" lacks "' .. pattern .. '"')
  end
end
local function sizes(t) return t:size():totable() end
local function shares(a, b) return torch.pointer(a:storage()) == torch.pointer(b:storage()) end

-- ---- Torch7's resize, set, isSetTo -------------------------------------------------------------

function tests.resizeKeepsOrGrowsStorage()
  local x = torch.range(1, 6)
  local p = torch.pointer(x:storage())
  x:resize(2, 2)  -- fits: same storage, same values (Torch7)
  tester:eq(x:storage():size(), 6)
  tester:eq(x:totable(), { { 1, 2 }, { 3, 4 } })
  tester:assert(torch.pointer(x:storage()) == p)
  local v = x:view(4)
  x:resize(10, 10)  -- grows (reallocates): views follow the storage, never freed memory
  tester:eq(x:storage():size(), 100)
  tester:eq(x[1][1], 1)
  x:fill(7)
  collectgarbage()
  tester:eq(v:totable(), { 7, 7, 7, 7 })
  tester:eq(v:storage():size(), 100)
  -- resizeAs; a view with an offset keeps it
  local n = torch.range(1, 6):narrow(1, 3, 2)
  n:resize(2, 2)
  tester:eq(n:storageOffset(), 3)
  tester:eq(n:totable(), { { 3, 4 }, { 5, 6 } })
  tester:eq(sizes(torch.range(1, 6):resizeAs(torch.zeros(3, 2))), { 3, 2 })
  raises(function() torch.zeros(2):resize(2, -3) end, '[resize]')
  raises(function() torch.zeros(2):resize(2.5) end, '[resize]')
  raises(function() torch.zeros(2):resizeAs({ 2 }) end, '[resizeAs]')
end

function tests.setStorageOffsetSizesStrides()
  local s = torch.DoubleStorage({ 1, 2, 3, 4, 5, 6 })
  local t = torch.DoubleTensor():set(s, 2, torch.LongStorage({ 2, 2 }))  -- 1-based offset
  tester:eq(t:totable(), { { 2, 3 }, { 4, 5 } })
  tester:eq(t:storageOffset(), 2)
  local u = torch.DoubleTensor():set(s, 2, torch.LongStorage({ 2, 2 }), torch.LongStorage({ 1, 2 }))
  tester:eq(u:totable(), { { 2, 4 }, { 3, 5 } })
  tester:assert(not t:isSetTo(u), 'other strides')
  tester:assert(t:isSetTo(torch.DoubleTensor():set(t)), 'set to t')
  tester:assert(not torch.Tensor():isSetTo(torch.Tensor()), 'two empty tensors (Torch7: no storage)')
  raises(function() torch.DoubleTensor():set(s, 6, torch.LongStorage({ 2, 2 })) end, '[set]')
  raises(function() torch.DoubleTensor():set(s, 0) end, '[set]')
  raises(function() torch.FloatTensor():set(s) end, '[set]')
  raises(function() torch.DoubleTensor():set(s, 4, torch.LongStorage({ 2 }), torch.LongStorage({ -1 })) end, '[set]')
  tester:assert(torch.zeros(2, 3):isSameSizeAs(torch.ones(2, 3)))
  tester:assert(not torch.zeros(2, 3):isSameSizeAs(torch.ones(3, 2)))
  -- size-1 dims do not break contiguity (PyTorch 1.13: True, True, False)
  tester:assert(torch.zeros(3, 1):t():isContiguous())
  tester:assert(torch.zeros(1, 3):t():isContiguous())
  tester:assert(not torch.zeros(2, 3):t():isContiguous())
end

-- Note: x:set(storageView, offset, sizes) must count offset inside the view (Torch7's storage
-- views point into the other storage's memory). lua/torch/tensor.lua's set (and the
-- torch.Tensor(storage, ...) constructor built on it) now add the view's own offset and check the
-- view's size; before, set(v, 2, {1}) read b[2] where v[2] is b[3], set(v, 2, {2}) read past v's end.
function tests.setOnAStorageView()
  local b = torch.DoubleStorage({ 1, 2, 3, 4 })
  local v = torch.DoubleStorage(b, 2, 2)  -- {2, 3}
  tester:eq(torch.DoubleTensor(v):totable(), { 2, 3 })
  tester:eq(torch.DoubleTensor():set(v, 2, torch.LongStorage({ 1 }))[1], 3)
  raises(function() torch.DoubleTensor():set(v, 2, torch.LongStorage({ 2 })) end, '[set]')
  raises(function() torch.DoubleTensor():set(b, 1.5, torch.LongStorage({ 2 })) end, '[set]')
  raises(function() torch.DoubleTensor():set(b, 'a') end, '[set]')
end

-- ---- narrow, select, sub, unfold, asStrided --------------------------------------------------

function tests.narrowChecksIndexAndSize()
  local x = torch.range(1, 12):view(3, 4)
  tester:eq(x:narrow(2, -2, 2):totable(), { { 3, 4 }, { 7, 8 }, { 11, 12 } })  -- PyTorch 1.13 narrow(1, -2, 2)
  tester:eq(sizes(x:narrow(1, 4, 0)), { 0, 4 })
  -- -5 on a dim of 4 read the last column (C wraps a negative start); PyTorch 1.13 raises
  raises(function() x:narrow(2, -5, 1) end, '[narrow] index -5 out of range')
  raises(function() x:narrow(2, 1.5, 2) end, '[narrow] index 1.5')  -- was column 1
  raises(function() x:narrow(2, 1, 1.5) end, '[narrow] size 1.5')  -- was size 1
  raises(function() x:narrow(1, 3, 2) end, '[narrow]')
  raises(function() x:narrow(3, 1, 1) end, '[narrow]')
  raises(function() x:narrow(1, 1, -1) end, '[narrow]')
end

function tests.selectSubUnfoldChecks()
  local x = torch.range(1, 12):view(3, 4)
  -- index 0 was reported as "index -4"
  raises(function() x:select(1, 0) end, '[select] index 0 is not a 1-based index')
  raises(function() x:select(1, 4) end, '[select]')
  tester:eq(x:select(1, -1):totable(), { 9, 10, 11, 12 })
  raises(function() x:sub('a', 2) end, '[sub]')  -- was "attempt to compare string with number"
  raises(function() x:sub(1, 2.5) end, '[sub]')
  raises(function() x:sub(1, 4) end, '[sub]')
  tester:eq(x:sub(2, 3, 2, -1):totable(), { { 6, 7, 8 }, { 10, 11, 12 } })
  -- unfold: PyTorch 1.13 values; a size larger than the dim is an error
  tester:eq(torch.range(1, 5):unfold(1, 2, 2):totable(), { { 1, 2 }, { 3, 4 } })
  tester:eq(torch.range(1, 5):unfold(1, 5, 1):totable(), { { 1, 2, 3, 4, 5 } })
  tester:eq(sizes(torch.range(1, 5):unfold(1, 0, 1)), { 6, 0 })
  tester:eq(torch.range(1, 10):view(2, 5):t():unfold(1, 2, 2):totable(),
    { { { 1, 2 }, { 6, 7 } }, { { 3, 4 }, { 8, 9 } } })
  raises(function() torch.range(1, 5):unfold(1, 6, 1) end, '[unfold]')
  raises(function() torch.range(1, 5):unfold(1, 2, 0) end, '[unfold]')
  raises(function() torch.range(1, 5):unfold(1, 1.5, 1) end, '[unfold]')  -- was size 1
  raises(function() torch.range(1, 5):unfold(1, 2, 1.5) end, '[unfold]')
end

function tests.unfoldOfAZeroDimTensor()
  -- core/ops/views.cpp's unfold added a dim for a 0-dim tensor and then the slice dim, giving 1x1; PyTorch 1.13's torch.tensor(5.).unfold(0, 1, 1) has size [1].
  tester:eq(sizes(torch.Tensor({ 5 }):view({}):unfold(1, 1, 1)), { 1 })
end

function tests.asStridedChecks()
  local x = torch.range(1, 4)
  tester:eq(x:asStrided({ 2, 2 }, { 1, 2 }, 1):totable(), { { 1, 3 }, { 2, 4 } })
  raises(function() torch.Tensor.asStrided(5, { 2 }, { 1 }) end, '[asStrided]')
  raises(function() x:asStrided({ 2 }, { 1 }, 0) end, '[asStrided]')
  raises(function() x:asStrided({ 2 }, { 1 }, 1.5) end, '[asStrided]')  -- was offset 1
  raises(function() x:asStrided({ 2 }, { 1 }, 'x') end, '[asStrided]')
  -- out-of-bounds sizes and negative strides raised "[set] ..."
  raises(function() x:asStrided({ 2, 2 }, { 2, 1 }, 2) end, '[asStrided]')
  raises(function() x:asStrided({ 2 }, { -1 }, 2) end, '[asStrided]')
end

-- ---- transpose, permute, view, reshape --------------------------------------------------------

function tests.transposePermuteChecks()
  local x = torch.zeros(2, 3)
  raises(function() x:transpose(1, 3) end, '[transpose]')
  raises(function() x:transpose(0, 1) end, '[transpose]')
  raises(function() torch.zeros(2, 2, 2):t() end, '[t]')
  raises(function() torch.t(5) end, '[t]')
  raises(function() x:permute(1, 1) end, '[permute]')
  raises(function() x:permute(1) end, '[permute]')
  tester:eq(sizes(x:permute(-1, 1)), { 3, 2 })
end

-- Views of strided inputs: success, strides (of dims longer than 1) and offsets are PyTorch
-- 1.13's x.view(shape) for x built by the 0-based ops from torch.arange(24).view(2, 3, 4);
-- ok = false is PyTorch's "view size is not compatible" error.
local VIEW_CASES = {
  {ops={{"permute",{2,0,1}}},shape={2,2,1,6},res={ok=true,stride={2,1,24,4},offset=0}},
  {ops={{"transpose",{0,2}}},shape={4,1,3,2},res={ok=true,stride={1,12,4,12},offset=0}},
  {ops={{"narrow",{2,0,2}}},shape={1,6,2,1},res={ok=true,stride={24,4,1,1},offset=0}},
  {ops={{"narrow",{2,0,2}}},shape={6,1,2},res={ok=true,stride={4,2,1},offset=0}},
  {ops={{"narrow",{2,0,2}}},shape={6,2,1},res={ok=true,stride={4,1,1},offset=0}},
  {ops={{"narrow",{1,1,2}}},shape={1,2,4,2},res={ok=true,stride={24,12,2,1},offset=4}},
  {ops={{"narrow",{1,1,2}}},shape={2,2,4,1},res={ok=true,stride={12,4,1,1},offset=4}},
  {ops={{"narrow",{0,1,1}}},shape={1,1,12},res={ok=true,stride={12,12,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={1,3,2,2},res={ok=true,stride={12,4,2,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={1,4,3},res={ok=true,stride={12,3,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={1,12,1},res={ok=true,stride={12,1,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={2,6},res={ok=true,stride={6,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={3,1,2,2},res={ok=true,stride={4,4,2,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={4,1,3},res={ok=true,stride={3,3,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={4,3},res={ok=true,stride={3,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={6,2,1,1},res={ok=true,stride={2,1,1,1},offset=12}},
  {ops={{"narrow",{0,1,1}}},shape={12,1},res={ok=true,stride={1,1},offset=12}},
  {ops={{"select",{1,1}}},shape={2,1,4},res={ok=true,stride={12,4,1},offset=4}},
  {ops={{"select",{1,1}}},shape={2,2,2},res={ok=true,stride={12,2,1},offset=4}},
  {ops={{"select",{1,1}}},shape={2,4,1,1},res={ok=true,stride={12,1,1,1},offset=4}},
  {ops={{"narrow",{2,0,1}},{"expand",{2,3,4}}},shape={6,4,1},res={ok=true,stride={4,0,0},offset=0}},
  {ops={{"permute",{1,0,2}},{"narrow",{2,1,2}}},shape={3,2,2},res={ok=true,stride={4,12,1},offset=1}},
  {ops={{"unfold",{2,2,2}}},shape={1,1,24},res={ok=true,stride={24,24,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={1,2,12,1},res={ok=true,stride={24,12,1,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={1,24},res={ok=true,stride={24,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={2,1,1,12},res={ok=true,stride={12,12,12,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={2,6,2},res={ok=true,stride={12,2,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={3,8},res={ok=true,stride={8,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={6,4},res={ok=true,stride={4,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={12,1,2},res={ok=true,stride={2,2,1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={24},res={ok=true,stride={1},offset=0}},
  {ops={{"unfold",{2,2,2}}},shape={24,1,1},res={ok=true,stride={1,1,1},offset=0}},
  {ops={{"narrow",{0,0,1}},{"permute",{2,1,0}}},shape={2,2,3},res={ok=true,stride={2,1,4},offset=0}},
  {ops={{"narrow",{0,0,1}},{"permute",{2,1,0}}},shape={4,3,1},res={ok=true,stride={1,4,12},offset=0}},
  {ops={{"permute",{2,0,1}}},shape={2,6,2},res={ok=false}},
  {ops={{"narrow",{2,0,1}},{"expand",{2,3,4}}},shape={1,2,6,2},res={ok=false}},
  {ops={{"transpose",{0,2}}},shape={6,4},res={ok=false}},
  {ops={{"narrow",{1,1,2}}},shape={8,2},res={ok=false}},
  {ops={{"unfold",{2,2,1}}},shape={9,4},res={ok=false}},
  {ops={{"transpose",{0,2}}},shape={6,2,2},res={ok=false}},
  {ops={{"permute",{1,0,2}},{"narrow",{2,1,2}}},shape={1,12},res={ok=false}},
  {ops={{"transpose",{0,2}}},shape={24,1},res={ok=false}},
  {ops={{"narrow",{2,0,2}}},shape={1,4,1,3},res={ok=false}},
  {ops={{"narrow",{1,1,2}}},shape={4,4,1},res={ok=false}},
  {ops={{"unfold",{2,2,1}}},shape={1,4,1,9},res={ok=false}},
  {ops={{"permute",{2,0,1}}},shape={6,2,2,1},res={ok=false}},
  {ops={{"permute",{2,0,1}}},shape={8,3},res={ok=false}},
  {ops={{"narrow",{0,0,1}},{"permute",{2,1,0}}},shape={3,4},res={ok=false}},
  {ops={{"narrow",{2,0,2}}},shape={1,12},res={ok=false}},
  {ops={{"transpose",{0,2}}},shape={8,3},res={ok=false}},
  {ops={{"select",{1,1}}},shape={8},res={ok=false}},
  {ops={{"permute",{1,0,2}}},shape={8,3,1},res={ok=false}},
  {ops={{"narrow",{2,0,1}},{"expand",{2,3,4}}},shape={24},res={ok=false}},
  {ops={{"permute",{1,0,2}}},shape={1,3,8},res={ok=false}},
}
local function apply(x, ops)
  for _, o in ipairs(ops) do
    local n, a = o[1], o[2]
    if n == 'permute' then
      local d = {}
      for i, v in ipairs(a) do d[i] = v + 1 end
      x = x:permute(d)
    elseif n == 'transpose' then x = x:transpose(a[1] + 1, a[2] + 1)
    elseif n == 'narrow' then x = x:narrow(a[1] + 1, a[2] + 1, a[3])
    elseif n == 'select' then x = x:select(a[1] + 1, a[2] + 1)
    elseif n == 'unsqueeze' then x = x:unsqueeze(a[1] + 1)
    elseif n == 'expand' then x = x:expand(a)
    elseif n == 'unfold' then x = x:unfold(a[1] + 1, a[2], a[3]) end
  end
  return x
end

function tests.viewOfStridedInputsAsPyTorch()
  for i, c in ipairs(VIEW_CASES) do
    local x = apply(torch.range(0, 23):view(2, 3, 4), c.ops)
    local what = ('case %d (%s)'):format(i, table.concat(c.shape, 'x'))
    local ok, v = pcall(x.view, x, c.shape)
    tester:eq(ok, c.res.ok, what .. (ok and '' or ': ' .. tostring(v)))
    if ok and c.res.ok then
      for d = 1, v:dim() do
        if v:size(d) ~= 1 then tester:eq(v:stride(d), c.res.stride[d], what .. ' stride ' .. d) end
      end
      tester:eq(v:storageOffset(), c.res.offset + 1, what .. ' offset')
      tester:assert(shares(v, x), what .. ' shares')
      tester:eq(v:contiguous():view(-1):totable(), x:contiguous():view(-1):totable(), what .. ' values')
    elseif not ok then
      tester:assert(tostring(v):find('[view]', 1, true) ~= nil, what .. ' names view')
    end
    -- reshape: a view exactly when view works, else a copy; the values either way
    local r = x:reshape(c.shape)
    tester:eq(shares(r, x), c.res.ok, what .. ' reshape shares')
    tester:eq(r:contiguous():view(-1):totable(), x:contiguous():view(-1):totable(), what .. ' reshape values')
  end
end

function tests.viewArguments()
  local x = torch.range(1, 12):view(3, 4)
  tester:eq(sizes(x:view(-1, 6)), { 2, 6 })
  raises(function() x:view(-1, -1) end, '[view]')
  raises(function() x:view(5) end, '[view]')
  raises(function() x:view(-2, -6) end, '[view]')
  raises(function() x:view(2.5, 4) end, '[view]')
  raises(function() x:t():view(12) end, '[view]')  -- incompatible strides: an error, not a copy
  raises(function() x:t():viewAs(torch.zeros(12)) end, '[view]')
  -- Note [A lone tensor is sizes]: it made x a 0-dim view of the LongTensor ("size []")
  tester:eq(sizes(x:view(torch.LongTensor({ 4, 3 }))), { 4, 3 })
  raises(function() x:view(torch.Tensor({ 4, 3 })) end, '[view] expected sizes')
  -- Torch7's result forms
  local r = torch.Tensor()
  r:view(torch.range(1, 6), 2, 3)
  tester:eq(r:totable(), { { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(sizes(torch.Tensor():viewAs(torch.range(1, 6), torch.zeros(3, 2))), { 3, 2 })
  -- PyTorch 1.13: the expanded (3,1)->(3,4) viewed as 3x2x2 has strides (1, 0, 0)
  local e = torch.zeros(3, 1):expand(3, 4):view(3, 2, 2)
  tester:eq(e:stride():totable(), { 1, 0, 0 })
  -- a reshape that copies: PyTorch 1.13's values for arange(24).view(2,3,4)[:, :, :2].reshape(12)
  local y = torch.range(0, 23):view(2, 3, 4):narrow(3, 1, 2)
  tester:eq(y:reshape(12):totable(), { 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21 })
  tester:assert(y:reshape(12):isContiguous())
end

-- lua/torch/types.lua's read_sizes reads a LongStorage view or a LongTensor through its offset and
-- strides (it read the underlying memory from element 0) and refuses fractional sizes in a
-- DoubleTensor (they were truncated): x:reshape(LongStorage(ls, 3, 2)) read 7x7 for 3x4.
function tests.sizesFromViews()
  local x = torch.range(1, 12)
  local ls = torch.LongStorage({ 7, 7, 3, 4 })
  tester:eq(sizes(x:reshape(torch.LongStorage(ls, 3, 2))), { 3, 4 })
  tester:eq(sizes(x:reshape(torch.LongTensor({ 7, 7, 3, 4 }):narrow(1, 3, 2))), { 3, 4 })
  tester:eq(sizes(x:reshape(torch.LongTensor({ { 3, 9 }, { 4, 9 } }):select(2, 1))), { 3, 4 })
  raises(function() x:reshape(torch.DoubleTensor({ 2.5, 4.8 })) end, '[reshape]')
end

-- ---- expand, squeeze, split, chunk, unbind, flatten, unflatten, movedim -----------------------

function tests.expandAndWrites()
  local a = torch.Tensor({ { 1 }, { 2 } })
  local e = a:expand(2, 3)
  tester:assert(shares(e, a))
  raises(function() e:add(1) end, '[add]')
  raises(function() e:fill(1) end, '[fill]')
  raises(function() e:copy(torch.zeros(2, 3)) end, '[copy]')
  tester:eq(a:totable(), { { 1 }, { 2 } })
  raises(function() a:expand(3, 3) end, '[expand]')
  raises(function() a:expand(3) end, '[expand]')
  tester:eq(sizes(a:expand(-1, 4)), { 2, 4 })
  tester:eq(sizes(a:expandAs(torch.zeros(4, 2, 5))), { 4, 2, 5 })
  -- a negative size other than -1 was refused as "[shape] invalid size -2"
  raises(function() a:expand(2, -2) end, '[expand]')
end

function tests.squeezeUnsqueeze()
  tester:eq(sizes(torch.zeros(2, 1, 3):squeeze(2)), { 2, 3 })
  tester:eq(sizes(torch.zeros(2, 1, 3):squeeze(1)), { 2, 1, 3 })  -- PyTorch 1.13: unchanged
  tester:eq(sizes(torch.zeros(1, 2, 1):squeeze()), { 2 })
  tester:eq(sizes(torch.zeros(1, 2, 1):squeeze({ 1, -1 })), { 2 })
  raises(function() torch.zeros(2, 1, 3):squeeze(4) end, '[squeeze]')
  raises(function() torch.zeros(1, 2, 1):squeeze({ 1, -3 }) end, '[squeeze]')
  tester:eq(sizes(torch.zeros(2, 3):unsqueeze(3)), { 2, 3, 1 })
  tester:eq(sizes(torch.zeros(2, 3):unsqueeze(-1)), { 2, 3, 1 })
  raises(function() torch.zeros(2, 3):unsqueeze(4) end, '[unsqueeze]')
end

function tests.splitAndChunk()
  local function lens(list, d)
    local r = {}
    for i, v in ipairs(list) do r[i] = v:size(d or 1) end
    return r
  end
  -- PyTorch 1.13: [2, 2, 1], [2, 2, 2], [1, 1, 1], [3, 2]
  tester:eq(lens(torch.range(1, 5):split(2)), { 2, 2, 1 })
  tester:eq(lens(torch.range(1, 6):chunk(4)), { 2, 2, 2 })
  tester:eq(lens(torch.range(1, 3):chunk(5)), { 1, 1, 1 })
  tester:eq(lens(torch.zeros(2, 5):chunk(2, -1), 2), { 3, 2 })
  tester:eq(lens(torch.zeros(2, 5):split(3, -1), 2), { 3, 2 })
  local r = torch.range(1, 5):split(2)
  tester:eq(r[2]:storageOffset(), 3)
  -- fractional sizes were accepted (split(2.5) made pieces of 2.5, chunk(2.5) as 3)
  raises(function() torch.range(1, 5):split(2.5) end, '[split]')
  raises(function() torch.range(1, 5):chunk(2.5) end, '[chunk]')
  raises(function() torch.range(1, 5):chunk('2') end, '[chunk]')
  raises(function() torch.range(1, 5):split(0) end, '[split]')
  raises(function() torch.range(1, 5):chunk(0) end, '[chunk]')
  -- these errors named x:size
  raises(function() torch.range(1, 5):split(2, 2) end, '[split]')
  raises(function() torch.range(1, 5):chunk(2, 2) end, '[chunk]')
  raises(function() torch.zeros(1):view({}):split(2) end, '[split]')
  raises(function() torch.zeros(1):view({}):chunk(2) end, '[chunk]')
  -- Torch7's result form clears the table first
  local res = { 1, 2, 3, 4 }
  torch.split(res, torch.range(1, 5), 2)
  tester:eq(#res, 3)
  -- unbind
  local u = torch.Tensor({ { 1, 2 }, { 3, 4 } }):unbind(-1)
  tester:eq(#u, 2)
  tester:eq(u[2]:totable(), { 2, 4 })
  tester:eq(#torch.zeros(0, 3):unbind(1), 0)
  raises(function() torch.zeros(2):unbind(2) end, '[unbind]')
end

function tests.flattenUnflattenMovedim()
  tester:eq(sizes(torch.zeros(2, 3, 4):flatten(2)), { 2, 12 })
  tester:eq(sizes(torch.zeros(2, 3, 4):flatten(-2, -1)), { 2, 12 })
  raises(function() torch.zeros(2, 3, 4):flatten(3, 2) end, '[flatten]')
  local s0 = torch.Tensor({ 5 }):view({})
  tester:eq(sizes(s0:flatten()), { 1 })
  tester:eq(sizes(s0:flatten(1, -1)), { 1 })
  -- PyTorch 1.13: torch.tensor(5.).flatten(1) raises "Dimension out of range"
  raises(function() s0:flatten(2) end, '[flatten]')
  raises(function() s0:flatten(1, 2) end, '[flatten]')
  tester:eq(sizes(torch.zeros(2, 6):unflatten(2, { 3, -1 })), { 2, 3, 2 })
  raises(function() torch.zeros(2, 6):unflatten(2, { 4, -1 }) end, '[unflatten]')
  tester:eq(sizes(torch.zeros(2, 3, 4):movedim({ 1, 2 }, { 3, 1 })), { 3, 4, 2 })  -- PyTorch 1.13
  raises(function() torch.zeros(2, 3, 4):movedim(1, 4) end, '[movedim]')
end

-- ---- Storages ------------------------------------------------------------------------------

function tests.storageBasics()
  local s = torch.DoubleStorage(3):fill(2)
  tester:eq(s:size(), 3)
  tester:eq(#s, 3)
  tester:eq(s:totable(), { 2, 2, 2 })
  raises(function() return s[0] end, '[Storage]')
  raises(function() return s[4] end, '[Storage]')
  raises(function() return s[1.5] end, '[Storage]')
  raises(function() s[4] = 1 end, '[Storage]')
  raises(function() s[1] = 'a' end, '[Storage]')
  tester:eq(s:copy({ 1, 2, 3 }):totable(), { 1, 2, 3 })
  raises(function() s:copy({ 1, 2 }) end, '[copy]')
  tester:eq(s:copy(torch.FloatStorage({ 4, 5, 6 })):totable(), { 4, 5, 6 })
  raises(function() s:copy(torch.FloatStorage({ 4, 5 })) end, '[copy]')
  s:resize(5)
  tester:eq(s:size(), 5)
  tester:eq({ s[1], s[3] }, { 4, 6 })
  raises(function() s:resize(-1) end, '[resize]')
  raises(function() s:resize(2.5) end, '[resize]')  -- was size 2
  raises(function() s:resize('3') end, '[resize] invalid size string')  -- read "invalid size 3"
  raises(function() torch.DoubleStorage(1.5) end, '[torch.DoubleStorage]')
  raises(function() torch.DoubleStorage({ 1, 'x' }) end, '[torch.DoubleStorage]')
  tester:assert(tostring(torch.DoubleStorage({ 1, 2.5 })):find('torch.DoubleStorage of size 2', 1, true) ~= nil)
  tester:eq(torch.DoubleStorage():type(), 'torch.DoubleStorage')
end

function tests.storageStrings()
  tester:eq(torch.ByteStorage({ 104, 105 }):string(), 'hi')
  local b = torch.ByteStorage():string('hello')
  tester:eq(b:size(), 5)
  tester:eq(b[1], 104)
  tester:eq(b:string(), 'hello')
  raises(function() torch.ByteStorage():string(5) end, '[string]')  -- was "attempt to get length"
  -- a view's bytes and writes through it
  local w = torch.ByteStorage({ 97, 98, 99, 100 })
  local v = torch.ByteStorage(w, 2, 2)
  tester:eq(v:string(), 'bc')
  v:string('xy')
  tester:eq(w:string(), 'axyd')
end

function tests.storageViews()
  local b = torch.DoubleStorage({ 1, 2, 3, 4 })
  local v = torch.DoubleStorage(b, 2, 2)
  v[1] = 9
  tester:eq(b[2], 9)
  tester:eq(v:totable(), { 9, 3 })
  v:copy({ 7, 8 })
  tester:eq(b:totable(), { 1, 7, 8, 4 })
  v:fill(0)
  tester:eq(b:totable(), { 1, 0, 0, 4 })
  raises(function() torch.DoubleStorage(b, 4, 2) end, '[torch.DoubleStorage]')
  raises(function() torch.DoubleStorage(b, 0) end, '[torch.DoubleStorage]')
  raises(function() torch.DoubleStorage(b, 1.5) end, '[torch.DoubleStorage]')  -- was offset 1
  raises(function() torch.DoubleStorage(b, 2, 1.5) end, '[torch.DoubleStorage]')
  raises(function() torch.DoubleStorage(b, 'x') end, '[torch.DoubleStorage]')
  raises(function() torch.FloatStorage(b) end, '[torch.FloatStorage]')
  -- a tensor's storage: the whole memory, 1-based offsets
  local x = torch.range(1, 6):narrow(1, 3, 2)
  tester:eq(x:storage():size(), 6)
  tester:eq(x:storageOffset(), 3)
  -- serialization keeps a view's elements and its sharing
  local r = torch.deserialize(torch.serialize({ b, v }))
  r[1][3] = 5
  tester:eq(r[2][2], 5)
end

tester:add(tests)
tester:run()
