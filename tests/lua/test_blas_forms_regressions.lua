-- Regressions of the BLAS call forms (lua/torch/linalg.lua: addmm, addmv, addr, addbmm, baddbmm
-- with PyTorch's {beta =, alpha =} options), torch.cross's broadcasting
-- (lua/torch/reduce_cross_histc.lua), linalg.multiDot's dtype errors (lua/torch/linalg_ns.lua) and
-- the in-place helper of nn.functional (lua/nn/functional_more2.lua). Expected values are PyTorch
-- 1.13's (float64, computed with /usr/bin/python3). Operands: R(shape) has element k (1-based,
-- row-major) ((7k mod 11) - 5) / 4 and S(shape) ((5k mod 7) - 3) / 2, exact in binary.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local F = nn.functional
local gc = torch.autograd.gradcheck
local nan, inf = 0 / 0, math.huge

local function pattern(shape, f)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  local v = {}
  for k = 1, n do v[k] = f(k) end
  return D(v):view(torch.LongStorage(shape))
end
local function R(...) return pattern({ ... }, function(k) return ((k * 7) % 11 - 5) / 4 end) end
local function S(...) return pattern({ ... }, function(k) return ((k * 5) % 7 - 3) / 2 end) end
local function same(got, size, flat, what)
  tester:eq(got:size():totable(), size, what .. ' (size)')
  tester:assertTensorEq(got:contiguous():view(-1), D(flat), 1e-12, what)
end
-- NaN-aware comparison of a tensor with a flat list (nan matches nan)
local function same_nan(got, flat, what)
  local g = got:contiguous():view(-1)
  tester:asserteq(g:nElement(), #flat, what .. ' (count)')
  for i = 1, #flat do
    local x, y = g[i], flat[i]
    tester:assert((x ~= x and y ~= y) or x == y, string.format('%s [%d]: got %s, expected %s', what, i, x, y))
  end
end
local function errs(f, pat, what)
  local ok, msg = pcall(f)
  tester:assert(not ok and tostring(msg):find(pat), (what or pat) .. ': got ' .. tostring(msg))
end
local function check_grad(what, fn, inputs)
  local ok, res = pcall(gc, fn, inputs)
  tester:assert(ok and res, what .. ': ' .. tostring(res))
end

-- ---- addmm & co.: PyTorch's {beta, alpha} ---------------------------------------------------

-- The known bug: torch.addmm(M, a, b, {beta = 0.5, alpha = 2}) raised "expected ...".
function tests.optionsMatchPyTorch()
  -- PyTorch 1.13, float64
  same(torch.addmm(R(2, 3), R(2, 4), S(4, 3), { beta = 0.5, alpha = 2 }), { 2, 3 },
    { -4.5, 2.5, 0.375, 3.625, -2.375, 0.0 }, 'addmm')
  same(torch.addmm(R(1, 3), R(2, 4), S(4, 3), { beta = -1, alpha = 0.5 }), { 2, 3 },
    { -1.6875, 1.1875, -1.3125, 0.375, 0.0, -1.375 }, 'addmm, M 1x3 broadcast')
  same(torch.addmm(R(3), R(2, 4), S(4, 3), { beta = 2 }), { 2, 3 },
    { -1.375, 0.375, 2.375, 2.75, -2.0, 2.25 }, 'addmm, M of 3 broadcast')
  same(torch.addmv(R(2), R(2, 3), S(3), { beta = -1, alpha = 0.25 }), { 2 }, { -0.6875, 0.3125 }, 'addmv')
  same(torch.addmv(R(1), R(2, 3), S(3), { beta = 3 }), { 2 }, { 0.75, 0.75 }, 'addmv, M of 1 broadcast')
  same(torch.addr(R(2, 3), R(2), S(3), { beta = 2, alpha = 0.5 }), { 2, 3 },
    { 1.25, -1.0, 2.25, 0.25, -1.5, 2.25 }, 'addr')
  same(torch.addr(R(1, 3), R(2), S(3), { alpha = -2 }), { 2, 3 },
    { -0.5, -0.5, 2.25, 1.5, -0.5, 0.25 }, 'addr, M 1x3 broadcast')
  same(torch.addbmm(R(2, 3), R(4, 2, 4), S(4, 4, 3), { beta = 0.5, alpha = -1 }), { 2, 3 },
    { 0.125, 1.625, -2.5, -2.375, 0.75, -1.75 }, 'addbmm')
  local bad = { 0.3125, -0.8125, 3.6875, 1.625, -2.75, 2.875, -0.25, -3.125, 3.125, -0.9375, -4.0625, 2.375,
    -0.4375, 2.6875, 0.625, -1.625, 3.0625, -0.0625, -2.5625, 1.8125, 0.125, -3.8125, 1.6875, -1.0625 }
  same(torch.baddbmm(R(4, 2, 3), R(4, 2, 4), S(4, 4, 3), { beta = 3, alpha = 0.5 }), { 4, 2, 3 }, bad, 'baddbmm')
  same(torch.baddbmm(R(2, 3), R(4, 2, 4), S(4, 4, 3), { beta = -2 }), { 4, 2, 3 },
    { -3.375, 2.375, -2.625, 1.25, 0.5, -2.25, -1.5, 0.75, -0.75, -0.875, 0.875, -0.25, 1.125, -1.125, -2.75,
      0.75, 1.625, -2.125, -0.125, 0.125, -0.75, -0.625, 1.875, -1.125 }, 'baddbmm, M 2x3 broadcast')
  -- the same values through the positional form, the result-tensor form and an empty table
  same(torch.addmm(0.5, R(2, 3), 2, R(2, 4), S(4, 3)), { 2, 3 }, { -4.5, 2.5, 0.375, 3.625, -2.375, 0.0 }, 'positional')
  local res = D(7)
  tester:assert(torch.addmm(res, R(2, 3), R(2, 4), S(4, 3), { beta = 0.5, alpha = 2 }) == res, 'res returned')
  same(res, { 2, 3 }, { -4.5, 2.5, 0.375, 3.625, -2.375, 0.0 }, 'res filled')
  tester:assertTensorEq(torch.addmm(R(2, 3), R(2, 4), S(4, 3), {}), torch.addmm(R(2, 3), R(2, 4), S(4, 3)), 0, '{}')
end

-- Note [Product methods work in place]: Torch7's M:addmm(a, b) updates M; with options too.
function tests.methodFormsUpdateInPlace()
  local want = { -4.5, 2.5, 0.375, 3.625, -2.375, 0.0 }  -- PyTorch 1.13's addmm above
  local M = R(2, 3)
  tester:assert(M:addmm(R(2, 4), S(4, 3), { beta = 0.5, alpha = 2 }) == M, 'returns self')
  same(M, { 2, 3 }, want, 'M:addmm(a, b, opts)')
  M = R(2, 3)
  M:addmm_(R(2, 4), S(4, 3), { beta = 0.5, alpha = 2 })
  same(M, { 2, 3 }, want, 'M:addmm_(a, b, opts)')
  M = R(2, 3)
  M:addmm(0.5, 2, R(2, 4), S(4, 3))
  same(M, { 2, 3 }, want, 'M:addmm(v1, v2, a, b)')
  local out = D(2, 3):fill(9)
  out:addmm(R(2, 3), R(2, 4), S(4, 3), { beta = 0.5, alpha = 2 })
  same(out, { 2, 3 }, want, 'out:addmm(M, a, b, opts)')
  out:fill(9):addmm(0.5, R(2, 3), 2, R(2, 4), S(4, 3))
  same(out, { 2, 3 }, want, 'out:addmm(v1, M, v2, a, b)')
  local v = R(2)
  v:addmv(R(2, 3), S(3), { beta = -1, alpha = 0.25 })
  same(v, { 2 }, { -0.6875, 0.3125 }, 'v:addmv(mat, vec, opts)')
  local B = R(4, 2, 3)
  B:baddbmm_(R(4, 2, 4), S(4, 4, 3), { beta = 3, alpha = 0.5 })
  same(B:narrow(1, 1, 1), { 1, 2, 3 }, { 0.3125, -0.8125, 3.6875, 1.625, -2.75, 2.875 }, 'B:baddbmm_')
  -- every positional torch form still gives v1 * M + v2 * a b
  local a, b, M0 = R(2, 4), S(4, 3), R(2, 3)
  local ref = M0 * 0.5 + torch.mm(a, b) * 2
  local r = D()
  local ab = torch.mm(a, b)
  local forms = {
    { torch.addmm(0.5, M0, 2, a, b), ref }, { torch.addmm(r, 0.5, M0, 2, a, b), ref },
    { torch.addmm(D(), M0, 2, a, b), M0 + ab * 2 }, { torch.addmm(D(), 0.5, M0, a, b), M0 * 0.5 + ab },
    { torch.addmm(0.5, M0, a, b), M0 * 0.5 + ab }, { torch.addmm(M0, 2, a, b), M0 + ab * 2 },
    { torch.addmm(D(), M0, a, b), M0 + ab }, { torch.addmm(M0, a, b), M0 + ab },
  }
  for i, c in ipairs(forms) do tester:assertTensorEq(c[1], c[2], 1e-12, 'torch form ' .. i) end
end

function tests.badFormsRefused()
  local M, a, b = R(2, 3), R(2, 4), S(4, 3)
  errs(function() torch.addmm(M, a, b, { beta = 0.5, alhpa = 2 }) end, "%[addmm%] unknown option 'alhpa'", 'misspelt key')
  errs(function() torch.addmm(M, a, b, { 0.5, 2 }) end, '%[addmm%] options must be given by name', 'list')
  errs(function() torch.addmv(R(2), R(2, 3), S(3), { beta = '1' }) end, '%[addmv%] beta must be a number', 'string beta')
  errs(function() torch.addr(M, R(2), S(3), { alpha = true }) end, '%[addr%] alpha must be a number', 'boolean alpha')
  errs(function() torch.addmm(0.5, M, a, b, { alpha = 2 }) end, '%[addmm%].*options table replaces', 'mixed')
  errs(function() M:addmm(0.5, a, b, { alpha = 2 }) end, '%[addmm%].*options table replaces', 'mixed method')
  errs(function() torch.addmm(D(), 1, M, 1, a, b, { beta = 1 }) end, '%[addmm%] expected', 'seven arguments')
  errs(function() torch.addmm(M, a) end, '%[addmm%] expected', 'two arguments')
  errs(function() torch.addmm(M, nil, a, b) end, '%[addmm%] expected', 'nil in the middle')
  errs(function() torch.baddbmm('x', a, b) end, '%[baddbmm%] expected', 'string M')
  errs(function() M:addmm(R(2, 3), 0.5, R(2, 3), a, b) end, '%[addmm%] expected', 'two addends in a method')
  errs(function() M.addmm(3, a, b) end, '%[addmm%] expected a tensor', 'method on a number')
  errs(function() torch.addmm(M, a, S(3, 3)) end, 'addmm', 'sizes')
end

-- beta = 0 ignores NaN and inf in M (PyTorch 1.13's documented behaviour), in every form.
function tests.betaZeroIgnoresM()
  local M = D({ { nan, inf }, { 1, -inf } })
  local a, e = D({ { 1, 2 }, { 3, 4 } }), torch.eye(2):double()
  same(torch.addmm(M, a, e, { beta = 0, alpha = 2 }), { 2, 2 }, { 2, 4, 6, 8 }, 'addmm')
  same(M:clone():addmm(a, e, { beta = 0 }), { 2, 2 }, { 1, 2, 3, 4 }, 'addmm method')
  same(torch.addmm(0, M, a, e), { 2, 2 }, { 1, 2, 3, 4 }, 'addmm positional')
  same(torch.addmv(D({ nan, inf }), a, D({ 1, 1 }), { beta = 0 }), { 2 }, { 3, 7 }, 'addmv')
  same(torch.addr(M, D({ 1, 2 }), D({ 1, 1 }), { beta = 0 }), { 2, 2 }, { 1, 1, 2, 2 }, 'addr')
  local B = e:view(1, 2, 2):expand(2, 2, 2):contiguous()
  same(torch.addbmm(M, B, B, { beta = 0 }), { 2, 2 }, { 2, 0, 0, 2 }, 'addbmm')
  same(torch.baddbmm(M:view(1, 2, 2):expand(2, 2, 2):contiguous(), B, B, { beta = 0 }), { 2, 2, 2 },
    { 1, 0, 0, 1, 1, 0, 0, 1 }, 'baddbmm')
end

-- Note [addr with alpha 0] (kernels/cpu/blas_gemv.cpp): alpha = 0 with NaN/inf in the factors, op by op as PyTorch 1.13 (its
-- addmv ignores them; addmm, addr, addbmm and baddbmm give NaN). addr ignored them (the bug).
function tests.alphaZeroAsPyTorch()
  local one2 = torch.ones(2, 2):double()
  local an, e = D({ { nan, 2 }, { 3, inf } }), torch.eye(2):double()
  same_nan(torch.addmm(one2, an, e, { alpha = 0 }), { nan, nan, nan, nan }, 'addmm')
  same_nan(torch.addmv(torch.ones(2):double(), an, D({ 1, 1 }), { alpha = 0 }), { 1, 1 }, 'addmv')
  same_nan(torch.addmv(torch.ones(2):double(), e, D({ nan, 1 }), { alpha = 0 }), { 1, 1 }, 'addmv, vec')
  same_nan(torch.addr(one2, D({ nan, 2 }), D({ 1, 1 }), { alpha = 0 }), { nan, nan, 1, 1 }, 'addr, nan')
  same_nan(torch.addr(one2, D({ inf, 2 }), D({ 1, 1 }), { alpha = 0 }), { nan, nan, 1, 1 }, 'addr, inf')
  same_nan(torch.addr(one2, D({ 1, 2 }), D({ 1, inf }), { alpha = 0 }), { 1, nan, 1, nan }, 'addr, inf in vec2')
  same_nan(torch.addr(0, one2, 0, D({ nan, 2 }), D({ 1, 1 })), { nan, nan, 0, 0 }, 'addr positional, beta 0')
  same_nan(one2:clone():addr(D({ nan, 2 }), D({ 1, 1 }), { alpha = 0 }), { nan, nan, 1, 1 }, 'addr method')
  same_nan(torch.addr(one2:float(), D({ nan, 2 }):float(), torch.ones(2), { alpha = 0 }), { nan, nan, 1, 1 }, 'addr f32')
  local B1 = an:view(1, 2, 2):expand(2, 2, 2):contiguous()
  local B2 = e:view(1, 2, 2):expand(2, 2, 2):contiguous()
  same_nan(torch.addbmm(one2, B1, B2, { alpha = 0 }), { nan, nan, nan, nan }, 'addbmm')
  same_nan(torch.baddbmm(torch.ones(2, 2, 2):double(), B1, B2, { alpha = 0 }), { nan, nan, nan, nan, nan, nan, nan, nan },
    'baddbmm')
  -- finite factors: alpha = 0 leaves beta * M
  same(torch.addr(one2, D({ 1e200, 2 }), D({ 1e200, 1 }), { beta = 2, alpha = 0 }), { 2, 2 }, { 2, 2, 2, 2 }, 'addr finite')
end

-- Integer tensors: integer multipliers work; fractional ones are refused. PyTorch 1.13 refuses
-- them for addr only ("argument beta must not be a floating point number") and truncates them
-- silently for the others (addmm with beta 0.5 gave 0 * M); Tocha refuses them all.
function tests.integerMultipliers()
  local L = torch.LongTensor
  local o2 = function() return torch.ones(2, 2):long() end
  tester:eq(torch.addmm(o2(), o2(), o2(), { beta = 2, alpha = 3 }):totable(), { { 8, 8 }, { 8, 8 } }, 'addmm')  -- PyTorch 1.13
  tester:eq(torch.addr(o2(), L({ 1, 1 }), L({ 1, 1 }), { beta = 2, alpha = 3 }):totable(), { { 5, 5 }, { 5, 5 } }, 'addr')
  local cases = {
    { 'addmm', function(o) return torch.addmm(o2(), o2(), o2(), o) end },
    { 'addmv', function(o) return torch.addmv(L({ 1, 1 }), o2(), L({ 1, 1 }), o) end },
    { 'addr', function(o) return torch.addr(o2(), L({ 1, 1 }), L({ 1, 1 }), o) end },
    { 'addbmm', function(o) return torch.addbmm(o2(), torch.ones(3, 2, 2):long(), torch.ones(3, 2, 2):long(), o) end },
    { 'baddbmm', function(o) return torch.baddbmm(torch.ones(3, 2, 2):long(), torch.ones(3, 2, 2):long(), torch.ones(3, 2, 2):long(), o) end },
  }
  for _, c in ipairs(cases) do
    errs(function() c[2]({ beta = 0.5 }) end, '%[' .. c[1] .. '%].*integer', c[1] .. ' beta 0.5')
    errs(function() c[2]({ alpha = 0.5 }) end, '%[' .. c[1] .. '%].*integer', c[1] .. ' alpha 0.5')
  end
end

function tests.gradchecks()
  local function leaf(t) return t:clone():requiresGrad() end
  local cases = {
    { 'addmm', function(M, a, b) return torch.addmm(M, a, b, { beta = 0.5, alpha = -2 }) end, { R(2, 3), R(2, 4), S(4, 3) } },
    { 'addmm M 1x3', function(M, a, b) return torch.addmm(M, a, b, { beta = 1.5, alpha = 0.5 }) end, { R(1, 3), R(2, 4), S(4, 3) } },
    { 'addmm M 3', function(M, a, b) return torch.addmm(M, a, b, { beta = -1 }) end, { R(3), R(2, 4), S(4, 3) } },
    { 'addmm M 1x1', function(M, a, b) return torch.addmm(M, a, b) end, { R(1, 1), R(2, 4), S(4, 3) } },
    { 'addmm beta 0', function(M, a, b) return torch.addmm(M, a, b, { beta = 0 }) end, { R(2, 3), R(2, 4), S(4, 3) } },
    { 'addmv', function(v, m, x) return torch.addmv(v, m, x, { beta = 2, alpha = 0.25 }) end, { R(2), R(2, 3), S(3) } },
    { 'addmv M 1', function(v, m, x) return torch.addmv(v, m, x, { beta = -3 }) end, { R(1), R(2, 3), S(3) } },
    { 'addr', function(M, x, y) return torch.addr(M, x, y, { beta = 2, alpha = 0.5 }) end, { R(2, 3), R(2), S(3) } },
    { 'addr M 1x3', function(M, x, y) return torch.addr(M, x, y, { alpha = -1 }) end, { R(1, 3), R(2), S(3) } },
    { 'addr alpha 0', function(M, x, y) return torch.addr(M, x, y, { alpha = 0 }) end, { R(2, 3), R(2), S(3) } },
    { 'addbmm', function(M, a, b) return torch.addbmm(M, a, b, { beta = 0.5, alpha = -1 }) end, { R(2, 3), R(4, 2, 4), S(4, 4, 3) } },
    { 'addbmm M 1x3', function(M, a, b) return torch.addbmm(M, a, b, { beta = 2 }) end, { R(1, 3), R(4, 2, 4), S(4, 4, 3) } },
    { 'baddbmm', function(M, a, b) return torch.baddbmm(M, a, b, { beta = 3, alpha = 0.5 }) end, { R(4, 2, 3), R(4, 2, 4), S(4, 4, 3) } },
    { 'baddbmm M 2x3', function(M, a, b) return torch.baddbmm(M, a, b, { beta = -2 }) end, { R(2, 3), R(4, 2, 4), S(4, 4, 3) } },
    { 'method on a clone', function(M, a, b) return (M * 1):addmm(a, b, { beta = 0.5, alpha = 2 }) end, { R(2, 3), R(2, 4), S(4, 3) } },
  }
  for _, c in ipairs(cases) do
    local ins = {}
    for i, t in ipairs(c[3]) do ins[i] = leaf(t) end
    check_grad(c[1], c[2], ins)
  end
  -- beta = 0: M gets a zero gradient (PyTorch: grad * beta)
  local M = leaf(R(2, 3))
  torch.addmm(M, R(2, 4), S(4, 3), { beta = 0 }):sum():backward()
  tester:assertTensorEq(M.grad, torch.zeros(2, 3):double(), 0, 'beta 0 gradient of M')
end

-- ---- cross ---------------------------------------------------------------------------------

-- The known bug: torch.cross refused 1x3 with 2x3, which PyTorch 1.13's torch.cross broadcasts.
function tests.crossBroadcasts()
  local want = { 0.5, 1.75, 0.5, -0.375, 2.125, 1.0 }  -- PyTorch 1.13: torch.cross(R(1,3), S(2,3))
  same(torch.cross(R(1, 3), S(2, 3)), { 2, 3 }, want, 'default dim')
  same(torch.cross(R(1, 3), S(2, 3), 2), { 2, 3 }, want, 'dim 2')
  same(torch.cross(R(1, 3), S(2, 3), -1), { 2, 3 }, want, 'dim -1')
  same(R(1, 3):cross(S(2, 3)), { 2, 3 }, want, 'method')
  local res = D(5)
  tester:assert(torch.cross(res, R(1, 3), S(2, 3), 2) == res, 'res returned')
  same(res, { 2, 3 }, want, 'res form')
  -- the default dim is a's first dim of size 3 (PyTorch 1.13; Torch7): for 1x3 with 3x3 it is 2
  same(torch.cross(R(1, 3), S(3, 3)), { 3, 3 }, { 0.5, 1.75, 0.5, -0.375, 2.125, 1.0, -1.25, -1.875, -0.25 },
    'default dim from a')
  same(torch.cross(R(3, 3), S(3, 3)), { 3, 3 }, { -0.375, -0.25, 0.375, 0.75, 0.5, -0.75, 0.5, -0.25, 0.375 },
    'equal sizes, default dim 1')
  same(torch.cross(R(2, 3, 1), S(1, 3, 4), 2), { 2, 3, 4 },
    { -0.625, 1.125, 1.125, -1.5, 1.25, 0.5, -2.0, 1.625, 0.75, -0.25, -1.25, 1.25, -0.5, 1.25, 0.375, -1.375, 1.0,
      0.25, -1.375, 1.375, 0.875, -0.125, -1.125, 1.375 }, 'both broadcast')
  -- PyTorch 1.13's refusals: other numbers of dims, size 1 along dim, sizes that do not broadcast
  errs(function() torch.cross(S(2, 3), R(3)) end, '%[cross%] a and b must have the same number of dims')
  errs(function() torch.cross(R(3, 1), S(1, 3)) end, '%[cross%] dim 1 must have size 3 in both')
  errs(function() torch.cross(R(3, 1), S(1, 3), 1) end, '%[cross%] dim 1 must have size 3 in both')
  errs(function() torch.cross(R(4, 3), S(2, 3)) end, '%[cross%] the sizes .* do not broadcast')
  errs(function() torch.cross(R(1, 2), S(2, 2)) end, '%[cross%] no dimension of size 3')
  errs(function() torch.cross(R(2, 3), 'b') end, '%[cross%] expected a tensor')
  -- gradients reduce over the broadcast dims
  check_grad('cross broadcast', function(a, b) return torch.cross(a, b) end,
    { R(1, 3):requiresGrad(), S(2, 3):requiresGrad() })
  check_grad('cross both broadcast', function(a, b) return torch.cross(a, b, 2) end,
    { R(2, 3, 1):requiresGrad(), S(1, 3, 4):requiresGrad() })
  check_grad('cross equal sizes', function(a, b) return torch.cross(a, b) end,
    { R(3, 2):requiresGrad(), S(3, 2):requiresGrad() })
end

-- ---- linalg.multiDot -----------------------------------------------------------------------

-- The known bug: mixed dtypes failed inside matmul, naming [matmul].
function tests.multiDotNamesItself()
  errs(function() torch.linalg.multiDot({ torch.ones(2, 2), torch.ones(2, 2), torch.ones(2, 2):double() }) end,
    '%[linalg.multiDot%] all tensors must have one dtype and device.*tensor 3 a torch.DoubleTensor %(cpu%)')
  errs(function() torch.linalg.multiDot({ torch.ones(2):double(), torch.ones(2, 2):float() }) end,
    '%[linalg.multiDot%] all tensors must have one dtype and device')
  tester:eq(torch.linalg.multiDot({ torch.ones(2, 2):long(), torch.ones(2):long() }):totable(), { 2, 2 }, 'longs')
end

-- ---- nn.functional's in-place helper -------------------------------------------------------

-- The known bug: F.relu(l:narrow(1, 1, 2), true) changed the leaf l, which PyTorch refuses ("a
-- view of a leaf Variable that requires grad is being used in an in-place operation").
function tests.inplaceRefusesViewsOfLeaves()
  local l = D({ -1, -2, 3 }):requiresGrad()
  errs(function() F.relu(l:narrow(1, 1, 2), true) end, '%[nn.functional.relu%] .*view', 'relu inplace flag')
  errs(function() F.relu_(l:narrow(1, 1, 2)) end, '%[nn.functional.relu_%] .*view', 'relu_')
  errs(function() F.hardtanh_(l:view(3, 1)) end, '%[nn.functional.hardtanh_%] .*view', 'view of a view... of l')
  errs(function() F.elu_(l:narrow(1, 1, 2):narrow(1, 1, 1)) end, '%[nn.functional.elu_%] .*view', 'narrow of narrow')
  errs(function() F.relu_(l) end, 'a leaf tensor that requires grad', 'the leaf itself')
  tester:eq(l:totable(), { -1, -2, 3 }, 'l unchanged')
  -- a view of a tensor with history refuses too (Tocha's engine cannot follow it)
  errs(function() F.relu_((l * 2):narrow(1, 1, 2)) end, '%[nn.functional.relu_%] .*view', 'view of history')
  -- grad mode off, or a detached view: allowed, as in PyTorch
  torch.noGrad(function() F.relu_(l:narrow(1, 1, 2)) end)
  tester:eq(l:totable(), { 0, 0, 3 }, 'noGrad view changes l')
  local l2 = D({ -1, 2 }):requiresGrad()
  F.relu_(l2:detach():narrow(1, 1, 1))
  tester:eq(l2:totable(), { 0, 2 }, 'detached view')
  -- non-view tensors with history still work and pass gradients
  local x = D({ -1, 2, -3 }):requiresGrad()
  local y = x * 2
  F.relu_(y):sum():backward()
  tester:eq(x.grad:totable(), { 0, 2, 0 }, 'gradient through relu_')
end

-- Note [In-place activations of integers]: PyTorch 1.13's relu_ (and relu(x, inplace=True))
-- accepts integer tensors; elu_, leaky_relu_ and the like do not.
function tests.inplaceIntegers()
  local x = torch.LongTensor({ -2, 0, 3 })
  tester:assert(F.relu_(x) == x, 'relu_ returns x')
  tester:eq(x:totable(), { 0, 0, 3 }, 'relu_ of a LongTensor')  -- PyTorch 1.13: [0, 0, 3]
  local y = torch.IntTensor({ 4, -5 })
  tester:assert(F.relu(y, true) == y, 'relu inplace returns y')
  tester:eq(y:totable(), { 4, 0 }, 'relu(x, true) of an IntTensor')
  errs(function() F.elu_(torch.LongTensor({ 1 })) end, '%[nn.functional.elu_%] expected a tensor of a floating dtype')
  errs(function() F.leakyRelu_(torch.LongTensor({ 1 })) end, '%[nn.functional.leakyRelu_%]')
  errs(function() F.selu(torch.LongTensor({ 1 }), true) end, 'floating dtype')
  errs(function() F.relu_('x') end, '%[nn.functional.relu_%] expected')
end

tester:add(tests)
tester:run()
