-- PyTorch's activation names still missing from pytorch_names_act.lua, as subclasses of Torch7's
-- classes where one exists: nn.Softmin(dim) (nn.SoftMin), nn.GLU(dim) (nn.GatedLinearUnit),
-- nn.Hardtanh(minVal, maxVal) (nn.HardTanh), nn.Tanhshrink (nn.TanhShrink), nn.Softsign
-- (nn.SoftSign), and nn.CELU(alpha) built on nn.functional.celu (Note [Modules and autograd]).
-- Dims are 1-based, negative ones count from the end (Note [PyTorch dims here]).
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.SoftMin'
require 'nn.GatedLinearUnit'
require 'nn.HardTanh'
require 'nn.TanhShrink'
require 'nn.SoftSign'
require 'nn.functional_extra'

local dim_option = P.dim_option

-- nn.Softmin([dim]): PyTorch's Softmin, softmax(-x) over Tocha's 1-based dim (without one, the
-- class dim Torch7's SoftMin picks).
do
  local name = 'nn.Softmin'
  local cls, parent = torch.class(name, 'nn.SoftMin')
  function cls:__init(...)
    parent.__init(self)
    self.dim = dim_option(name, P.parse(name, { 'dim' }, ...).dim)
  end
  local function sdim(self, input)
    if self.dim == nil then return nn.utils.softmaxDim(self, input) end
    nn.utils.checkFloatInput(self, input)
    return P.dim(name, self.dim, input:dim())
  end
  function cls:updateOutput(input)
    self.output = torch.softmax(torch.neg(input), sdim(self, input))
    return self.output
  end
  -- -y * (gradOutput - sum(gradOutput * y))
  function cls:updateGradInput(input, gradOutput)
    local y, d = self.output, sdim(self, input)
    local s = torch.sum(torch.cmul(gradOutput, y), d)
    self.gradInput = torch.cmul(torch.csub(s:expandAs(y), gradOutput), y)
    return self.gradInput
  end
  function cls:__tostring__() return self.dim and string.format('nn.Softmin(dim=%d)', self.dim) or 'nn.Softmin' end
end

-- nn.GLU([dim = -1]): PyTorch's GLU, a * sigmoid(b) with a, b the halves of the input along dim.
do
  local name = 'nn.GLU'
  local cls, parent = torch.class(name, 'nn.GatedLinearUnit')
  function cls:__init(...)
    parent.__init(self)
    self.glu_dim = dim_option(name, P.parse(name, { 'dim' }, ...).dim, -1)
  end
  function cls:_halves(input)
    nn.utils.checkFloatInput(self, input)
    self.dim = P.dim(name, self.glu_dim, math.max(input:dim(), 1))
    return parent._halves(self, input)
  end
  function cls:__tostring__() return string.format('nn.GLU(dim=%d)', self.glu_dim) end
end

-- nn.Hardtanh([minVal = -1, maxVal = 1, inplace = false]): PyTorch's Hardtanh (Torch7's HardTanh).
do
  local name = 'nn.Hardtanh'
  local cls, parent = torch.class(name, 'nn.HardTanh')
  function cls:__init(...)
    local o = P.parse(name, { 'minVal', 'maxVal', 'inplace' }, ...)
    local lo, hi = P.number(name, 'minVal', o.minVal, -1), P.number(name, 'maxVal', o.maxVal, 1)
    if hi <= lo then lib.fail(name, 'maxVal (%g) must be larger than minVal (%g)', hi, lo) end
    parent.__init(self, lo, hi, P.bool(name, 'inplace', o.inplace, false))
  end
  function cls:__tostring__() return string.format('nn.Hardtanh(minVal=%g, maxVal=%g)', self.min_val, self.max_val) end
end

-- nn.Tanhshrink() and nn.Softsign(): PyTorch's names of Torch7's TanhShrink and SoftSign.
for _, spec in ipairs({ { 'nn.Tanhshrink', 'nn.TanhShrink' }, { 'nn.Softsign', 'nn.SoftSign' } }) do
  local cls, parent = torch.class(spec[1], spec[2])
  function cls:__init(...)
    P.parse(spec[1], {}, ...)
    parent.__init(self)
  end
  function cls:__tostring__() return spec[1] end
end

-- nn.CELU([alpha = 1, inplace = false]): PyTorch's CELU, max(0, x) + min(0, alpha (exp(x / alpha) -
-- 1)); forward is nn.functional.celu's recorded ops, backward autograd's.
do
  local name = 'nn.CELU'
  local cls, parent = torch.class(name, 'nn.Module')
  function cls:__init(...)
    parent.__init(self)
    local o = P.parse(name, { 'alpha', 'inplace' }, ...)
    self.alpha = P.number(name, 'alpha', o.alpha, 1)
    if self.alpha == 0 then lib.fail(name, 'alpha must not be 0') end
    P.bool(name, 'inplace', o.inplace, false)
  end
  function cls:updateOutput(input)
    nn.utils.checkFloatInput(self, input)
    self.output = nn.functional.celu(input, self.alpha)
    return self.output
  end
  function cls:__tostring__() return string.format('nn.CELU(alpha=%g)', self.alpha) end
end

return nn.GLU
