-- optim.FistaLS: FISTA with backtracking line search (Beck & Teboulle 2009) for f(x) + g(x) with
-- f smooth and g non-smooth through its proximal operator, as in Torch7's optim.FistaLS.
local lib = require 'torch.lib'

--- optim.FistaLS(f, g, pl, xinit[, params]): minimizes f + g from xinit. f(x, 'dx') returns f(x) and
--- its gradient, f(x) the value alone; g(x) the non-smooth value; pl(x, L) replaces x by the
--- minimizer of the proximal problem with step 1/L. Params: L (0.1), Lstep (1.5), maxiter (50),
--- maxline (20), errthres (1e-4), doFistaUpdate (true; false runs ISTA), verbose. params.L holds
--- the last L afterwards. xinit receives the solution. Returns x, history {F, Fply, Gply, L, nline, Q}.
--- Example: local x = torch.Tensor{3}; optim.FistaLS(function(x, m) return x:dot(x), x * 2 end, function(x) return 0 end, function() end, x, {maxiter = 5})
function optim.FistaLS(f, g, pl, xinit, params)
  params = params or {}
  if not torch.isTensor(xinit) then lib.fail('optim.FistaLS', 'xinit must be a tensor, got %s', type(xinit)) end
  local L = params.L or 0.1
  local Lstep = params.Lstep or 1.5
  local maxiter = params.maxiter or 50
  local maxline = params.maxline or 20
  local errthres = params.errthres or 1e-4
  local doFistaUpdate = params.doFistaUpdate
  -- Note [FISTA by default]: Torch7's documentation gives doFistaUpdate's default as true, but its
  -- code read a missing doFistaUpdate as false and ran ISTA; Tocha follows the documentation (and
  -- the method's name), so a Torch7 script that left it unset converges faster here.
  if doFistaUpdate == nil then doFistaUpdate = true end
  local verbose = params.verbose
  if not (L > 0) then lib.fail('optim.FistaLS', 'params.L must be positive, got %s', tostring(L)) end
  if not (Lstep > 1) then lib.fail('optim.FistaLS', 'params.Lstep must be > 1, got %s', tostring(Lstep)) end

  params.xkm = params.xkm or xinit.new()
  params.y = params.y or xinit.new()
  params.ply = params.ply or xinit.new()
  local xkm, y, ply = params.xkm, params.y, params.ply
  local xk = xinit
  xkm:resizeAs(xk):zero()
  ply:resizeAs(xk):zero()
  y:resizeAs(xk):zero()

  local history, niter, tk, tkp = {}, 0, 1, 0
  local fval = math.huge
  while niter < maxiter do
    local fy, gfy = f(y, 'dx')
    local fply, Q, nline, done = 0, 0, 0, false
    while not done do  -- backtracking on L
      ply:copy(y):add(-1 / L, gfy)
      pl(ply, L)
      xk:copy(ply)
      fply = f(ply)
      ply:add(-1, y)
      local Q2 = gfy:dot(ply)
      local Q3 = L / 2 * ply:dot(ply)
      Q = fy + Q2 + Q3
      if verbose then print(string.format('nline=%d L=%g fply=%g Q=%g fy=%g Q2=%g Q3=%g', nline, L, fply, Q, fy, Q2, Q3)) end
      if fply <= Q then done = true
      elseif nline >= maxline then done = true xk:copy(xkm)  -- no better point: keep the previous one
      else L = L * Lstep end
      nline = nline + 1
    end
    if doFistaUpdate then
      tkp = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
      xkm:add(-1, xk)                          -- x(k-1) - x(k)
      y:copy(xk):add((1 - tk) / tkp, xkm)      -- y(k+1) = x(k) + (1-t(k))/t(k+1) * (x(k-1) - x(k))
      xkm:copy(xk)
    else
      y:copy(xk)
    end
    tk = tkp
    fply = f(y)
    local gply = g(y)
    if verbose then print(string.format('iter=%d eold=%g enew=%g', niter, fval, fply + gply)) end
    niter = niter + 1
    fval = fply + gply
    history[niter] = { nline = nline, L = L, F = fval, Fply = fply, Gply = gply, Q = Q }
    if verbose then history[niter].xk, history[niter].y = xk:clone(), y:clone() end
    params.L = L
    if (niter > 1 and math.abs(history[niter].F - history[niter - 1].F) <= errthres) or niter >= maxiter then
      xinit:copy(y)
      return y, history
    end
  end
  xinit:copy(y)
  return y, history
end

--- optim.fista(...): the same as optim.FistaLS (FISTA with backtracking line search).
--- Example: local x = torch.Tensor{3}; optim.fista(function(x, m) return x:dot(x), x * 2 end, function(x) return 0 end, function() end, x, {maxiter = 5})
function optim.fista(...) return optim.FistaLS(...) end
