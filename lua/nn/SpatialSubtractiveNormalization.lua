-- nn.SpatialSubtractiveNormalization([nInputPlane = 1] [, kernel = 9x9 ones]): Torch7's local mean
-- removal of C x H x W or N x C x H x W inputs: the kernel-weighted mean over a neighbourhood and
-- every plane is subtracted from each plane. Near the borders the zero padding is compensated by
-- dividing by the same filter applied to ones (Torch7's `coef`). Kernel: 2D, or 1D applied along
-- both axes (separably); odd sizes. Built on differentiable ops (Note [Modules and autograd]). Also
-- owns the kernel helpers nn.SpatialDivisiveNormalization shares.
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local SSN, parent = torch.class('nn.SpatialSubtractiveNormalization', 'nn.Module')

--- SSN._checkKernel(name, nInputPlane, kernel): checks a normalization's arguments (errors at the
--- user's line); returns nInputPlane and the kernel (defaults applied).
function SSN._checkKernel(name, nInputPlane, kernel)
  nInputPlane = nInputPlane or 1
  if not S.isint(nInputPlane) or nInputPlane < 1 then
    F.init_error(name, 'nInputPlane must be an integer >= 1, got %s', type(nInputPlane) == 'number'
      and tostring(nInputPlane) or S.describe(nInputPlane))
  end
  kernel = kernel or torch.Tensor(9, 9):fill(1)
  if not torch.isTensor(kernel) or (kernel:dim() ~= 1 and kernel:dim() ~= 2) or not nn.utils.isFloating(kernel) then
    F.init_error(name, 'averaging kernel must be a 2D or 1D floating-point tensor, got %s', S.describe(kernel))
  end
  if kernel:size(1) % 2 == 0 or (kernel:dim() == 2 and kernel:size(2) % 2 == 0) then
    F.init_error(name, 'averaging kernel must have ODD dimensions, got size %s', S.sizestr(kernel))
  end
  if kernel:sum() == 0 then F.init_error(name, 'averaging kernel must not sum to 0') end
  return nInputPlane, kernel
end

--- SSN._filter(m, x, kernel): the kernel-weighted sums over every plane of x (N x C x H x W) around
--- each position, with zero padding: N x 1 x H x W. A 1D kernel k acts as the 2D kernel k k^T (Torch7
--- ran it as two 1D convolutions).
function SSN._filter(m, x, kernel)
  local k = kernel
  if k:type() ~= x:type() then k = k:type(x:type()) end
  if k:dim() == 1 then k = torch.ger(k, k) end
  local kh, kw = k:size(1), k:size(2)
  local w = k:contiguous():view(1, 1, kh, kw):expand(1, x:size(2), kh, kw):contiguous()
  return torch.conv2d(x, w, nil, 1, { math.floor(kh / 2), math.floor(kw / 2) })
end

--- SSN._name(m): the module with its configuration, for errors (these modules print as Torch7's
--- did: their class name).
function SSN._name(m)
  local s = string.format('%s(%d, kernel %s', torch.type(m), m.nInputPlane, S.sizestr(m.kernel))
  if m.threshold then s = s .. string.format(', threshold %g, thresval %g', m.threshold, m.thresval) end
  return s .. ')'
end

--- SSN._input(m, input): input as N x C x H x W after checking it (C = m.nInputPlane).
function SSN._input(m, input)
  local C = m.nInputPlane
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) or input:size(input:dim() - 2) ~= C
      or not nn.utils.isFloating(input) then
    S.fail(SSN._name(m), 'expected a 3D (%d x H x W) or 4D (N x %d x H x W) floating-point input, got %s', C, C,
      S.describe(input))
  end
  return input:dim() == 3 and input:unsqueeze(1) or input
end

--- SSN._coef(m, x, input): the filter applied to ones of x's plane size (1 x 1 x H x W), cached in
--- m._coef1; m.coef is it expanded to the input's size, as Torch7 kept it.
function SSN._coef(m, x, input)
  local c = m._coef1
  local H, W = x:size(3), x:size(4)
  if not (torch.isTensor(c) and c:type() == x:type() and c:device() == x:device() and c:dim() == 4
      and c:size(3) == H and c:size(4) == W) then
    c = torch.noGrad(SSN._filter, m, x.new(1, x:size(2), H, W):fill(1), m.kernel)
    m._coef1 = c
  end
  m.coef = input:dim() == 3 and c[1]:expand(input:size()) or c:expand(input:size())
  return c
end

function SSN:__init(nInputPlane, kernel)
  parent.__init(self)
  self.nInputPlane, kernel = SSN._checkKernel('nn.SpatialSubtractiveNormalization', nInputPlane, kernel)
  -- Torch7 divided the caller's kernel in place; here a copy is normalized
  self.kernel = kernel:clone():div(kernel:sum() * self.nInputPlane)
end

function SSN:updateOutput(input)
  local x = SSN._input(self, input)
  local mean = torch.cdiv(SSN._filter(self, x, self.kernel), SSN._coef(self, x, input))
  self.output = torch.csub(x, mean):viewAs(input)
  return self.output
end

-- coef is a view of the cached _coef1 (which Module:clearState empties).
function SSN:clearState() return parent.clearState(self, 'coef') end

return SSN
