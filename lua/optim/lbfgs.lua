-- optim.lbfgs: Torch7's limited-memory BFGS (after minFunc), with a fixed step or a line search
-- (optim.lswolfe); the curvature history lives in the state table across calls.
local cfg = require 'optim.config'

cfg.register('lbfgs', {
  maxIter = 'count', maxEval = 'positive', tolFun = 'nonneg', tolX = 'nonneg', nCorrection = 'count',
  lineSearch = 'function', lineSearchOptions = 'table', learningRate = 'nonneg', verbose = 'boolean',
}, { 'funcEval', 'nIter', 'd', 't', 'old_dirs', 'old_stps', 'Hdiag', 'g_old', 'f_old', 'tmp1', 'dir_bufs',
     'stp_bufs', 'ro', 'al' })

-- The L-BFGS direction -H*g from the history (two-loop recursion).
local function direction(g, d, old_dirs, old_stps, Hdiag)
  local k = #old_dirs
  local ro, al = {}, {}
  for i = 1, k do ro[i] = 1 / old_stps[i]:dot(old_dirs[i]) end
  local q = g:clone():mul(-1)
  for i = k, 1, -1 do
    al[i] = old_dirs[i]:dot(q) * ro[i]
    q:add(-al[i], old_stps[i])
  end
  d:copy(q):mul(Hdiag)
  for i = 1, k do
    local be_i = old_stps[i]:dot(d) * ro[i]
    d:add(al[i] - be_i, old_dirs[i])
  end
  return d
end

--- optim.lbfgs(opfunc, x[, config][, state]): minimizes with L-BFGS from x (updated in place).
--- Config (Torch7's): maxIter (20), maxEval (maxIter*1.25), tolFun (1e-5, on sum |g|), tolX
--- (1e-9, on step and f changes), nCorrection (100, history size), lineSearch (a function such as
--- optim.lswolfe; else fixed steps of learningRate), lineSearchOptions, learningRate (1), verbose.
--- Returns x*, {f values: f[1] before, f[#f] last}, number of evaluations.
--- Example: local x = torch.Tensor{1, 2}; optim.lbfgs(function(x) return x:dot(x), x * 2 end, x, {maxIter = 5})
function optim.lbfgs(opfunc, x, config, state)
  config, state = cfg.check('lbfgs', config, state)
  local maxIter = tonumber(config.maxIter) or 20
  local maxEval = tonumber(config.maxEval) or maxIter * 1.25
  local tolFun = config.tolFun or 1e-5
  local tolX = config.tolX or 1e-9
  local nCorrection = config.nCorrection or 100
  local lineSearch = config.lineSearch
  local lineSearchOpts = config.lineSearchOptions
  local learningRate = config.learningRate or 1
  local isverbose = config.verbose or false
  local function verbose(...) if isverbose then print('<optim.lbfgs> ', ...) end end
  state.funcEval = state.funcEval or 0
  state.nIter = state.nIter or 0

  local f, g = cfg.evaluate('lbfgs', opfunc, x)
  f, g = cfg.number(f), g:clone()  -- opfunc may hand back the same gradient tensor at every call
  local f_hist = { f }
  local currentFuncEval = 1
  state.funcEval = state.funcEval + 1

  if g:norm(1) <= tolFun then
    verbose('optimality condition below tolFun')
    return x, f_hist, currentFuncEval
  end

  local d, t = state.d, state.t
  local old_dirs, old_stps = state.old_dirs, state.old_stps
  local Hdiag, g_old, f_old = state.Hdiag, state.g_old, state.f_old

  local nIter = 0
  while nIter < maxIter do
    nIter = nIter + 1
    state.nIter = state.nIter + 1

    -- descent direction
    if state.nIter == 1 then
      d = g:clone():mul(-1)
      old_dirs, old_stps, Hdiag = {}, {}, 1
    else
      local y = g:clone():add(-1, g_old)  -- g - g_old
      local s = d:clone():mul(t)           -- the last step
      local ys = y:dot(s)
      if ys > 1e-10 then
        if #old_dirs == nCorrection then  -- limited memory: forget the oldest pair
          table.remove(old_dirs, 1)
          table.remove(old_stps, 1)
        end
        old_dirs[#old_dirs + 1] = s
        old_stps[#old_stps + 1] = y
        Hdiag = ys / y:dot(y)
      end
      direction(g, d, old_dirs, old_stps, Hdiag)
    end
    g_old = g_old or g:clone()
    g_old:copy(g)
    f_old = f

    -- step length
    local gtd = g:dot(d)
    if gtd > -tolX then break end  -- no progress possible along d
    if state.nIter == 1 then t = math.min(1, 1 / g:norm(1)) * learningRate else t = learningRate end

    local lsFuncEval = 0
    if lineSearch then
      local gn
      f, gn, x, t, lsFuncEval = lineSearch(opfunc, x, t, d, f, g, gtd, lineSearchOpts)
      f, g = cfg.number(f), gn:clone()
      f_hist[#f_hist + 1] = f
    else
      x:add(t, d)
      if nIter ~= maxIter then
        -- re-evaluate only if another iteration follows (in a stochastic setting the last
        -- evaluation would be wasted)
        local gn
        f, gn = opfunc(x)
        f, g = cfg.number(f), gn:clone()
        lsFuncEval = 1
        f_hist[#f_hist + 1] = f
      end
    end
    currentFuncEval = currentFuncEval + lsFuncEval
    state.funcEval = state.funcEval + lsFuncEval

    -- stopping conditions
    if nIter == maxIter then verbose('reached max number of iterations') break end
    if currentFuncEval >= maxEval then verbose('max nb of function evals') break end
    if g:norm(1) <= tolFun then verbose('optimality condition below tolFun') break end
    if d:norm(1) * math.abs(t) <= tolX then verbose('step size below tolX') break end
    if math.abs(f - f_old) < tolX then verbose('function value changing less than tolX') break end
  end

  state.old_dirs, state.old_stps, state.Hdiag = old_dirs, old_stps, Hdiag
  state.g_old, state.f_old, state.t, state.d = g_old, f_old, t, d
  return x, f_hist, currentFuncEval
end
