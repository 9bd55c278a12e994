-- Torch7 compatibility of the Tensor/Storage/math API (../shared/notes/torch7-reference.md 1.1-1.9)
-- where a silent difference would break a Torch7 script: result-first forms, resize/set, 1-based
-- views and index ops, masks, apply/map/map2. Expected values are Torch7's documented results
-- (doc/tensor.md, doc/maths.md, TH's C code), worked out by hand here; the regressions found by the
-- review of 2026-11-28 are marked "regression". Reductions, sorting, creation, types, the Storage
-- API, printing and the class system are in test_torch7_compat_more.lua.
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor

local function sizes(t) return t:dim() == 0 and {} or t:size():totable() end
local function values(t) return t:contiguous():view(t:nElement()):double():totable() end

-- ---- result-first forms ---------------------------------------------------------------------

function tests.result_first_arithmetic()
  local a, b = T({1, 2, 3}), T({10, 20, 30})
  local r = T(3):zero()
  tester:assert(torch.add(r, a, b) == r, 'torch.add(res, a, b) returns res')
  tester:assertTableEq(values(r), { 11, 22, 33 })
  local x = T(3):zero()
  x:add(a, b)                                           -- writes a + b into x, a and b unchanged
  tester:assertTableEq(values(x), { 11, 22, 33 })
  tester:assertTableEq(values(a), { 1, 2, 3 })
  x:add(a, 2, b)                                        -- a + 2 * b
  tester:assertTableEq(values(x), { 21, 42, 63 })
  local z = T({1, 1, 1}); z:add(2, b)                   -- z + 2 * b
  tester:assertTableEq(values(z), { 21, 41, 61 })
  local m = T(3); m:mul(a, 3); tester:assertTableEq(values(m), { 3, 6, 9 })
  local c = T(3); c:cmul(a, b); tester:assertTableEq(values(c), { 10, 40, 90 })
  local d = T(3); d:cdiv(b, a); tester:assertTableEq(values(d), { 10, 10, 10 })
  local e = T(3); e:csub(b, 2, a); tester:assertTableEq(values(e), { 8, 16, 24 })
  local f = T(3); f:div(b, 10); tester:assertTableEq(values(f), { 1, 2, 3 })
  local g = T(3); g:pow(2, a); tester:assertTableEq(values(g), { 2, 4, 8 })
  local h = T(); h:abs(T({-1, -2})); tester:assertTableEq(values(h), { 1, 2 }) -- res is resized
  local cl = T(3); cl:clamp(a, 1.5, 2.5); tester:assertTableEq(values(cl), { 1.5, 2, 2.5 })
  local ac = T(2); ac:addcmul(T({1, 1}), 2, T({2, 3}), T({4, 5})); tester:assertTableEq(values(ac), { 17, 31 })
  local al = T({1, 2, 3}); al:add(al, al); tester:assertTableEq(values(al), { 2, 4, 6 })
end

function tests.result_first_blas()
  local A, B, M = T({{1, 2}, {3, 4}}), T({{1, 0}, {1, 1}}), T({{10, 10}, {10, 10}})
  local m = M:clone(); m:addmm(A, B)             -- M + A B
  tester:assertTableEq(values(m), { 13, 12, 17, 14 })
  m = M:clone(); m:addmm(2, A, B)                 -- one number is v2 (nn.Linear's gradWeight:addmm(scale, ...))
  tester:assertTableEq(values(m), { 16, 14, 24, 18 })
  m = M:clone(); m:addmm(2, 3, A, B)              -- v1 M + v2 A B
  tester:assertTableEq(values(m), { 29, 26, 41, 32 })
  local r = T(2, 2); r:addmm(0, M, 1, A, B)       -- nn.Linear's output:addmm(0, output, 1, input, W^T)
  tester:assertTableEq(values(r), { 3, 2, 7, 4 })
  tester:assertTableEq(values(M), { 10, 10, 10, 10 })
  local y = T({1, 1}); y:addmv(2, A, T({1, 1})); tester:assertTableEq(values(y), { 7, 15 })
  local z = T({{1, 2}, {3, 4}}); z:mm(z, z); tester:assertTableEq(values(z), { 7, 10, 15, 22 })
end

-- Torch7's rule: pointwise operands need the same number of elements, "sizes do not matter", and
-- the result has the first operand's shape. An in-place op on a tensor whose shape broadcasting
-- would change must follow it too: gradBias:add(gradOutput:sum(1)) adds a 1 x n into an n.
function tests.inplace_same_numel_other_shape()
  local v = T(3):fill(1)
  v:add(T(1, 3):fill(2))  -- core/ops/pointwise.cpp, Note [In-place ops keep Torch7's count rule]
  tester:assertTableEq(sizes(v), { 3 })
  tester:assertTableEq(values(v), { 3, 3, 3 })
  local col = T({{1}, {2}, {3}}); col:cmul(T({{10, 20, 30}}))
  tester:assertTableEq(sizes(col), { 3, 1 })
  tester:assertTableEq(values(col), { 10, 40, 90 })
  local acc = T(3):fill(1)
  acc:addcmul(2, T(1, 3):fill(3), T(3, 1):fill(0.5))
  tester:assertTableEq(values(acc), { 4, 4, 4 }, 'addcmul in place')
  -- recorded: the gradient reaches the operand in its own shape
  local g = torch.DoubleTensor(1, 3):fill(2):requiresGrad()
  local x = torch.DoubleTensor(3):fill(1):requiresGrad():clone()
  x:cmul(g)
  x:sum():backward()
  tester:assertTableEq(sizes(g.grad), { 1, 3 }, 'the gradient has the operand\'s shape')
  tester:assertTableEq(values(g.grad), { 1, 1, 1 })
  -- out of place, shapes still broadcast (Tocha's rule for new results)
  tester:assertTableEq(sizes(torch.add(T(3), T(1, 3))), { 1, 3 })
  -- The forms that do work today.
  local w = T(3, 1); w:copy(T({{10, 20, 30}}))
  tester:assertTableEq(values(w), { 10, 20, 30 })
  local cm = torch.cmul(T(2, 3):fill(1), T(3, 2):fill(2))
  tester:assertTableEq(sizes(cm), { 2, 3 })
end

function tests.lerp_in_place_keeps_the_shape()
  -- regression: x:lerp(y, w) computed a new tensor and resized x to it, so x (3x1) with y (1x3)
  -- silently became 3x3; the other in-place ops (add, cmul, clamp with tensor bounds) refuse.
  local u = T(3, 1):fill(1)
  tester:assertErrorPattern(function() u:lerp(T(1, 3):fill(3), 0.5) end,
    '%[lerp%] in%-place result has size 3x1 but the operation produces 3x3')
  tester:assertTableEq(sizes(u), { 3, 1 })
  tester:assertTableEq(values(u), { 1, 1, 1 })
  local q = T({0, 8}); q:lerp(T({4, 4}), 0.25)
  tester:assertTableEq(values(q), { 1, 7 })
  local r = T(); torch.lerp(r, T(3, 1):fill(1), T(1, 3):fill(3), 0.5)   -- a result tensor is resized
  tester:assertTableEq(sizes(r), { 3, 3 })
  local z = T(2); z:lerp(T({0, 0}), T({4, 8}), 0.5)                     -- res:lerp(a, b, w)
  tester:assertTableEq(values(z), { 2, 4 })
end

-- ---- resize, set, storage offsets -----------------------------------------------------------

function tests.resize_keeps_and_grows_storage()
  local x = T({1, 2, 3, 4, 5, 6})
  local s = x:storage()
  x:resize(2, 2)
  tester:asserteq(x:storage():size(), 6, 'resize to fewer elements keeps the storage')
  tester:assertTableEq(values(x), { 1, 2, 3, 4 })
  local y = T(x)                                   -- shares the storage
  x:resize(4, 4); x[1][1] = 50
  tester:asserteq(torch.pointer(x:storage()), torch.pointer(s), 'growing keeps the storage object')
  tester:asserteq(y[1][1], 50, 'a tensor sharing the storage sees the write after the growth')
  local t = T(2, 3):t()
  t:resize(3, 2)                                   -- same size: strides kept (THTensor_resizeNd)
  tester:assertTableEq(t:stride():totable(), { 1, 3 })
  local r = T(); r:resizeAs(x); tester:assertTableEq(sizes(r), { 4, 4 })
end

function tests.set_and_storage_offset_are_one_based()
  local s = torch.DoubleStorage({1, 2, 3, 4, 5, 6})
  local x = T(); x:set(s, 2, torch.LongStorage({2, 2}))
  tester:asserteq(x:storageOffset(), 2)
  tester:assertTableEq(values(x), { 2, 3, 4, 5 })
  local y = T(s, 3, 2, 2)                          -- (storage, offset, sz1, st1): 1D of 2, stride 2
  tester:assertTableEq(values(y), { 3, 5 })
  local z = T(s, 1, 2, 3, 3, 1)                    -- 2x3 with strides 3, 1
  tester:assertTableEq(values(z), { 1, 2, 3, 4, 5, 6 })
  local w = T(); w:set(x)
  tester:assert(w:isSetTo(x) and x:isSetTo(w))
  local st = T(s, 2, torch.LongStorage({2}), torch.LongStorage({3}))
  tester:assertTableEq(values(st), { 2, 5 })
end

-- ---- geometry: size/stride with negative dims (regression) -----------------------------------

function tests.size_stride_negative_dims()
  local x = T(2, 3)
  -- regression: x:size(-1) read the int64 before size[0] (34359738369 for a 2x3 tensor)
  tester:asserteq(x:size(-1), 3)
  tester:asserteq(x:size(-2), 2)
  tester:asserteq(x:stride(-1), 1)
  tester:asserteq(x:stride(-2), 3)
  tester:assertErrorPattern(function() return x:size(3) end, 'size')
  tester:assertErrorPattern(function() return x:size(-3) end, 'size')
  -- regression: a 0-dim tensor answered size(1) with whatever size[0] held (0 here)
  local s = T(1, 1):fill(3):squeeze()
  tester:asserteq(s:dim(), 0)
  tester:assertErrorPattern(function() return s:size(1) end, '%[size%] a 0%-dim tensor has no dimension 1')
  tester:assertErrorPattern(function() return s:stride(1) end, 'stride')
  tester:assertTableEq(x:size():totable(), { 2, 3 })
  tester:asserteq(torch.type(#x), 'torch.LongStorage')
  tester:assert(x:isSameSizeAs(T(2, 3)) and not x:isSameSizeAs(T(3, 2)))
  tester:assert(x:isSize(torch.LongStorage({2, 3})))
  tester:assert(x:isContiguous() and not x:t():isContiguous())
  tester:asserteq(x:nElement(), 6)
  tester:asserteq(x:nDimension(), 2)
end

-- ---- views ----------------------------------------------------------------------------------

function tests.narrow_select_sub_one_based_and_negative()
  local x = T({{1, 2, 3}, {4, 5, 6}})
  tester:assertTableEq(values(x:narrow(2, 2, 2)), { 2, 3, 5, 6 })
  tester:assertTableEq(values(x:select(2, 3)), { 3, 6 })
  tester:assertTableEq(values(x:sub(2, 2, 1, 2)), { 4, 5 })
  tester:assertTableEq(values(x:sub(-1, -1)), { 4, 5, 6 })
  -- regression: a negative dim with a negative index read size[-1] (garbage) for the index
  tester:assertTableEq(values(x:select(-1, -1)), { 3, 6 })
  tester:assertTableEq(values(x:select(-2, 1)), { 1, 2, 3 })
  tester:assertTableEq(values(x:narrow(-1, -1, 1)), { 3, 6 })
  tester:assertTableEq(values(x:narrow(-2, -1, 1)), { 4, 5, 6 })
  tester:assertErrorPattern(function() return x:select(-1, 4) end, 'select')
  tester:assertErrorPattern(function() return x:narrow(-1, -1, 2) end, 'narrow')
  tester:asserteq(x[-1][1], 4)
  tester:asserteq(x[{-1, -1}], 6)
  tester:assertTableEq(sizes(x[{{}, {-2, -1}}]), { 2, 2 })
end

function tests.shape_methods()
  local a = T({{1, 2}, {3, 4}})
  tester:assertTableEq(sizes(torch.cat(a, T({{5, 6}}), 1)), { 3, 2 })
  tester:assertTableEq(sizes(torch.cat(a, a)), { 2, 4 })          -- default: the last dim
  local r = T(); torch.cat(r, a, a, 2); tester:assertTableEq(sizes(r), { 2, 4 })
  tester:assertTableEq(values(T({1, 2}):repeatTensor(2, 2)), { 1, 2, 1, 2, 1, 2, 1, 2 })
  local e = T({{1}, {2}}):expand(2, 3)
  tester:asserteq(e:stride(2), 0)
  tester:assertTableEq(sizes(T({{1}, {2}}):expandAs(T(2, 4))), { 2, 4 })
  tester:assertTableEq(sizes(T(2, 3):view(-1)), { 6 })
  tester:assertTableEq(sizes(T(2, 3):view(3, -1)), { 3, 2 })
  tester:assertTableEq(sizes(T({1, 2, 3, 4, 5, 6, 7}):unfold(1, 3, 2)), { 3, 3 })
  tester:assertTableEq(values(T({1, 2, 3, 4, 5, 6, 7}):unfold(1, 3, 2)[3]), { 5, 6, 7 })
  tester:assertTableEq(sizes(T(2, 3, 4):transpose(1, 3)), { 4, 3, 2 })
  tester:assertTableEq(sizes(T(1, 3, 1):squeeze()), { 3 })
  tester:assertTableEq(sizes(T(1, 3, 1):squeeze(3)), { 1, 3 })
  tester:assertTableEq(sizes(T(2, 3):unsqueeze(1)), { 1, 2, 3 })
  tester:asserteq(#T(5):split(2), 3)
  tester:asserteq(#T(5):chunk(2), 2)
end

function tests.repeatTensor_result_form()
  -- regression: res:repeatTensor(x, 2) read x as the sizes and returned a tiled copy of the empty
  -- res, leaving res unchanged.
  local rt = T()
  local out = rt:repeatTensor(T({1, 2}), 2)
  tester:assert(out == rt, 'res:repeatTensor(x, ...) returns res')
  tester:assertTableEq(values(rt), { 1, 2, 1, 2 })
  local r2 = T()
  torch.repeatTensor(r2, T({1, 2}), 2, 2)
  tester:assertTableEq(sizes(r2), { 2, 4 })
  tester:assertTableEq(sizes(torch.repeatTensor(T({1, 2}), torch.LongStorage({2, 2}))), { 2, 4 })
  tester:assertErrorPattern(function() torch.IntTensor():repeatTensor(T({1}), 2) end, 'repeatTensor')
end

function tests.squeeze_result_form()
  -- regression: torch.squeeze(res, x [, dim]) (Torch7's cwrap form) was an error
  local src = T(1, 3, 1):fill(2)
  local rs = T()
  torch.squeeze(rs, src)
  tester:assertTableEq(sizes(rs), { 3 })
  rs[1] = 7
  tester:asserteq(src[1][1][1], 7, 'res is a view of x, as in Torch7')
  local rs2 = T()
  torch.squeeze(rs2, T(1, 3, 1), 1)
  tester:assertTableEq(sizes(rs2), { 3, 1 })
end

function tests.expand_view_chunk_result_forms()
  -- regression: Tensor.lua's result forms torch.expand(res, x, sizes...), res:expandAs(x,
  -- template), res:viewAs(src, template) and torch.chunk(resultTable, x, n [, dim]) were errors.
  local x = T({{1}, {2}})
  local r = T()
  tester:assert(torch.expand(r, x, 2, 3) == r)
  tester:assertTableEq(sizes(r), { 2, 3 }); tester:asserteq(r:stride(2), 0)
  tester:assertTableEq(values(r), { 1, 1, 1, 2, 2, 2 })
  local r2 = T(); r2:expand(x, torch.LongStorage({2, 4})); tester:assertTableEq(sizes(r2), { 2, 4 })
  local r3 = T(); r3:expandAs(x, T(2, 5)); tester:assertTableEq(sizes(r3), { 2, 5 })
  local src = torch.range(1, 6):double()
  local r4 = T(); r4:viewAs(src, T(3, 2)); tester:assertTableEq(sizes(r4), { 3, 2 })
  r4[1][1] = 9; tester:asserteq(src[1], 9, 'the result is a view of src')
  local r5 = T(); torch.view(r5, T(6), 2, 3); tester:assertTableEq(sizes(r5), { 2, 3 })
  local res = { 'stale', 'stale', 'stale' }
  torch.chunk(res, T(5), 2)
  tester:asserteq(#res, 2); tester:assertTableEq(sizes(res[2]), { 2 })
  -- the plain forms are unchanged, a lone LongTensor still being sizes
  tester:assertTableEq(sizes(x:expand(torch.LongTensor({2, 4}))), { 2, 4 })
  tester:assertTableEq(sizes(torch.viewAs(T(6), T(2, 3))), { 2, 3 })
  tester:assertTableEq(sizes(torch.expandAs(x, T(2, 5))), { 2, 5 })
  tester:asserteq(#torch.chunk(T(5), 2), 2)
  -- regression: torch.reshape(res, x, sizes...) / res:reshape(x, sizes...) read x as the sizes
  local x6 = T({{1, 2, 3}, {4, 5, 6}})
  local rr = T()
  tester:assert(rr:reshape(x6, 3, 2) == rr)
  tester:assertTableEq(sizes(rr), { 3, 2 }); tester:assertTableEq(values(rr), { 1, 2, 3, 4, 5, 6 })
  rr[1][1] = 9
  tester:asserteq(x6[1][1], 1, 'THTensor_reshape copies into res')
  local r6 = T(); torch.reshape(r6, x6, torch.LongStorage({6})); tester:assertTableEq(sizes(r6), { 6 })
  tester:assertTableEq(sizes(x6:reshape(torch.LongTensor({6}))), { 6 })
end

-- ---- index ops, 1-based ---------------------------------------------------------------------

function tests.index_ops_one_based()
  local x = T({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  tester:assertTableEq(values(x:index(1, torch.LongTensor({3, 1}))), { 7, 8, 9, 1, 2, 3 })
  local r = T(); torch.index(r, x, 2, torch.LongTensor({2}))
  tester:assertTableEq(values(r), { 2, 5, 8 })
  local y = T(3, 3):zero(); y:indexCopy(1, torch.LongTensor({3, 1}), T({{1, 1, 1}, {2, 2, 2}}))
  tester:assertTableEq(values(y), { 2, 2, 2, 0, 0, 0, 1, 1, 1 })
  local z = T(3, 3):zero(); z:indexAdd(2, torch.LongTensor({1, 1}), T({{1, 2}, {1, 2}, {1, 2}}))
  tester:assertTableEq(values(z:select(2, 1)), { 3, 3, 3 }, 'indexAdd accumulates duplicates')
  local f = T(3, 3):zero(); f:indexFill(2, torch.LongTensor({2, 3}), 5)
  tester:assertTableEq(values(f[1]), { 0, 5, 5 })
  tester:assertTableEq(values(x:gather(2, torch.LongTensor({{3}, {1}, {2}}))), { 3, 4, 8 })
  local sc = T(3, 3):zero(); sc:scatter(2, torch.LongTensor({{3}, {1}, {2}}), T({{1}, {2}, {3}}))
  tester:assertTableEq(values(sc), { 0, 0, 1, 2, 0, 0, 0, 3, 0 })
  local sn = T(2, 2):zero(); sn:scatter(1, torch.LongTensor({{2, 1}}), 7)
  tester:assertTableEq(values(sn), { 0, 7, 7, 0 })
  tester:assertErrorPattern(function() return x:index(1, torch.LongTensor({0})) end, 'index')
  tester:assertErrorPattern(function() return x:gather(1, torch.LongTensor({{4, 1, 1}})) end, 'gather')
end

function tests.masked_ops_with_byte_masks()
  local x = T({{1, 2}, {3, 4}})
  local m = torch.ByteTensor({{1, 0}, {0, 1}})
  local s = x:maskedSelect(m)
  tester:assertTableEq(sizes(s), { 2 })
  tester:assertTableEq(values(s), { 1, 4 })
  local y = x:clone(); y:maskedFill(m, -1); tester:assertTableEq(values(y), { -1, 2, 3, -1 })
  local c = x:clone(); c:maskedCopy(m, T({10, 20})); tester:assertTableEq(values(c), { 10, 2, 3, 20 })
  local g = x:gt(2)
  tester:asserteq(torch.type(g), 'torch.ByteTensor')
  tester:assertTableEq(values(x[g]), { 3, 4 })
  local z = x:clone(); z[g] = 0; tester:assertTableEq(values(z), { 1, 2, 0, 0 })
  -- a mask with as many elements and another shape (Torch7 only counts elements)
  local v = x:clone(); v:maskedFill(torch.ByteTensor({1, 0, 0, 1}), 0)
  tester:assertTableEq(values(v), { 0, 2, 3, 0 })
end

-- ---- apply / map / map2 ---------------------------------------------------------------------

function tests.apply_map_map2()
  local x = T({1, 2, 3})
  local i = 0
  x:apply(function() i = i + 1; return i * 10 end)
  tester:assertTableEq(values(x), { 10, 20, 30 })
  x:apply(function() end)                          -- nil keeps the element
  tester:assertTableEq(values(x), { 10, 20, 30 })
  local seen = {}
  T({{1, 2}, {3, 4}}):t():apply(function(v) seen[#seen + 1] = v end)
  tester:assertTableEq(seen, { 1, 3, 2, 4 }, 'apply visits a transposed view in its own row-major order')
  local q = T({{1, 2}, {3, 4}}); q:select(2, 1):apply(function(v) return v * 100 end)
  tester:assertTableEq(values(q), { 100, 2, 300, 4 })
  local y = T({1, 2, 3}); y:map(T({10, 20, 30}), function(a, b) return a + b end)
  tester:assertTableEq(values(y), { 11, 22, 33 })
  local z = T({1, 2, 3}); z:map2(T({1, 1, 1}), T({2, 2, 2}), function(a, b, c) return a * b + c end)
  tester:assertTableEq(values(z), { 3, 4, 5 })
  local it = torch.IntTensor({1, 2}); it:apply(function(v) return v + 0.7 end)
  tester:assertTableEq(values(it), { 1, 2 }, 'an integer tensor truncates, as TH casts')
end

function tests.apply_non_number_result_names_the_method()
  -- regression: a string or table result was a bare FFI error ("cannot convert 'string' to
  -- 'double'") from types.lua naming neither the method nor the element.
  local x = T({1, 2})
  tester:assertErrorPattern(function() x:apply(function(v) if v == 2 then return 'a' end end) end,
    '%[apply%] the function returned a string for element 2')
  tester:assertErrorPattern(function() x:map(x, function() return {} end) end, '%[map%] .*table')
  tester:assertErrorPattern(function() x:map2(x, x, function() return '1' end) end, '%[map2%] .*string')
  local b = torch.ByteTensor({0}); b:apply(function() return true end)
  tester:asserteq(b[1], 1)
end

tester:add(tests)
tester:run()
