-- optim's functional API (Torch7's): each optimizer against a trajectory computed by hand in
-- this file (plain Lua numbers, a few steps on a quadratic), in double and float, on strided x;
-- convergence on Rosenbrock; polyinterp, lswolfe, checkgrad, fista; config errors; state saved
-- and restored mid-run continuing bit-for-bit.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

-- f(x) = sum(a x^2 / 2 + b x): gradient a x + b.
local A, B, X0 = { 1, 2, 0.5, 3 }, { 0.5, -1, 0.25, 0 }, { 1, -2, 3, 0.5 }
local function quad(x)
  local a, b = x.new(A), x.new(B)
  local g = torch.cmul(a, x):add(b)
  return torch.cmul(torch.cmul(a, x), x):sum() / 2 + torch.cmul(b, x):sum(), g
end
local function grad_at(x, i) return A[i] * x[i] + B[i] end

-- Runs `steps` calls of optim[name] from X0 and returns x.
local function run(name, config, steps, xtype)
  local x = (xtype or D)(X0)
  for _ = 1, steps do optim[name](quad, x, config) end
  return x
end
-- Runs the scalar reference update(i, x, s) for each element from X0.
local function ref(steps, update)
  local x = {}
  for i = 1, #X0 do
    local s, v = {}, X0[i]
    for k = 1, steps do v = update(i, v, s, k) end
    x[i] = v
  end
  return D(x)
end

function tests.sgdVariants()
  local cases = {
    { learningRate = 0.1 },
    { learningRate = 0.1, learningRateDecay = 0.3, weightDecay = 0.05 },
    { learningRate = 0.1, momentum = 0.9 },  -- dampening defaults to momentum (Torch7)
    { learningRate = 0.1, momentum = 0.9, dampening = 0, nesterov = true, weightDecay = 0.01 },
  }
  for _, c in ipairs(cases) do
    local got = run('sgd', c, 6)
    local want = ref(6, function(i, x, s, k)
      local lr = c.learningRate / (1 + (k - 1) * (c.learningRateDecay or 0))
      local d = grad_at({ [i] = x }, i) + (c.weightDecay or 0) * x
      local mom = c.momentum or 0
      if mom ~= 0 then
        s.buf = s.buf and mom * s.buf + (1 - (c.dampening or mom)) * d or d
        d = c.nesterov and d + mom * s.buf or s.buf
      end
      return x - lr * d
    end)
    tester:eq(got, want, 1e-13)
  end
end

function tests.sgdPerElementRatesAndDecays()
  local lrs, wds = D({ 1, 0.5, 2, 0 }), D({ 0, 0.1, 0.2, 0.3 })
  local got = run('sgd', { learningRate = 0.1, learningRates = lrs, weightDecays = wds, momentum = 0.5 }, 4)
  local want = ref(4, function(i, x, s)
    local d = grad_at({ [i] = x }, i) + wds[i] * x
    s.buf = s.buf and 0.5 * s.buf + 0.5 * d or d
    return x - 0.1 * lrs[i] * s.buf
  end)
  tester:eq(got, want, 1e-13)
  -- a scalar weightDecay wins over weightDecays (Torch7's elseif)
  local a = run('sgd', { learningRate = 0.1, weightDecay = 0.1, weightDecays = wds }, 3)
  tester:eq(a, run('sgd', { learningRate = 0.1, weightDecay = 0.1 }, 3), 0)
end

function tests.sgdKeepsStateAndGradient()
  local config = { learningRate = 0.1, momentum = 0.9, weightDecay = 0.1 }
  local x = D(X0)
  local g_seen
  local function f(x) local v, g = quad(x) g_seen = g return v, g end
  local _, fs = optim.sgd(f, x, config)
  tester:asserteq(config.evalCounter, 1)
  tester:assert(torch.isTensor(config.dfdx))
  local _, g0 = quad(D(X0))
  tester:eq(g_seen, g0, 0, 'the gradient tensor is left unmodified')
  tester:assertalmosteq(fs[1], quad(D(X0)), 1e-15)
  local state = {}
  optim.sgd(quad, D(X0), { learningRate = 0.1, momentum = 0.9 }, state)
  tester:asserteq(state.evalCounter, 1)
end

function tests.nag()
  local c = { learningRate = 0.1, momentum = 0.8, weightDecay = 0.05, learningRateDecay = 0.1 }
  local got = run('nag', c, 5)
  local want = ref(5, function(i, x, s, k)
    local look = s.v and x + 0.8 * s.v or x
    local g = grad_at({ [i] = look }, i) + 0.05 * look
    s.v = (s.v and 0.8 * s.v or 0) - c.learningRate / (1 + (k - 1) * 0.1) * g
    return x + s.v
  end)
  tester:eq(got, want, 1e-13)
  tester:assertErrorPattern(function() optim.nag(quad, D(X0), { momentum = 0 }) end, 'momentum must be positive')
end

function tests.asgd()
  local c = { eta0 = 0.1, lambda = 0.01, alpha = 0.75, t0 = 2 }
  local x = D(X0)
  local ax
  for _ = 1, 5 do _, _, ax = optim.asgd(quad, x, c) end
  local want_x, want_ax = {}, {}
  for i = 1, #X0 do
    local v, a, eta, mu = X0[i], 0, 0.1, 1
    for t = 1, 5 do
      v = v * (1 - 0.01 * eta) - eta * grad_at({ [i] = v }, i)
      a = mu ~= 1 and a + mu * (v - a) or v
      eta = 0.1 / (1 + 0.01 * 0.1 * t) ^ 0.75
      mu = 1 / math.max(1, t - 2)
    end
    want_x[i], want_ax[i] = v, a
  end
  tester:eq(x, D(want_x), 1e-13)
  tester:eq(ax, D(want_ax), 1e-13)
end

local function adam_ref(lr, b1, b2, eps, wd, lrd, decoupled)
  return function(i, x, s, k)
    local g = grad_at({ [i] = x }, i)
    local clr = lr / (1 + (k - 1) * (lrd or 0))
    if decoupled then x = x * (1 - clr * wd) else g = g + wd * x end
    s.m = (s.m or 0) * b1 + (1 - b1) * g
    s.v = (s.v or 0) * b2 + (1 - b2) * g * g
    local step = clr * math.sqrt(1 - b2 ^ k) / (1 - b1 ^ k)
    return x - step * s.m / (math.sqrt(s.v) + eps)
  end
end

function tests.adamFamily()
  local c = { learningRate = 0.05, beta1 = 0.8, beta2 = 0.9, epsilon = 1e-3, weightDecay = 0.1, learningRateDecay = 0.2 }
  tester:eq(run('adam', c, 6), ref(6, adam_ref(0.05, 0.8, 0.9, 1e-3, 0.1, 0.2)), 1e-13)
  tester:eq(run('adam', {}, 3), ref(3, adam_ref(1e-3, 0.9, 0.999, 1e-8, 0)), 1e-13)
  local w = { learningRate = 0.05, beta1 = 0.8, beta2 = 0.9, epsilon = 1e-3, weightDecay = 0.1 }
  tester:eq(run('adamw', w, 6), ref(6, adam_ref(0.05, 0.8, 0.9, 1e-3, 0.1, 0, true)), 1e-13)
  local got = run('adamax', { learningRate = 0.05, beta1 = 0.8, beta2 = 0.9, epsilon = 1e-3 }, 6)
  tester:eq(got, ref(6, function(i, x, s, k)
    local g = grad_at({ [i] = x }, i)
    s.m = (s.m or 0) * 0.8 + 0.2 * g
    s.u = math.max((s.u or 0) * 0.9, math.abs(g) + 1e-3)
    return x - 0.05 / (1 - 0.8 ^ k) * s.m / s.u
  end), 1e-13)
end

function tests.adaptiveFamily()
  local got = run('adagrad', { learningRate = 0.1, learningRateDecay = 0.05, weightDecay = 0.1 }, 6)
  tester:eq(got, ref(6, function(i, x, s, k)
    local g = grad_at({ [i] = x }, i) + 0.1 * x
    s.sum = (s.sum or 0) + g * g
    return x - 0.1 / (1 + (k - 1) * 0.05) * g / (math.sqrt(s.sum) + 1e-10)
  end), 1e-13)
  got = run('adadelta', { rho = 0.8, eps = 1e-4, weightDecay = 0.1 }, 6)
  tester:eq(got, ref(6, function(i, x, s)
    local g = grad_at({ [i] = x }, i) + 0.1 * x
    s.sq = (s.sq or 0) * 0.8 + 0.2 * g * g
    local delta = math.sqrt((s.acc or 0) + 1e-4) / math.sqrt(s.sq + 1e-4) * g
    s.acc = (s.acc or 0) * 0.8 + 0.2 * delta * delta
    return x - delta
  end), 1e-13)
  got = run('rmsprop', { learningRate = 0.01, alpha = 0.9, epsilon = 1e-6, weightDecay = 0.1, initialMean = 0.5 }, 6)
  tester:eq(got, ref(6, function(i, x, s)
    local g = grad_at({ [i] = x }, i) + 0.1 * x
    s.m = (s.m or 0.5) * 0.9 + 0.1 * g * g
    return x - 0.01 * g / (math.sqrt(s.m) + 1e-6)
  end), 1e-13)
end

function tests.rprop()
  local c = { stepsize = 0.1, etaplus = 1.5, etaminus = 0.4, stepsizemax = 0.5, stepsizemin = 0.05, niter = 3 }
  local x = D(X0)
  local _, fs = optim.rprop(quad, x, c)
  tester:asserteq(#fs, 3)
  optim.rprop(quad, x, c)
  tester:eq(x, ref(6, function(i, v, s)
    local g = grad_at({ [i] = v }, i)
    local prod = g * (s.prev or 0)
    s.step = s.step or 0.1
    if prod > 0 then s.step = math.min(s.step * 1.5, 0.5) elseif prod < 0 then s.step = math.max(s.step * 0.4, 0.05) end
    if prod < 0 then g = 0 end
    s.prev = g
    local sign = g > 0 and 1 or (g < 0 and -1 or 0)
    return v - sign * s.step
  end), 1e-13)
end

function tests.floatAndStridedMatch()
  -- float computes like the formula to float rounding
  local got = run('adam', { learningRate = 0.05 }, 5, torch.FloatTensor)
  tester:eq(got:double(), ref(5, adam_ref(0.05, 0.9, 0.999, 1e-8, 0)), 1e-5)
  -- a non-contiguous x goes through staging and gives the same bits as a contiguous one
  for _, name in ipairs({ 'sgd', 'adam', 'rmsprop', 'adagrad', 'adadelta', 'adamax', 'rprop' }) do
    local xs = D(4, 2):zero():select(2, 1)
    xs:copy(D(X0))
    tester:assert(not xs:isContiguous())
    local c1, c2 = { learningRate = 0.1, momentum = 0.5 }, { learningRate = 0.1, momentum = 0.5 }
    if name ~= 'sgd' then c1, c2 = {}, {} end
    for _ = 1, 4 do optim[name](quad, xs, c1) end
    tester:eq(xs:clone(), run(name, c2, 4), 0, name .. ' on a strided x')
  end
end

-- Rosenbrock: minimum 0 at (1, 1).
local function rosenbrock(x)
  local a, b = x[1], x[2]
  local f = (1 - a) ^ 2 + 100 * (b - a * a) ^ 2
  local g = x.new(2)
  g[1] = -2 * (1 - a) - 400 * a * (b - a * a)
  g[2] = 200 * (b - a * a)
  return f, g
end

function tests.rosenbrockConvergence()
  local function solve(method, config, iters)
    local x = D({ -1.2, 1 })
    for _ = 1, iters do optim[method](rosenbrock, x, config) end
    return x
  end
  local want = D({ 1, 1 })
  tester:eq(solve('lbfgs', { maxIter = 200, tolFun = 1e-12, tolX = 1e-14, learningRate = 0.5 }, 1), want, 1e-4, 'lbfgs')
  tester:eq(solve('lbfgs', { maxIter = 100, lineSearch = optim.lswolfe }, 1), want, 1e-4, 'lbfgs+lswolfe')
  tester:eq(solve('cg', { maxEval = 200 }, 1), want, 1e-4, 'cg')
  tester:eq(solve('adam', { learningRate = 0.02 }, 6000), want, 1e-3, 'adam')
  tester:eq(solve('sgd', { learningRate = 1e-3, momentum = 0.9, dampening = 0 }, 12000), want, 1e-2, 'sgd')
  tester:eq(solve('nag', { learningRate = 1e-3, momentum = 0.9 }, 12000), want, 1e-2, 'nag')
  tester:eq(solve('rprop', { stepsize = 0.01, niter = 3000 }, 1), want, 1e-2, 'rprop')
  tester:eq(solve('rmsprop', { learningRate = 1e-3 }, 8000), want, 5e-2, 'rmsprop')
  tester:eq(solve('adamax', { learningRate = 0.02 }, 6000), want, 1e-3, 'adamax')
  tester:eq(solve('adamw', { learningRate = 0.02, weightDecay = 0 }, 6000), want, 1e-3, 'adamw')
  tester:eq(solve('asgd', { eta0 = 1e-3, lambda = 0, t0 = 1000 }, 20000), want, 1e-2, 'asgd')
  -- (Adadelta crawls along Rosenbrock's valley; it is checked on the logistic regression below)
  tester:eq(solve('adagrad', { learningRate = 0.5 }, 8000), want, 5e-2, 'adagrad')
  torch.manualSeed(1)
  local best, fs = optim.cmaes(rosenbrock, D({ -1.2, 1 }), { sigma = 0.5, maxEval = 3000 })
  tester:eq(best, want, 1e-3, 'cmaes')
  tester:assertlt(fs[#fs], 1e-6)
  local x = optim.de(function(x) return (rosenbrock(x)) end, D(2), { maxFEs = 6000, popsize = 30, minRegion = -2, maxRegion = 2 })
  tester:eq(x, want, 5e-2, 'de')
end

-- Binary logistic regression on two Gaussian blobs (x, y = +-1), bias as a third feature.
function tests.logisticRegressionConvergence()
  torch.manualSeed(5)
  local n = 120
  local X, y = D(n, 3):fill(1), D(n)
  for i = 1, n do
    local c = i % 2 == 0 and 1 or -1
    y[i] = c
    X[i][1], X[i][2] = torch.normal(1.5 * c, 1), torch.normal(-c, 1)
  end
  local function logistic(w)
    local m = torch.cmul(y, X * w)
    return torch.log1p(torch.exp(-m)):mean(), (X:t() * torch.cmul(y, torch.sigmoid(-m))) * (-1 / n)
  end
  local cases = {
    { 'sgd', { learningRate = 0.5, momentum = 0.9, dampening = 0 } }, { 'nag', { learningRate = 0.5 } },
    { 'asgd', { eta0 = 0.5, t0 = 50 } }, { 'adam', { learningRate = 0.1 } }, { 'adamw', { learningRate = 0.1 } },
    { 'adamax', { learningRate = 0.1 } }, { 'adagrad', { learningRate = 0.5 } }, { 'adadelta', {}, 0.3 },
    { 'rmsprop', { learningRate = 0.05 } }, { 'rprop', {} }, { 'lbfgs', { maxIter = 50 }, nil, 1 },
    { 'cg', { maxEval = 100 }, nil, 1 },
  }
  for _, c in ipairs(cases) do
    local w = D(3):zero()
    for _ = 1, c[4] or 200 do optim[c[1]](logistic, w, c[2]) end
    tester:assertlt((logistic(w)), c[3] or 0.11, c[1] .. ' loss')  -- the optimum is 0.101
    tester:assertgt(torch.cmul(y, X * w):gt(0):sum() / n, 0.9, c[1] .. ' accuracy')
  end
end

function tests.lbfgsReturnsAndState()
  local x = D({ -1.2, 1 })
  local state = {}
  local _, fhist, nEval = optim.lbfgs(rosenbrock, x, { maxIter = 5 }, state)
  tester:asserteq(#fhist, 5)  -- f before, then after each iteration but the last
  tester:asserteq(nEval, 5)
  tester:asserteq(state.nIter, 5)
  tester:asserteq(state.funcEval, 5)
  tester:assertlt(fhist[#fhist], fhist[1])
  -- already optimal: one evaluation, no move
  local z = D({ 1, 1 })
  local _, h = optim.lbfgs(rosenbrock, z, {})
  tester:asserteq(#h, 1)
  tester:eq(z, D({ 1, 1 }), 0)
end

function tests.polyinterpAndLineSearch()
  -- cubic through (0, 1, -1) and (1, 0.5, 0.5): closed form and the general solver agree
  local pts = D({ { 0, 1, -1 }, { 1, 0.5, 0.5 } })
  local t1 = optim.polyinterp(pts)
  local t2 = optim.polyinterp(pts, 0, 1)
  tester:assertalmosteq(t1, t2, 1e-9)
  -- p(x) = x^3 - 3x with derivative 3x^2 - 3: local minimum at x = 1
  local p = function(v) return v ^ 3 - 3 * v, 3 * v * v - 3 end
  local f0, g0 = p(0)
  local f2, g2 = p(2)
  tester:assertalmosteq(optim.polyinterp(D({ { 0, f0, g0 }, { 2, f2, g2 } })), 1, 1e-9)
  tester:assertalmosteq(optim.polyinterp(D({ { 0, f0, g0 }, { 2, f2, g2 } }), -0.5, 3), 1, 1e-9)
  -- three points: a quintic fit still finds the minimum of the cubic inside the bounds
  local fm, gm = p(-0.5)
  tester:assertalmosteq(optim.polyinterp({ { -0.5, fm, gm }, { 0, f0, g0 }, { 2, f2, g2 } }), 1, 1e-6)
  -- lswolfe ends at a point satisfying the strong Wolfe conditions
  local x = D({ -1.2, 1 })
  local f, g = rosenbrock(x)
  local d = -g
  local gtd = g:dot(d)
  local fn, gn, _, t = optim.lswolfe(rosenbrock, x, 1e-3, d, f, g, gtd)
  tester:assert(fn <= f + 1e-4 * t * gtd, 'sufficient decrease')
  tester:assert(math.abs(gn:dot(d)) <= -0.9 * gtd, 'curvature')
  tester:eq(x, D({ -1.2, 1 }) + d * t, 1e-12)
end

function tests.checkgradAndFista()
  local diff = optim.checkgrad(quad, D(X0))
  tester:assertlt(diff, 1e-7)
  local wrong = optim.checkgrad(function(x) local f, g = quad(x) return f, g * 1.1 end, D(X0))
  tester:assertgt(wrong, 1e-2)
  -- lasso in one dimension: min (x - 3)^2/2 + |x| has x = 2
  local lambda = 1
  local function f(x, mode)
    local v = (x[1] - 3) ^ 2 / 2
    if mode == 'dx' then return v, x.new({ x[1] - 3 }) end
    return v
  end
  local function g(x) return lambda * math.abs(x[1]) end
  local function pl(x, L)
    local v, th = x[1], lambda / L
    x[1] = v > th and v - th or (v < -th and v + th or 0)
  end
  local x = D({ 0 })
  local sol, hist = optim.FistaLS(f, g, pl, x, { maxiter = 200, L = 0.5, errthres = 1e-12 })
  tester:assertalmosteq(sol[1], 2, 1e-6)
  tester:assertalmosteq(x[1], 2, 1e-6)
  tester:assert(#hist > 0 and hist[#hist].F <= hist[1].F)
end

function tests.configErrors()
  local x = D(X0)
  tester:assertErrorPattern(function() optim.sgd(quad, x, { learningRate = -1 }) end,
                            'optim.sgd%] learningRate must be a non%-negative number, got %-1')
  tester:assertErrorPattern(function() optim.adam(quad, x, { learningrate = 0.1 }) end,
                            "unknown config key 'learningrate' %(did you mean 'learningRate'%?%)")
  tester:assertErrorPattern(function() optim.adam(quad, x, { bta1 = 0.1 }) end, "did you mean 'beta1'")
  tester:assertErrorPattern(function() optim.adam(quad, x, { beta2 = 1 }) end, 'beta2 must be a number in %[0, 1%)')
  tester:assertErrorPattern(function() optim.sgd(quad, x, { momentum = 0.9, nesterov = true }) end, 'zero dampening')
  tester:assertErrorPattern(function() optim.sgd(quad, x, 'fast') end, 'config must be a table')
  tester:assertErrorPattern(function() optim.sgd(function() return 1, nil end, x) end, 'df/dx %(a tensor%)')
  tester:assertErrorPattern(function() optim.adam(function() return 1, D(3) end, x) end, 'df/dx has 3 elements but x has 4')
  tester:assertErrorPattern(function() optim.lbfgs(quad, x, { maxIter = 0 }) end, 'maxIter must be a positive integer')
  tester:assertErrorPattern(function() optim.sgd(quad, torch.LongTensor({ 1, 2, 3, 4 })) end, 'floating')
  tester:assertErrorPattern(function() optim.cmaes(quad, x, {}) end, 'sigma')
  -- keys of another optimizer and state keys are accepted (classic scripts share one table)
  local shared = { learningRate = 0.01, momentum = 0.9, weightDecay = 0, learningRateDecay = 0 }
  optim.adam(quad, x, shared)
  optim.sgd(quad, x, shared)
  tester:asserteq(shared.t, 1)
  tester:asserteq(shared.evalCounter, 1)
end

function tests.stateSaveRestoreContinuesBitForBit()
  for _, case in ipairs({ { 'sgd', { learningRate = 0.1, momentum = 0.9, learningRateDecay = 0.1 } },
                          { 'adam', { learningRate = 0.05, weightDecay = 0.01 } },
                          { 'rmsprop', { learningRate = 0.01 } }, { 'adagrad', { learningRate = 0.1 } },
                          { 'lbfgs', { maxIter = 3 } }, { 'nag', { learningRate = 0.05 } } }) do
    local name, config = case[1], case[2]
    local x = D(X0)
    for _ = 1, 3 do optim[name](quad, x, config) end
    local saved = torch.serialize({ x = x, config = config })
    for _ = 1, 3 do optim[name](quad, x, config) end
    local r = torch.deserialize(saved)
    for _ = 1, 3 do optim[name](quad, r.x, r.config) end
    tester:eq(r.x, x, 0, name .. ' continues bit-for-bit after a checkpoint')
  end
end

tester:add(tests)
tester:run()
