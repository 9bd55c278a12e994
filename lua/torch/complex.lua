-- Complex numbers as real tensors with a trailing dim of 2 (Note [Complex values as a trailing
-- dim of 2], lua/torch/fft.lua): building them (torch.complex, torch.polar), their parts and the
-- arithmetic torch.fft results need, all from existing ops, so they are differentiable and run on
-- every device. Operands broadcast as PyTorch's complex ops do.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, describe, is_tensor = lib.fail, types.describe, types.is_tensor

local function shape(x) return types.shape_str(x.p) end

-- Note [Complex parts are floating]: PyTorch has no integer complex dtype (its torch.complex and
-- torch.polar refuse Long parts), and integer pairs give wrong answers here (the conjugate of a
-- ByteTensor {1, 2} was {1, 254}), so parts and complex operands must be floating tensors (Half,
-- Float, Double; BFloat16 too, which PyTorch refuses only for want of a complex-bf16 dtype).
local function real_arg(op, x, what)
  if not is_tensor(x) then fail(op, 'expected a tensor as %s, got %s', what, describe(x)) end
  if not torch.isFloatingPoint(x) then
    fail(op, 'expected a floating tensor as %s, got %s: convert it with :double() or :float()', what, describe(x))
  end
  return x
end

local function complex_arg(op, z, what)
  if not is_tensor(z) then fail(op, 'expected a tensor as %s, got %s', what, describe(z)) end
  if z:dim() < 1 or z:size(z:dim()) ~= 2 then
    fail(op, 'expected a complex tensor as %s: a real tensor whose last dim has size 2 (real, imaginary), got %s; '
      .. 'torch.complex(re, im) makes one', what, describe(z))
  end
  if not torch.isFloatingPoint(z) then
    fail(op, 'expected a complex tensor as %s of a floating type, got %s: convert it with :double() or :float()',
      what, describe(z))
  end
  return z
end

-- Note [Complex operands broadcast]: torch.cmul also takes Torch7's same-element-count rule where
-- shapes don't broadcast (a 2x3 times a 3x2 gave a 2x3), which PyTorch's complex ops refuse; so
-- operands are expanded to their broadcast shape first, and shapes that don't broadcast are an
-- error naming the op. `complex` says the sizes are those of the complex views (without the 2).
local function broadcast(op, a, b, what, complex)
  if a:isSameSizeAs(b) then return a, b end
  if not pcall(torch.broadcastShapes, a:size(), b:size()) then
    local da, db = a:dim(), b:dim()
    if complex then a, b = a:select(da, 1), b:select(db, 1) end
    fail(op, '%s do not broadcast: %ssizes %s and %s', what, complex and 'complex ' or '', shape(a), shape(b))
  end
  local t = torch.broadcastTensors(a, b)
  return t[1], t[2]
end

-- re and im (of one shape) stacked along a new last dim.
local function pack(re, im)
  return torch.stack({ re, im }, re:dim() + 1)
end

-- Both parts floating, of one type (PyTorch's torch.complex and torch.polar), broadcast.
local function parts(op, a, b, na, nb)
  real_arg(op, a, na)
  real_arg(op, b, nb)
  if a:type() ~= b:type() then
    fail(op, '%s and %s must have one type, got %s and %s', na, nb, describe(a), describe(b))
  end
  return broadcast(op, a, b, na .. ' and ' .. nb)
end

--- torch.complex(re, im): the complex tensor (..., 2) with real parts re and imaginary parts im
--- (floating tensors of one type, broadcast to one size; PyTorch's
--- torch.view_as_real(torch.complex(re, im))). Differentiable.
--- Example: torch.complex(torch.Tensor({1, 2}), torch.Tensor({0, -1}))
function torch.complex(re, im)
  return (pack(parts('complex', re, im, 're', 'im')))
end

--- torch.polar(abs, angle): the complex tensor (..., 2) abs * (cos(angle), sin(angle)), of
--- floating abs and angle of one type, broadcast to one size (as PyTorch's). Differentiable.
--- Example: torch.polar(torch.Tensor({2}), torch.Tensor({math.pi / 2}))
function torch.polar(abs, angle)
  abs, angle = parts('polar', abs, angle, 'abs', 'angle')
  return (pack(torch.cmul(abs, torch.cos(angle)), torch.cmul(abs, torch.sin(angle))))
end

--- torch.real(z): the real parts of the complex z (..., 2), a view of size (...).
--- Example: torch.real(torch.complex(torch.Tensor({1, 2}), torch.Tensor({3, 4})))
function torch.real(z)
  complex_arg('real', z, 'z')
  return (z:select(z:dim(), 1))
end

--- torch.imag(z): the imaginary parts of the complex z (..., 2), a view of size (...).
--- Example: torch.imag(torch.complex(torch.Tensor({1, 2}), torch.Tensor({3, 4})))
function torch.imag(z)
  complex_arg('imag', z, 'z')
  return (z:select(z:dim(), 2))
end

-- Note [Gradients at z = 0]: hypot's and atan2's gradients are 0/0 (NaN) at z = 0, where PyTorch's
-- abs and angle of a complex tensor have 0 (its sgn(0) = 0): a spectrum of a silent stretch has
-- exact zeros. So f runs on z with each 0 replaced by 1 + 0i and the result takes `at_zero` there
-- (no gradient flows through either branch at those entries).
local function nonzero_apply(f, z, at_zero)
  local re, im = z:select(z:dim(), 1), z:select(z:dim(), 2)
  local zero = torch.eq(re, 0):cmul(torch.eq(im, 0))
  return torch.where(zero, at_zero, f(torch.where(zero, 1, re), im))
end

--- torch.complexAbs(z): |z| = sqrt(re^2 + im^2) of the complex z (..., 2), of size (...)
--- (PyTorch's torch.abs of a complex tensor). Differentiable (gradient 0 at z = 0, as PyTorch's).
--- Example: torch.complexAbs(torch.complex(torch.Tensor({3}), torch.Tensor({4})))
function torch.complexAbs(z)
  complex_arg('complexAbs', z, 'z')
  return (nonzero_apply(torch.hypot, z, 0))
end

--- torch.complexAngle(z): the argument atan2(im, re) of the complex z (..., 2), in (-pi, pi]
--- (PyTorch's torch.angle of a complex tensor). Differentiable (gradient 0 at z = 0, as PyTorch's).
--- Example: torch.complexAngle(torch.complex(torch.Tensor({0}), torch.Tensor({1})))
function torch.complexAngle(z)
  complex_arg('complexAngle', z, 'z')
  -- at z = 0 the value keeps atan2's signed zeros (pi for -0 + 0i, as PyTorch's)
  local at_zero = torch.atan2(z:select(z:dim(), 2):detach(), z:select(z:dim(), 1):detach())
  return (nonzero_apply(function(re, im) return torch.atan2(im, re) end, z, at_zero))
end

--- torch.complexMul(a, b): the complex product of a and b (..., 2), broadcasting their complex
--- views. Differentiable.
--- Example: torch.complexMul(torch.Tensor({0, 1}), torch.Tensor({0, 1}))
function torch.complexMul(a, b)
  complex_arg('complexMul', a, 'a')
  complex_arg('complexMul', b, 'b')
  a, b = broadcast('complexMul', a, b, 'a and b', true)
  local ar, ai = a:select(a:dim(), 1), a:select(a:dim(), 2)
  local br, bi = b:select(b:dim(), 1), b:select(b:dim(), 2)
  return (pack(torch.cmul(ar, br) - torch.cmul(ai, bi), torch.cmul(ar, bi) + torch.cmul(ai, br)))
end

--- torch.complexConj(z): the complex conjugate of z (..., 2): the imaginary parts negated.
--- Example: torch.complexConj(torch.complex(torch.Tensor({1}), torch.Tensor({2})))
function torch.complexConj(z)
  complex_arg('complexConj', z, 'z')
  local last = z:dim()
  return (torch.stack({ z:select(last, 1), -z:select(last, 2) }, last))
end
