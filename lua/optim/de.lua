-- optim.de: differential evolution (DE/best/1/bin), a derivative-free global minimizer over a box,
-- as in Torch7's optim.de (seeded with its own generator, so runs are reproducible).
local cfg = require 'optim.config'
local lib = require 'torch.lib'

cfg.register('de', {
  popsize = 'count', scaleFactor = 'nonneg', crossoverRate = 'unitclosed', maxFEs = 'count', maxRegion = 'number',
  minRegion = 'number', seed = 'number',
}, {})

--- optim.de(opfunc, x[, config]): minimizes opfunc (only f(x) is used) by differential evolution
--- over the box [minRegion, maxRegion]^D, D = x:nElement(). Config: popsize (10*D), scaleFactor
--- (0.5), crossoverRate (0.9), maxFEs (required: evaluation budget), maxRegion (30), minRegion
--- (-30), seed (1). Returns the best point (shaped like x) and a tensor of every evaluated f.
--- Torch7 tracked the worst member as its "best"; Tocha tracks the lowest f. Torch7 also forced
--- the crossover of every coordinate of member jrand (i == jrand) where DE forces coordinate jrand
--- of every member (j == jrand), and could overrun maxFEs by up to popsize - 1 evaluations.
--- Example: optim.de(function(x) return x:dot(x) end, torch.Tensor(2), {maxFEs = 400, popsize = 20})
function optim.de(opfunc, x, config)
  config = cfg.check('de', config)
  local D = x:nElement()
  local popsize = config.popsize or 10 * D
  local F = config.scaleFactor or 0.5
  local CR = config.crossoverRate or 0.9
  local maxFEs = config.maxFEs
  if not maxFEs then lib.fail('optim.de', 'config.maxFEs (the evaluation budget) is required') end
  if popsize < 3 then lib.fail('optim.de', 'popsize must be at least 3, got %d', popsize) end
  local maxRegion, minRegion = config.maxRegion or 30, config.minRegion or -30

  local gen = torch.Generator()
  torch.manualSeed(gen, config.seed or 1)
  local pop = x.new(popsize, D):uniform(gen, minRegion, maxRegion)
  local children = x.new(popsize, D)
  local fitness, child_fitness = {}, {}
  local fx, fes = {}, 0
  local function eval(v)
    fes = fes + 1
    local f = cfg.number(opfunc(v:viewAs(x)))
    fx[fes] = f
    return f
  end
  for i = 1, popsize do fitness[i] = eval(pop[i]) end
  local best_i = 1
  for i = 2, popsize do if fitness[i] < fitness[best_i] then best_i = i end end
  local best, best_f = pop[best_i]:clone(), fitness[best_i]

  while fes + popsize <= maxFEs do
    for i = 1, popsize do
      local r1, r2
      repeat r1 = torch.random(gen, 1, popsize) until r1 ~= i
      repeat r2 = torch.random(gen, 1, popsize) until r2 ~= r1 and r2 ~= i
      local jrand = torch.random(gen, 1, D)
      local child, pi, p1, p2 = children[i], pop[i], pop[r1], pop[r2]
      for j = 1, D do
        if torch.uniform(gen, 0, 1) < CR or j == jrand then child[j] = best[j] + F * (p1[j] - p2[j])
        else child[j] = pi[j] end
      end
      child_fitness[i] = eval(child)
    end
    for i = 1, popsize do
      if child_fitness[i] <= fitness[i] then
        pop[i]:copy(children[i])
        fitness[i] = child_fitness[i]
        if fitness[i] < best_f then best_f = fitness[i] best:copy(children[i]) end
      end
    end
  end
  return best:viewAs(x), torch.DoubleTensor(fx)
end
