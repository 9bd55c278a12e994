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
