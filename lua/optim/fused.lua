-- FFI wrappers of the fused optimizer kernels (bindings/tocha_optim.h): one C call updates a
-- whole parameter tensor and its state; both optimizer APIs go through these.
local lib = require 'torch.lib'
local C, check = lib.C, lib.check

local fused = {}

local function p(t) return t and t.p or nil end
local function flag(b) return b and 1 or 0 end

function fused.sgd(x, g, buf, lr, mom, damp, wd, nesterov, first, lrs, wds)
  check(C.tocha_optim_sgd_step(x.p, g.p, p(buf), lr, mom, damp, wd, flag(nesterov), flag(first), p(lrs), p(wds)))
end

function fused.adam(x, g, m, v, vmax, step, lr, beta1, beta2, eps, wd, decoupled, eps_mode)
  check(C.tocha_optim_adam_step(x.p, g.p, m.p, v.p, p(vmax), step, lr, beta1, beta2, eps, wd, flag(decoupled),
                                eps_mode))
end

function fused.adamax(x, g, m, u, step, lr, beta1, beta2, eps, wd)
  check(C.tocha_optim_adamax_step(x.p, g.p, m.p, u.p, step, lr, beta1, beta2, eps, wd))
end

function fused.rmsprop(x, g, sq, ga, buf, lr, alpha, eps, wd, mom)
  check(C.tocha_optim_rmsprop_step(x.p, g.p, sq.p, p(ga), p(buf), lr, alpha, eps, wd, mom))
end

function fused.adagrad(x, g, sum, lr, eps, wd)
  check(C.tocha_optim_adagrad_step(x.p, g.p, sum.p, lr, eps, wd))
end

function fused.adadelta(x, g, sq, acc, lr, rho, eps, wd)
  check(C.tocha_optim_adadelta_step(x.p, g.p, sq.p, acc.p, lr, rho, eps, wd))
end

function fused.rprop(x, g, prev, steps, etaplus, etaminus, step_min, step_max)
  check(C.tocha_optim_rprop_step(x.p, g.p, prev.p, steps.p, etaplus, etaminus, step_min, step_max))
end

-- fused.batch(fn, ...): calls fn(...) with this thread's CUDA updates queued and launched
-- together when it returns, several per kernel (Note [Multi-tensor optimizer steps],
-- core/ops/optim_batch.cpp); an error from fn is raised after the queued updates are launched.
--- fused.flush(): launches the updates queued so far inside fused.batch (before an update it
--- cannot queue, such as a plain p:add, on tensors the queued ones may share).
function fused.flush() check(C.tocha_optim_batch_flush()) end

function fused.batch(fn, ...)
  C.tocha_optim_batch_begin()
  local ok, err = pcall(fn, ...)
  local launched = C.tocha_optim_batch_end()
  if not ok then error(err, 0) end
  check(launched)
end

-- Note [Optimizer state dtype]: state buffers take the parameter's type, except for f16/bf16
-- parameters, whose state is kept in float (the kernels compute in float anyway, and moments
-- rounded to half precision every step would drift).
function fused.buffer(t)
  local ty = t:type()
  local b = torch.zerosLike(t)
  -- :to keeps the device (t:float() would move a CudaHalfTensor's state to the CPU).
  if ty:find('Half') or ty:find('BFloat16') then b = b:to('torch.FloatTensor') end
  return b
end

return fused
