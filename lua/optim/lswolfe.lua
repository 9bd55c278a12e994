-- optim.lswolfe: a line search satisfying the strong Wolfe conditions (minFunc's WolfeLineSearch
-- with cubic interpolation), used by optim.lbfgs's lineSearch.
local lib = require 'torch.lib'
local cfg = require 'optim.config'

-- Position (1 or 2) of the lower function value in a bracket; the first on ties.
local function lo_pos(fv) return (#fv == 1 or fv[1] <= fv[2]) and 1 or 2 end

--- optim.lswolfe(opfunc, x, t, d, f, g, gtd[, options]): searches along d from x for a step t
--- satisfying the strong Wolfe conditions; f, g and gtd are f(x), df/dx and g.d. Options: c1
--- (1e-4, sufficient decrease), c2 (0.9, curvature), tolX (1e-9), maxIter (20), verbose. x ends at
--- x + t*d. Returns f(x+t*d), g(x+t*d), x, t, the number of evaluations.
--- Example: local x = torch.Tensor{1}; local g = x * 2; optim.lswolfe(function(x) return x:dot(x), x * 2 end, x, 1, -g, x:dot(x), g, -g:dot(g))
function optim.lswolfe(opfunc, x, t, d, f, g, gtd, options)
  options = options or {}
  if type(options) ~= 'table' then lib.fail('optim.lswolfe', 'options must be a table, got %s', type(options)) end
  cfg.checkX('lswolfe', x)
  if not torch.isTensor(d) then lib.fail('optim.lswolfe', 'd must be a tensor, got %s', type(d)) end
  if not torch.isTensor(g) then lib.fail('optim.lswolfe', 'g must be a tensor, got %s', type(g)) end
  f, gtd = cfg.number(f), cfg.number(gtd)  -- a loss may come as a one-element tensor
  cfg.validate('optim.lswolfe', 't', 'number', t)
  if type(f) ~= 'number' then lib.fail('optim.lswolfe', 'f must be a number, got %s', type(f)) end
  cfg.validate('optim.lswolfe', 'gtd', 'number', gtd)
  for key, kind in pairs({ c1 = 'unit', c2 = 'unit', tolX = 'nonneg', maxIter = 'count' }) do
    if options[key] ~= nil then cfg.validate('optim.lswolfe', 'options.' .. key, kind, options[key]) end
  end
  local c1 = options.c1 or 1e-4
  local c2 = options.c2 or 0.9
  local tolX = options.tolX or 1e-9
  local maxIter = options.maxIter or 20
  local isverbose = options.verbose or false
  local abs, min, max = math.abs, math.min, math.max
  local function verbose(...) if isverbose then print('<optim.lswolfe> ', ...) end end

  local x_init = x:clone()
  local function try(step)
    x:copy(x_init):add(step, d)
    local fn, gn = opfunc(x)
    return cfg.number(fn), gn:clone(), gn:dot(d)
  end

  local f_new, g_new, gtd_new = try(t)
  local lsFuncEval = 1

  -- Bracketing phase: find an interval containing a point satisfying the Wolfe conditions.
  local LSiter, t_prev, done = 0, 0, false
  local f_prev, g_prev, gtd_prev = f, g:clone(), gtd
  local bracket, bracketF, bracketG
  while LSiter < maxIter do
    if f_new > f + c1 * t * gtd or (LSiter > 1 and f_new >= f_prev) then
      bracket, bracketF, bracketG = { t_prev, t }, { f_prev, f_new }, { g_prev, g_new }
      break
    elseif abs(gtd_new) <= -c2 * gtd then
      bracket, bracketF, bracketG = { t }, { f_new }, { g_new }
      done = true
      break
    elseif gtd_new >= 0 then
      bracket, bracketF, bracketG = { t_prev, t }, { f_prev, f_new }, { g_prev, g_new }
      break
    end
    -- extrapolate with a cubic through the last two points
    local tmp = t_prev
    t_prev = t
    local minStep, maxStep = t + 0.01 * (t - tmp), t * 10
    t = optim.polyinterp({ { tmp, f_prev, gtd_prev }, { t, f_new, gtd_new } }, minStep, maxStep)
    f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
    f_new, g_new, gtd_new = try(t)
    lsFuncEval = lsFuncEval + 1
    LSiter = LSiter + 1
  end
  if LSiter == maxIter then
    bracket, bracketF, bracketG = { 0, t }, { f, f_new }, { g:clone(), g_new }
  end

  -- Zoom phase: shrink the bracket until a point satisfies the conditions.
  local insufProgress = false
  while not done and LSiter < maxIter do
    local LOpos = lo_pos(bracketF)
    local HIpos = 3 - LOpos
    t = optim.polyinterp({ { bracket[1], bracketF[1], bracketG[1]:dot(d) },
                           { bracket[2], bracketF[2], bracketG[2]:dot(d) } })
    local bmax, bmin = max(bracket[1], bracket[2]), min(bracket[1], bracket[2])
    -- make sure the new point is not too close to the bracket's ends
    if min(bmax - t, t - bmin) / (bmax - bmin) < 0.1 then
      if insufProgress or t >= bmax or t <= bmin then
        if abs(t - bmax) < abs(t - bmin) then t = bmax - 0.1 * (bmax - bmin)
        else t = bmin + 0.1 * (bmax - bmin) end
        insufProgress = false
      else
        insufProgress = true
      end
    else
      insufProgress = false
    end
    f_new, g_new, gtd_new = try(t)
    lsFuncEval = lsFuncEval + 1
    LSiter = LSiter + 1
    if f_new > f + c1 * t * gtd or f_new >= bracketF[LOpos] then
      -- Armijo condition not satisfied, or not lower than the lowest point
      bracket[HIpos], bracketF[HIpos], bracketG[HIpos] = t, f_new, g_new
    else
      if abs(gtd_new) <= -c2 * gtd then
        done = true  -- Wolfe conditions satisfied
      elseif gtd_new * (bracket[HIpos] - bracket[LOpos]) >= 0 then
        -- the old high point becomes the new low point
        bracket[HIpos], bracketF[HIpos], bracketG[HIpos] = bracket[LOpos], bracketF[LOpos], bracketG[LOpos]
      end
      bracket[LOpos], bracketF[LOpos], bracketG[LOpos] = t, f_new, g_new
    end
    if not done and abs((bracket[1] - bracket[2]) * gtd_new) < tolX then break end
  end
  if LSiter == maxIter then verbose('reached max number of iterations') end

  local LOpos = lo_pos(bracketF)
  t, f_new, g_new = bracket[LOpos], bracketF[LOpos], bracketG[LOpos]
  x:copy(x_init):add(t, d)
  return f_new, g_new, x, t, lsFuncEval
end

-- Note [PyTorch's strong Wolfe search]: torch.optim.LBFGS(line_search_fn='strong_wolfe') runs
-- _strong_wolfe, a port of this minFunc search that differs in four places: the extrapolation
-- takes the two-point cubic's minimum clamped to [t + 0.01 (t - t_prev), 10 t] (optim.polyinterp
-- with bounds fits the general polynomial and compares candidates), the search stops after 25
-- evaluations (20 here), the zoom stops when the bracket times max|d| is below 1e-9 (checked
-- before each trial, where this checks |bracket * gtd_new| after it), and its bracket keeps the
-- low/high positions it last set. optim.LBFGS takes PyTorch's option name, so its 'strong_wolfe'
-- is this port (its trajectory matches PyTorch 1.13's); optim.lbfgs keeps Torch7's optim.lswolfe.

-- PyTorch 1.13's _cubic_interpolate: the minimum of the cubic through two points with values and
-- derivatives, clamped to [lo, hi] (default: the points' range).
local function cubic(x1, f1, g1, x2, f2, g2, lo, hi)
  if not lo then lo, hi = math.min(x1, x2), math.max(x1, x2) end
  local d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
  local d2sq = d1 * d1 - g1 * g2
  if d2sq < 0 then return (lo + hi) / 2 end
  local d2, m = math.sqrt(d2sq)
  if x1 <= x2 then m = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
  else m = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2)) end
  return math.min(math.max(m, lo), hi)
end

--- optim._strongWolfe(opfunc, x, t, d, f, g, gtd): PyTorch 1.13's strong Wolfe line search
--- (c1 = 1e-4, c2 = 0.9, at most 25 evaluations), with optim.lswolfe's arguments and returns;
--- optim.LBFGS's lineSearchFn = 'strong_wolfe' (Note [PyTorch's strong Wolfe search]).
--- Example: local x = torch.Tensor{1}; local g = x * 2; optim._strongWolfe(function(x) return x:dot(x), x * 2 end, x, 1, -g, x:dot(x), g, -g:dot(g))
function optim._strongWolfe(opfunc, x, t, d, f, g, gtd)
  local c1, c2, tol, max_ls = 1e-4, 0.9, 1e-9, 25
  local abs, min, max = math.abs, math.min, math.max
  local d_norm = torch.abs(d):max()
  local x_init = x:clone()
  local function try(step)
    x:copy(x_init):add(step, d)
    local fn, gn = opfunc(x)
    return cfg.number(fn), gn:clone(), gn:dot(d)
  end
  local f_new, g_new, gtd_new = try(t)
  local evals, ls_iter, done = 1, 0, false
  local t_prev, f_prev, g_prev, gtd_prev = 0, f, g:clone(), gtd
  local br, bf, bg, bgtd
  while ls_iter < max_ls do
    if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev) then
      br, bf, bg, bgtd = { t_prev, t }, { f_prev, f_new }, { g_prev, g_new }, { gtd_prev, gtd_new }
      break
    end
    if abs(gtd_new) <= -c2 * gtd then
      br, bf, bg, done = { t }, { f_new }, { g_new }, true
      break
    end
    if gtd_new >= 0 then
      br, bf, bg, bgtd = { t_prev, t }, { f_prev, f_new }, { g_prev, g_new }, { gtd_prev, gtd_new }
      break
    end
    local tmp = t
    t = cubic(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, t + 0.01 * (t - t_prev), t * 10)
    t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
    f_new, g_new, gtd_new = try(t)
    evals, ls_iter = evals + 1, ls_iter + 1
  end
  if ls_iter == max_ls then br, bf, bg, bgtd = { 0, t }, { f, f_new }, { g, g_new }, { gtd, gtd_new } end

  local insuf = false
  local lo, hi = 1, 2
  if bf[1] > bf[#bf] then lo, hi = 2, 1 end
  while not done and ls_iter < max_ls do
    if abs(br[2] - br[1]) * d_norm < tol then break end
    t = cubic(br[1], bf[1], bgtd[1], br[2], bf[2], bgtd[2])
    local bmax, bmin = max(br[1], br[2]), min(br[1], br[2])
    local eps = 0.1 * (bmax - bmin)
    if min(bmax - t, t - bmin) < eps then
      if insuf or t >= bmax or t <= bmin then
        t = abs(t - bmax) < abs(t - bmin) and bmax - eps or bmin + eps
        insuf = false
      else
        insuf = true
      end
    else
      insuf = false
    end
    f_new, g_new, gtd_new = try(t)
    evals, ls_iter = evals + 1, ls_iter + 1
    if f_new > f + c1 * t * gtd or f_new >= bf[lo] then
      br[hi], bf[hi], bg[hi], bgtd[hi] = t, f_new, g_new, gtd_new
      if bf[1] <= bf[2] then lo, hi = 1, 2 else lo, hi = 2, 1 end
    else
      if abs(gtd_new) <= -c2 * gtd then
        done = true
      elseif gtd_new * (br[hi] - br[lo]) >= 0 then
        br[hi], bf[hi], bg[hi], bgtd[hi] = br[lo], bf[lo], bg[lo], bgtd[lo]
      end
      br[lo], bf[lo], bg[lo], bgtd[lo] = t, f_new, g_new, gtd_new
    end
  end
  t = br[lo]
  x:copy(x_init):add(t, d)
  return bf[lo], bg[lo], x, t, evals
end
