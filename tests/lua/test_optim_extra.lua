-- optim.nadam / optim.radam (functional) and optim.NAdam / optim.RAdam (objects) against scalar
-- reference loops and PyTorch's numbers; the schedules LambdaLR, MultiplicativeLR, PolynomialLR
-- and CyclicLR against their formulas and PyTorch 1.13's rates; config checks and errors.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

-- f(x) = sum(0.5 a x^2 + 0.3 x): gradient a x + 0.3.
local A = D({ 2, 4, -1 })
local function feval(x) return 0.5 * torch.cmul(A, torch.cmul(x, x)):sum() + 0.3 * x:sum(), torch.cmul(A, x):add(0.3) end
local X0 = { 1.0, -2.0, 0.5 }

-- Scalar NAdam (PyTorch >= 2.0's formula) on each coordinate separately.
local function nadam_ref(steps, lr, b1, b2, eps, wd, md)
  local out = {}
  for i = 1, 3 do
    local x, m, v, mp = X0[i], 0, 0, 1
    for t = 1, steps do
      local g = A[i] * x + 0.3 + wd * x
      local mu = b1 * (1 - 0.5 * 0.96 ^ (t * md))
      local mun = b1 * (1 - 0.5 * 0.96 ^ ((t + 1) * md))
      mp = mp * mu
      m = b1 * m + (1 - b1) * g
      v = b2 * v + (1 - b2) * g * g
      local den = math.sqrt(v / (1 - b2 ^ t)) + eps
      x = x - lr * (1 - mu) / (1 - mp) * g / den - lr * mun / (1 - mp * mun) * m / den
    end
    out[i] = x
  end
  return D(out)
end

-- Scalar RAdam (Liu et al., PyTorch's form).
local function radam_ref(steps, lr, b1, b2, eps, wd)
  local out = {}
  for i = 1, 3 do
    local x, m, v = X0[i], 0, 0
    local rinf = 2 / (1 - b2) - 1
    for t = 1, steps do
      local g = A[i] * x + 0.3 + wd * x
      m = b1 * m + (1 - b1) * g
      v = b2 * v + (1 - b2) * g * g
      local mhat = m / (1 - b1 ^ t)
      local rho = rinf - 2 * t * b2 ^ t / (1 - b2 ^ t)
      if rho > 5 then
        local r = math.sqrt((rho - 4) * (rho - 2) * rinf / ((rinf - 4) * (rinf - 2) * rho))
        x = x - lr * mhat * r * math.sqrt(1 - b2 ^ t) / (math.sqrt(v) + eps)
      else
        x = x - lr * mhat
      end
    end
    out[i] = x
  end
  return D(out)
end

local function run_functional(fn, config, steps)
  local x, state = D(X0), {}
  for _ = 1, steps do fn(feval, x, config, state) end
  return x, state
end

local function run_object(cls, options, steps)
  local p = D(X0)
  local opt = cls({ p }, options)
  for _ = 1, steps do
    local _, g = feval(p)
    p.grad = g
    opt:step()
  end
  return p, opt
end

function tests.nadam()
  local x, state = run_functional(optim.nadam, { learningRate = 0.1, weightDecay = 0.01 }, 8)
  tester:assertTensorEq(x, nadam_ref(8, 0.1, 0.9, 0.999, 1e-8, 0.01, 4e-3), 1e-13)
  tester:asserteq(state.t, 8)
  -- PyTorch 2.x torch.optim.NAdam(lr=0.1, weight_decay=0.01), 8 steps
  tester:assertTensorEq(x, D({ 0.42603216926786158, -1.3965603351001603, 1.2919463249690555 }), 1e-13)
  local cfg = { learningRate = 0.05, beta1 = 0.8, beta2 = 0.99, epsilon = 1e-6, momentumDecay = 0.01 }
  tester:assertTensorEq(run_functional(optim.nadam, cfg, 30), nadam_ref(30, 0.05, 0.8, 0.99, 1e-6, 0, 0.01), 1e-12)
  local p = run_object(optim.NAdam, { lr = 0.05, betas = { 0.8, 0.99 }, eps = 1e-6, momentumDecay = 0.01 }, 30)
  tester:assertTensorEq(p, run_functional(optim.nadam, cfg, 30), 0)
  -- the default rate is PyTorch's 2e-3
  tester:assertTensorEq(run_functional(optim.nadam, {}, 3), nadam_ref(3, 2e-3, 0.9, 0.999, 1e-8, 0, 4e-3), 1e-14)
end

function tests.radam()
  local x = run_functional(optim.radam, { learningRate = 0.1, weightDecay = 0.01 }, 8)
  tester:assertTensorEq(x, radam_ref(8, 0.1, 0.9, 0.999, 1e-8, 0.01), 1e-13)
  -- PyTorch 1.13 torch.optim.RAdam(lr=0.1, weight_decay=0.01), 8 steps (rho_t > 5 from step 6)
  tester:assertTensorEq(x, D({ 0.071434443988866281, 0.41743854258668772, 0.61831452545006249 }), 1e-13)
  local cfg = { learningRate = 0.02, beta1 = 0.85, beta2 = 0.95 }
  tester:assertTensorEq(run_functional(optim.radam, cfg, 40), radam_ref(40, 0.02, 0.85, 0.95, 1e-8, 0), 1e-12)
  local p, opt = run_object(optim.RAdam, { lr = 0.02, betas = { 0.85, 0.95 } }, 40)
  tester:assertTensorEq(p, run_functional(optim.radam, cfg, 40), 0)
  -- state snapshots resume exactly
  local snap = opt:state()
  local q = p:clone()
  local opt2 = optim.RAdam({ q }, { lr = 0.02, betas = { 0.85, 0.95 } })
  opt2:loadState(snap)
  for _ = 1, 3 do
    p.grad = select(2, feval(p)) opt:step()
    q.grad = select(2, feval(q)) opt2:step()
  end
  tester:assertTensorEq(q, p, 0)
  -- converges on the convex coordinates
  local y = run_functional(optim.radam, { learningRate = 0.05 }, 2000)
  tester:assertalmosteq(y[1], -0.15, 1e-3)
  tester:assertalmosteq(y[2], -0.075, 1e-3)
end

function tests.optimizerErrors()
  tester:assertErrorPattern(function() optim.nadam(feval, D(X0), { learningRate = -1 }) end,
    'learningRate must be a non%-negative number')
  tester:assertErrorPattern(function() optim.radam(feval, D(X0), { beta1 = 1 }) end, 'beta1 must be a number in %[0, 1%)')
  tester:assertErrorPattern(function() optim.NAdam({ D(2) }, { momentum_decay = 1 }) end, 'momentum_decay')
  tester:assertErrorPattern(function() optim.RAdam({ D(2) }, { betas = { 0.9 } }) end, 'betas must be')
  tester:assertTableEq({ tostring(optim.NAdam({ D(2) })):match('^(optim.NAdam)') }, { 'optim.NAdam' })
end

-- The rates a schedule sets over n steps on an optim.SGD (momentum 0.9) and a functional config.
local function rates(make, n, base)
  local p = D({ 0 })
  local opt = optim.SGD({ p }, { lr = base or 0.1, momentum = 0.9 })
  local cfg = { learningRate = base or 0.1 }
  local so, sc = make(opt), make(cfg)
  local a = {}
  for _ = 1, n do
    a[#a + 1] = opt.paramGroups[1].lr
    tester:asserteq(cfg.learningRate, opt.paramGroups[1].lr)
    so:step()
    sc:step()
  end
  return a
end

local function check_rates(got, want, tol, what)
  tester:asserteq(#got, #want)
  for i = 1, #want do tester:assertalmosteq(got[i], want[i], tol or 1e-15, (what or '') .. ' step ' .. (i - 1)) end
end

-- Review regression: MultiplicativeLR recomputed the product from epoch 1 at every step, calling
-- lrLambda n^2 / 2 times over n steps (PyTorch: once per step), hopeless for per-batch use.
function tests.multiplicativeCallsLambdaOncePerStep()
  local calls = 0
  local cfg = { learningRate = 0.5 }
  local s = optim.lr.MultiplicativeLR(cfg, { lrLambda = function(e) calls = calls + 1 return 1 - 1e-4 * (e % 3) end })
  local want = 0.5
  for e = 1, 1000 do
    s:step()
    want = want * (1 - 1e-4 * (e % 3))
  end
  tester:assertalmosteq(cfg.learningRate, want, 1e-13)
  tester:assertle(calls, 1000, 'lrLambda calls over 1000 steps')
  -- the next step multiplies the current rate, whatever the base rates say (PyTorch's rule,
  -- Note [Back-to-back schedules])
  s.baseLrs[1] = 1
  s:step()
  tester:assertalmosteq(cfg.learningRate, want * (1 - 1e-4 * (1001 % 3)), 1e-13)
end

function tests.lambdaAndPolynomial()
  check_rates(rates(function(t) return optim.lr.LambdaLR(t, { lrLambda = function(e) return 1 / (e + 1) end }) end, 4),
    { 0.1, 0.05, 0.1 / 3, 0.025 }, 1e-15, 'LambdaLR')
  check_rates(rates(function(t) return optim.lr.MultiplicativeLR(t, { lrLambda = function() return 0.9 end }) end, 4),
    { 0.1, 0.09, 0.081, 0.0729 }, 1e-15, 'MultiplicativeLR')
  -- PyTorch 1.13: PolynomialLR(total_iters=4, power=2) from lr 0.1
  check_rates(rates(function(t) return optim.lr.PolynomialLR(t, { totalIters = 4, power = 2 }) end, 6),
    { 0.1, 0.05625, 0.025, 0.00625, 0, 0 }, 1e-15, 'PolynomialLR')
  check_rates(rates(function(t) return optim.lr.PolynomialLR(t, {}) end, 7), { 0.1, 0.08, 0.06, 0.04, 0.02, 0, 0 }, 1e-15)
  -- one lambda per group
  local opt = optim.SGD({ { params = { D(1) }, lr = 1 }, { params = { D(1) }, lr = 2 } })
  local s = optim.lr.LambdaLR(opt, { lrLambda = { function(e) return e + 1 end, function() return 0.5 end } })
  s:step()
  tester:assertTableEq(s:getLastLr(), { 2, 1 })
  tester:assertErrorPattern(function() optim.lr.LambdaLR(opt, { lrLambda = { function() return 1 end } }) end,
    'lrLambda has 1 functions for 2 parameter groups')
  tester:assertErrorPattern(function() optim.lr.LambdaLR(opt, {}) end, 'options.lrLambda is required')
  tester:assertErrorPattern(function() optim.lr.LambdaLR({ learningRate = 1 }, { lrLambda = function() return 'x' end }) end,
    'lrLambda%(0%) returned string')
  tester:assertErrorPattern(function() optim.lr.PolynomialLR(opt, { totalIters = 0 }) end, 'totalIters must be a positive integer')
end

-- CyclicLR's formula written out: position in the cycle, then the triangle.
local function cyclic(e, lo, hi, up, down, scale)
  local total = up + down
  local cycle = math.floor(e / total) + 1
  local pos = e - (cycle - 1) * total
  local f = pos <= up and pos / up or 1 - (pos - up) / down
  return lo + (hi - lo) * f * scale(cycle, e)
end

function tests.cyclicLR()
  -- PyTorch 1.13: CyclicLR(base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2, mode='triangular2')
  check_rates(rates(function(t) return optim.lr.CyclicLR(t, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 3, stepSizeDown = 2,
    mode = 'triangular2' }) end, 12),
    { 0.01, 0.04, 0.07, 0.1, 0.055, 0.01, 0.025, 0.04, 0.055, 0.0325, 0.01, 0.0175 }, 1e-15, 'triangular2')
  local function expect(opts, scale, n)
    local want = {}
    for e = 0, n - 1 do want[#want + 1] = cyclic(e, opts.baseLr, opts.maxLr, opts.stepSizeUp, opts.stepSizeDown or opts.stepSizeUp, scale) end
    check_rates(rates(function(t) return optim.lr.CyclicLR(t, opts) end, n), want, 1e-15, opts.mode or 'scaleFn')
  end
  expect({ baseLr = 0.001, maxLr = 0.01, stepSizeUp = 4 }, function() return 1 end, 20)
  expect({ baseLr = 0.001, maxLr = 0.01, stepSizeUp = 2, stepSizeDown = 5, mode = 'expRange', gamma = 0.9 },
    function(_, e) return 0.9 ^ e end, 20)
  expect({ baseLr = 0.001, maxLr = 0.01, stepSizeUp = 3, scaleFn = function(c) return 1 / c end },
    function(c) return 1 / c end, 20)
  expect({ baseLr = 0.001, maxLr = 0.01, stepSizeUp = 3, scaleFn = function(e) return 1 / (e + 1) end, scaleMode = 'iterations' },
    function(_, e) return 1 / (e + 1) end, 20)
  -- per-group bounds
  local opt = optim.SGD({ { params = { D(1) } }, { params = { D(1) } } }, { lr = 1 })
  local s = optim.lr.CyclicLR(opt, { baseLr = { 0.1, 0.2 }, maxLr = { 1, 2 }, stepSizeUp = 1 })
  tester:assertTableEq(s:getLastLr(), { 0.1, 0.2 })
  s:step()
  tester:assertTableEq(s:getLastLr(), { 1, 2 })
  tester:assertErrorPattern(function() optim.lr.CyclicLR(opt, { baseLr = 0.1 }) end, 'baseLr and options.maxLr are required')
  tester:assertErrorPattern(function() optim.lr.CyclicLR(opt, { baseLr = 0.1, maxLr = 1, mode = 'cosine' }) end, 'mode must be')
  tester:assertErrorPattern(function() optim.lr.CyclicLR(opt, { baseLr = { 0.1 }, maxLr = 1 }) end, 'one per group %(2%)')
  tester:assertErrorPattern(function() optim.lr.CyclicLR(opt, { baseLr = 0.1, maxLr = 1, scaleMode = 'epoch' }) end,
    "scaleMode must be 'cycle' or 'iterations'")
end

tester:add(tests)
tester:run()
