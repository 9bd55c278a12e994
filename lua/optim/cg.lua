-- optim.cg: nonlinear conjugate gradient (Polack-Ribiere) with Carl Rasmussen's line search,
-- a rewrite of minimize.m as in Torch7's optim.cg.
local cfg = require 'optim.config'

cfg.register('cg', {
  rho = 'nonneg', sig = 'nonneg', int = 'nonneg', ext = 'nonneg', maxIter = 'count', ratio = 'nonneg',
  maxEval = 'positive', verbose = 'any',
}, { 'df0', 'df1', 'df2', 'df3', 's', 'x0' })

local function bad(z) return z ~= z or z == math.huge or z == -math.huge end

--- optim.cg(opfunc, x[, config][, state]): minimizes with conjugate gradients from x (in place),
--- counting function evaluations. Config: rho (0.01) and sig (0.5) (Wolfe-Powell constants),
--- int (0.1, interpolation limit), ext (3, extrapolation limit), maxIter (20, evaluations per
--- line search), ratio (100, maximum slope ratio), maxEval (maxIter*1.25). Returns x*, {f values}
--- (f[1] before, then after each line search), number of evaluations. A failed line search is
--- retried once along -g (minimize.m; Torch7's copy stopped at the first failure).
--- Example: local x = torch.Tensor{1, 2}; optim.cg(function(x) return x:dot(x), x * 2 end, x)
function optim.cg(opfunc, x, config, state)
  config, state = cfg.check('cg', config, state)
  cfg.checkX('cg', x)  -- before its buffers are made in state
  local rho = config.rho or 0.01
  local sig = config.sig or 0.5
  local int = config.int or 0.1
  local ext = config.ext or 3.0
  local maxIter = config.maxIter or 20
  local ratio = config.ratio or 100
  local maxEval = config.maxEval or maxIter * 1.25
  local red = 1

  local i, ls_failed = 0, false
  local fx = {}
  local z1, z2, z3, d1, d2, d3, f1, f2, f3 = 0, 0, 0, 0, 0, 0, 0, 0, 0
  local function buf(name)
    state[name] = state[name] or x.new()
    return state[name]:resizeAs(x)
  end
  local df0, df1, df2, df3, s, x0 = buf('df0'), buf('df1'), buf('df2'), buf('df3'), buf('s'), buf('x0')
  local f0 = 0
  local tdf

  local function eval()
    local f, g = cfg.evaluate('cg', opfunc, x)
    i = i + 1
    return cfg.number(f), g
  end

  f1, tdf = eval()
  fx[#fx + 1] = f1
  df1:copy(tdf)
  s:copy(df1):mul(-1)       -- initial search direction: steepest descent
  d1 = -s:dot(s)            -- slope
  z1 = red / (1 - d1)       -- initial step

  while i < math.abs(maxEval) do
    x0:copy(x)
    f0 = f1
    df0:copy(df1)
    x:add(z1, s)
    f2, tdf = eval()
    df2:copy(tdf)
    d2 = df2:dot(s)
    f3, d3, z3 = f1, d1, -z1  -- point 3 starts equal to point 1
    local m = math.min(maxIter, maxEval - i)
    local success, limit = false, -1

    while true do
      while (f2 > f1 + z1 * rho * d1 or d2 > -sig * d1) and m > 0 do
        limit = z1  -- tighten the bracket
        if f2 > f1 then
          z2 = z3 - (0.5 * d3 * z3 * z3) / (d3 * z3 + f2 - f3)  -- quadratic fit
        else
          local A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)           -- cubic fit
          local B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
          z2 = (math.sqrt(B * B - A * d2 * z3 * z3) - B) / A
        end
        if bad(z2) then z2 = z3 / 2 end
        z2 = math.max(math.min(z2, int * z3), (1 - int) * z3)
        z1 = z1 + z2
        x:add(z2, s)
        f2, tdf = eval()
        df2:copy(tdf)
        m = m - 1
        d2 = df2:dot(s)
        z3 = z3 - z2
      end
      if f2 > f1 + z1 * rho * d1 or d2 > -sig * d1 then break  -- failure
      elseif d2 > sig * d1 then success = true break
      elseif m == 0 then break end
      local A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)  -- cubic extrapolation
      local B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
      z2 = -d2 * z3 * z3 / (B + math.sqrt(B * B - A * d2 * z3 * z3))
      if bad(z2) or z2 < 0 then
        if limit < -0.5 then z2 = z1 * (ext - 1) else z2 = (limit - z1) / 2 end
      elseif limit > -0.5 and z2 + z1 > limit then z2 = (limit - z1) / 2
      elseif limit < -0.5 and z2 + z1 > z1 * ext then z2 = z1 * (ext - 1)
      elseif z2 < -z3 * int then z2 = -z3 * int
      elseif limit > -0.5 and z2 < (limit - z1) * (1 - int) then z2 = (limit - z1) * (1 - int) end
      f3, d3, z3 = f2, d2, -z2
      z1 = z1 + z2
      x:add(z2, s)
      f2, tdf = eval()
      df2:copy(tdf)
      m = m - 1
      d2 = df2:dot(s)
    end

    if success then
      f1 = f2
      fx[#fx + 1] = f1
      local ss = (df2:dot(df2) - df2:dot(df1)) / df1:dot(df1)  -- Polack-Ribiere
      s:mul(ss):add(-1, df2)
      df3:copy(df1) df1:copy(df2) df2:copy(df3)  -- swap
      d2 = df1:dot(s)
      if d2 > 0 then  -- not a descent direction: use steepest descent
        s:copy(df1):mul(-1)
        d2 = -s:dot(s)
      end
      z1 = z1 * math.min(ratio, d1 / (d2 - 1e-320))
      d1 = d2
      ls_failed = false
    else
      x:copy(x0)  -- restore the point of the last success
      f1 = f0
      df1:copy(df0)
      if ls_failed or i > maxEval then break end  -- two failures in a row, or out of evaluations
      df3:copy(df1) df1:copy(df2) df2:copy(df3)
      s:copy(df1):mul(-1)
      d1 = -s:dot(s)
      z1 = 1 / (1 - d1)
      ls_failed = true
    end
  end
  return x, fx, i
end
