-- torch.viewAsReal and torch.viewAsComplex (PyTorch's view_as_real, view_as_complex): in Tocha
-- a complex tensor already is a real one with a trailing dim of 2 (Note [Complex values as a
-- trailing dim of 2], lua/torch/fft.lua), so both are checked views of their argument.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, describe, is_tensor = lib.fail, types.describe, types.is_tensor

-- Note [Complex views]: PyTorch's view_as_real maps a complex (...) tensor to a real (..., 2) one
-- and view_as_complex the reverse; with Tocha's layout both sides are the same (..., 2) tensor,
-- so each returns a view of its argument (sharing storage, carrying autograd like any view) after
-- checking what PyTorch checks: a floating tensor whose last dim has size 2, for viewAsComplex
-- also with stride 1 along it (the (re, im) pairs adjacent in memory) and even other strides.
local function complex_check(op, z)
  if not is_tensor(z) then fail(op, 'expected a tensor, got %s', describe(z)) end
  local t = z:type()
  if not (t:find('Float') or t:find('Double') or t:find('Half') or t == 'torch.CudaTensor') then
    fail(op, 'expected a floating tensor, got %s', describe(z))
  end
  if z:dim() < 1 or z:size(z:dim()) ~= 2 then
    fail(op, 'expected a tensor whose last dim has size 2 (real, imaginary), got %s', describe(z))
  end
  return z
end

--- torch.viewAsReal(z): the complex z (..., 2) as a real tensor: a view of z itself, since Tocha
--- stores complex values as (real, imaginary) pairs in a trailing dim of 2 (PyTorch's
--- view_as_real; Note [Complex views]). Errors for a tensor without that trailing 2.
--- Example: torch.viewAsReal(torch.complex(torch.Tensor({1, 2}), torch.Tensor({3, 4})))
function torch.viewAsReal(z)
  complex_check('viewAsReal', z)
  return (z:narrow(z:dim(), 1, 2))
end

--- torch.viewAsComplex(x): the real x (..., 2) read as complex values (real, imaginary): a view
--- of x itself (PyTorch's view_as_complex; Note [Complex views]). x's last dim must have size 2
--- and stride 1, its other strides be even, as in PyTorch.
--- Example: torch.viewAsComplex(torch.Tensor({{1, 3}, {2, 4}}))
function torch.viewAsComplex(x)
  local op = 'viewAsComplex'
  complex_check(op, x)
  if x:stride(x:dim()) ~= 1 then
    fail(op, 'the last dim must have stride 1, got stride %d: call x:contiguous() first', x:stride(x:dim()))
  end
  for d = 1, x:dim() - 1 do
    if x:stride(d) % 2 ~= 0 then
      fail(op, 'every stride but the last must be even (whole (real, imaginary) pairs), got stride %d in dim %d',
        x:stride(d), d)
    end
  end
  return (x:narrow(x:dim(), 1, 2))
end
