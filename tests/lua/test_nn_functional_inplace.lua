-- PyTorch's inplace flags on nn.functional's extra activations and the dropouts (Note [Inplace
-- flags], lua/nn/functional_args.lua): values against PyTorch 1.13's with inplace=True, the
-- dropouts writing into x the mask they draw without the flag, gradients through the write, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

local function near(got, want, tol, what)
  tester:assertTensorEq(got:double():contiguous():view(-1), D(want), tol or 1e-11, what)
end

-- PyTorch's inplace flags (Note [Inplace flags]): celu/threshold/rrelu against PyTorch 1.13's
-- values with inplace=True on x = {-2, -0.5, 0, 0.5, 2, 7}; the dropouts write the mask they draw
-- without the flag into x. Ignored before (x unchanged, a new tensor returned).
function tests.inplaceFlags()
  local want = {
    celu = { -0.490842180555633, -0.316060279414279, 0.0, 0.5, 2.0, 7.0 },
    threshold = { 20.0, 20.0, 20.0, 0.5, 2.0, 7.0 },
    rrelu = { -0.4, -0.1, 0.0, 0.5, 2.0, 7.0 },
  }
  local function x0() return D({ -2, -0.5, 0, 0.5, 2, 7 }) end
  local calls = {
    celu = function(x, f) return F.celu(x, 0.5, f) end,
    threshold = function(x, f) return F.threshold(x, 0.1, 20, f) end,
    rrelu = function(x, f) return F.rrelu(x, 0.1, 0.3, false, f) end,
  }
  for name, call in pairs(calls) do
    local x = x0()
    tester:assert(call(x, true) == x, name .. ' returns x')
    near(x, want[name], 1e-12, name .. '(..., true) writes x')
    local x2 = x0()
    local y2 = call(x2, false)
    tester:assert(y2 ~= x2 and x2[1] == -2, name .. ' with false keeps x')
    local ok, err = pcall(call, x2, 1)
    tester:assert(not ok and tostring(err):find('nn.functional.' .. name, 1, true) and tostring(err):find('inplace', 1, true),
      name .. ': a non-boolean flag is an error: ' .. tostring(err))
  end
  -- rrelu training: the slopes of the same seed
  local x = torch.randn(20):double()
  torch.manualSeed(3)
  local r = F.rrelu(x, 0.1, 0.3, true)
  torch.manualSeed(3)
  tester:assert(F.rrelu(x, 0.1, 0.3, true, true) == x, 'rrelu(training, inplace) returns x')
  tester:assertTensorEq(x, r, 0, 'rrelu(training, inplace) values')
  local drops = {
    { 'dropout1d', { 2, 3, 5 }, true }, { 'dropout2d', { 2, 3, 4, 4 }, true }, { 'dropout3d', { 2, 3, 2, 4, 4 }, true },
    { 'alphaDropout', { 6, 5 }, false }, { 'featureAlphaDropout', { 2, 3, 4 }, false },
  }
  for _, c in ipairs(drops) do
    local name, size = c[1], torch.LongStorage(c[2])
    x = torch.randn(size):double()
    local xc = x:clone()
    torch.manualSeed(11)
    local y = F[name](x, 0.5, true)
    torch.manualSeed(11)
    tester:assert(F[name](x, 0.5, true, true) == x, name .. '(inplace) returns x')
    tester:assertTensorEq(x, y, 0, name .. '(inplace) writes the dropout into x')
    tester:assert(x:ne(xc):sum() > 0, name .. '(inplace) changed x')
    -- the identity cases return x itself, a leaf that requires grad included (PyTorch); not the others
    local leaf = torch.randn(size):double():requiresGrad()
    tester:assert(F[name](leaf, 0.5, false, true) == leaf, name .. ' identity on a leaf')
    local ok, err = pcall(F[name], leaf, 0.5, true, true)
    tester:assert(not ok and tostring(err):find('leaf', 1, true), name .. ' on a leaf refuses: ' .. tostring(err))
    ok, err = pcall(F[name], xc, 0.5, true, 0)
    tester:assert(not ok and tostring(err):find('inplace', 1, true), name .. ': a non-boolean flag is an error')
    -- a non-leaf: the gradient flows through the in-place write (mask / (1 - p) where kept)
    local a = torch.randn(size):double():requiresGrad()
    local b = torch.mul(a, 1)
    torch.manualSeed(5)
    local m = F[name](torch.ones(size):double(), 0.5, true)
    torch.manualSeed(5)
    F[name](b, 0.5, true, true)
    b:sum():backward()
    if c[3] then tester:assertTensorEq(a.grad, m, 1e-12, name .. '(inplace) gradient') end
  end
end

tester:add(tests)
tester:run()
