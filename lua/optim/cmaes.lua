-- optim.cmaes: Covariance Matrix Adaptation Evolution Strategy (Hansen's barecmaes2, as ported in
-- Torch7's optim.cmaes): a derivative-free minimizer that samples lambda candidates per iteration.
local cfg = require 'optim.config'
local lib = require 'torch.lib'

cfg.register('cmaes', {
  sigma = 'positive', maxEval = 'positive', ftarget = 'number', popsize = 'count', verb_disp = 'nonneg',
  min_iterations = 'count',
}, {})

--- optim.cmaes(opfunc, x[, config][, state]): minimizes opfunc (only f(x) is used) by CMA-ES
--- from the mean x. Config: sigma (required: initial step size per coordinate), maxEval
--- (1e3*N^2), ftarget (stop when f < ftarget), popsize (4 + floor(3 log N)), verb_disp (0: quiet,
--- else print every verb_disp iterations), min_iterations (1). x is not modified. Returns the best
--- point found (shaped like x), {f(x), best f per iteration..., best f}, number of evaluations.
--- Example: optim.cmaes(function(x) return x:dot(x) end, torch.Tensor{1, 2}, {sigma = 0.5, maxEval = 200})
function optim.cmaes(opfunc, x, config, state)
  config, state = cfg.check('cmaes', config, state)
  local function opt(k) if config[k] ~= nil then return config[k] end return state[k] end
  if not torch.isTensor(x) or not (x:type():find('Float') or x:type():find('Double')) then
    lib.fail('optim.cmaes', 'x must be a FloatTensor or DoubleTensor, got %s', torch.typename(x) or type(x))
  end
  local sigma = opt('sigma')
  if not sigma then lib.fail('optim.cmaes', 'config.sigma (the initial step size) is required') end
  local xmean = x:clone():view(-1):double()
  local N = xmean:size(1)
  local ftarget = opt('ftarget')
  local maxEval = tonumber(opt('maxEval')) or 1e3 * N ^ 2
  local verb_disp = opt('verb_disp') or 0
  local min_iterations = opt('min_iterations') or 1
  local lambda = opt('popsize') or 4 + math.floor(3 * math.log(N))
  -- lambda/2 parents are recombined: one candidate leaves none (an empty weight vector).
  if N == 0 then lib.fail('optim.cmaes', 'x must have at least one element') end
  if lambda < 2 then lib.fail('optim.cmaes', 'popsize must be at least 2, got %s', tostring(lambda)) end

  -- Selection: mu parents with log-decreasing weights.
  local mu_f = lambda / 2
  local mu = math.floor(mu_f)
  local weights = torch.DoubleTensor(mu)
  for i = 1, mu do weights[i] = math.log(mu_f + 0.5) - math.log(i) end
  weights:div(weights:sum())
  local mueff = weights:sum() ^ 2 / weights:dot(weights)
  -- Adaptation constants.
  local cc = (4 + mueff / N) / (N + 4 + 2 * mueff / N)
  local cs = (mueff + 2) / (N + mueff + 5)
  local c1 = 2 / ((N + 1.3) ^ 2 + mueff)
  local cmu = math.min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((N + 2) ^ 2 + mueff))
  local damps = 2 * mueff / lambda + 0.3 + cs

  local pc, ps = torch.zeros(N):double(), torch.zeros(N):double()
  local B, D, C = torch.eye(N):double(), torch.ones(N):double(), torch.eye(N):double()
  local invsqrtC = torch.eye(N):double()
  local eigeneval, counteval, iteration = 0, 0, 0
  local f_hist = { cfg.number(opfunc(x)) }
  local fitvals = torch.DoubleTensor(lambda)
  local candidates = torch.DoubleTensor(lambda, N)
  local best_x, best_f = nil, nil

  local function ask()
    if counteval - eigeneval > lambda / (c1 + cmu) / N / 10 then  -- O(N^3) only every few iterations
      eigeneval = counteval
      C = torch.triu(C) + torch.triu(C, 1):t()
      D, B = torch.symeig(C, 'V')
      D = torch.sqrt(D:clamp(0, math.huge))
      invsqrtC = B * torch.diag(torch.cdiv(torch.ones(N):double(), D)) * B:t()
    end
    for k = 1, lambda do
      local z = torch.randn(N):double():cmul(D)
      candidates[k]:copy(xmean):add(sigma, B * z)
    end
  end

  local function tell()
    counteval = counteval + lambda
    local xold = xmean:clone()
    local sorted, order = torch.sort(fitvals)
    fitvals = sorted
    local arx = candidates:index(1, order[{ { 1, mu } }])
    f_hist[#f_hist + 1] = fitvals[1]
    if best_f == nil or fitvals[1] < best_f then best_x, best_f = arx[1]:clone(), fitvals[1] end
    xmean:zero():addmv(arx:t(), weights)
    -- cumulation: evolution paths
    local y = xmean - xold
    local z = invsqrtC * y
    ps:mul(1 - cs):add(math.sqrt(cs * (2 - cs) * mueff) / sigma, z)
    local hsig = (ps:dot(ps) / (1 - (1 - cs) ^ (2 * counteval / lambda)) / N < 2 + 4 / (N + 1)) and 1 or 0
    pc:mul(1 - cc):add(math.sqrt(cc * (2 - cc) * mueff) / sigma * hsig, y)
    -- covariance: rank-one and rank-mu updates
    local c1a = c1 - (1 - hsig ^ 2) * c1 * cc * (2 - cc)
    local artmp = (arx - xold:view(1, N):expand(mu, N)) / sigma
    local Cmu = artmp:t() * torch.diag(weights) * artmp
    C:mul(1 - c1a - cmu):add(c1, torch.ger(pc, pc)):add(cmu, Cmu)
    -- step size
    sigma = sigma * math.exp(math.min(0.6, (cs / damps) * (ps:dot(ps) / N - 1) / 2))
  end

  local function stop()
    if counteval == 0 then return nil end
    if counteval >= maxEval then return 'evals' end
    if ftarget and fitvals[1] <= ftarget then return 'ftarget' end
    if D:max() > 1e7 * D:min() then return 'condition' end
    if fitvals[lambda] - fitvals[1] < 1e-12 then return 'tolfun' end
    if sigma * D:max() < 1e-11 then return 'tolx' end
    return nil
  end

  while not stop() or iteration < min_iterations do
    iteration = iteration + 1
    ask()
    for i = 1, lambda do fitvals[i] = cfg.number(opfunc(candidates[i]:clone():typeAs(x):viewAs(x))) end
    tell()
    if verb_disp > 0 and (iteration <= 2 or iteration % verb_disp == 0) then
      print(string.format('%d: %6.1f %8.1e %s', counteval, D:max() / D:min(), sigma * math.sqrt(C:diag():max()),
                          tostring(fitvals[1])))
    end
  end
  if verb_disp > 0 then print('termination by ' .. tostring(stop()) .. ', best f-value = ' .. tostring(best_f)) end
  f_hist[#f_hist + 1] = best_f
  return best_x:typeAs(x):viewAs(x), f_hist, counteval
end
