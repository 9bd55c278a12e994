-- More of PyTorch 1.13's module names on Tocha's classes: nn.Hardshrink, nn.Softshrink (on Torch7's
-- HardShrink/SoftShrink), nn.LocalResponseNorm, nn.CrossMapLRN2d (on nn.SpatialCrossMapLRN),
-- nn.Dropout1d (on nn.TemporalDropout), nn.AlphaDropout, nn.FeatureAlphaDropout and nn.NLLLoss2d
-- (PyTorch's deprecated alias of nn.NLLLoss). Arguments are PyTorch's, positional or as a trailing
-- camelCase options table (nn/pytorch_names_args.lua).
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.HardShrink'
require 'nn.SoftShrink'
require 'nn.SpatialCrossMapLRN'
require 'nn.TemporalDropout'
require 'nn.pytorch_names_loss'

-- nn.Hardshrink([lambd = 0.5]) and nn.Softshrink([lambd = 0.5]): PyTorch's names (and argument
-- `lambd`, kept in m.lambd as well as Torch7's m.lambda) of nn.HardShrink and nn.SoftShrink.
for _, spec in ipairs({ { 'nn.Hardshrink', 'nn.HardShrink' }, { 'nn.Softshrink', 'nn.SoftShrink' } }) do
  local name = spec[1]
  local cls, parent = torch.class(name, spec[2])
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'lambd' }, ...)
    local l = P.number(name, 'lambd', o.lambd, 0.5)
    if l < 0 then lib.fail(name, 'lambd must be non-negative, got %g', l) end
    parent.__init(self, l)
    self.lambd = l
  end
  cls.__tostring__ = function(self) return string.format('%s(%g)', name, self.lambda) end
end

-- nn.LocalResponseNorm(size [, alpha = 1e-4, beta = 0.75, k = 1]): PyTorch's LRN across channels of
-- an N x C x ... input (3 dims or more: a 3-D input is N x C x L, not Torch7's C x H x W).
-- nn.CrossMapLRN2d(size [, alpha = 1e-4, beta = 0.75, k = 1]): PyTorch's legacy name, 4-D input only.
-- Note [CrossMapLRN2d's window]: PyTorch 1.13's CrossMapLRN2d (torch/nn/_functions.py, a port of
-- Torch7's SpatialCrossMapLRN) slides its window with an off-by-one test (`if c > pre_pad`, Torch7's
-- 1-based `c > prePad` kept for a 0-based c): channel 2 (0-based) sums channels 0..3 and channel 0 is
-- never taken out again, so its outputs differ from LocalResponseNorm's and its backward fails
-- gradcheck. Here it computes Torch7's (and LocalResponseNorm's) window, which it was meant to.
for _, spec in ipairs({ { 'nn.LocalResponseNorm', 3, math.huge }, { 'nn.CrossMapLRN2d', 4, 4 } }) do
  local name, lo, hi = spec[1], spec[2], spec[3]
  local cls, parent = torch.class(name, 'nn.SpatialCrossMapLRN')
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'size', 'alpha', 'beta', 'k' }, ...)
    parent.__init(self, P.int(name, 'size', o.size), P.number(name, 'alpha', o.alpha, 1e-4),
      P.number(name, 'beta', o.beta, 0.75), P.number(name, 'k', o.k, 1))
  end
  cls.updateOutput = function(self, input)
    nn.utils.checkFloatInput(self, input)
    if input:dim() < lo or input:dim() > hi then
      lib.fail(name, 'expected %s input, got %s', hi == lo and 'a 4D (N x C x H x W)' or 'an N x C x ... (3D or more)',
        nn.utils.describe(input))
    end
    self.output = nn.functional.localResponseNorm(input, self.size, self.alpha, self.beta, self.k)
    return self.output
  end
  cls.__tostring__ = function(self)
    return string.format('%s(%d, alpha=%g, beta=%g, k=%g)', name, self.size, self.alpha, self.beta, self.k)
  end
end

-- nn.Dropout1d([p = 0.5, inplace = false]): PyTorch's channel dropout of N x C x L (or C x L)
-- inputs: whole channels zeroed with probability p, the rest scaled by 1 / (1 - p) while training.
do
  local name = 'nn.Dropout1d'
  local cls, parent = torch.class(name, 'nn.TemporalDropout')
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'p', 'inplace' }, ...)
    P.bool(name, 'inplace', o.inplace, false)
    parent.__init(self, P.number(name, 'p', o.p, 0.5), false, true)
  end
end

-- Note [Alpha dropout modules]: nn.AlphaDropout and nn.FeatureAlphaDropout apply PyTorch's formula
-- (Note [Alpha dropout], nn/functional_extra.lua): y = x * (keep * a) + alpha a (keep - 1 + p). The
-- mask is drawn in updateOutput and kept (m.noise = keep * a), so Torch7's separate backward uses
-- the forward's mask (a module differentiated by replaying its forward would draw another). In
-- evaluation mode (m:evaluate()/m:eval()) and for p = 0 the module is the identity.
local SELU_ALPHA = 1.7580993408473766
for _, spec in ipairs({ { 'nn.AlphaDropout', false }, { 'nn.FeatureAlphaDropout', true } }) do
  local name, feature = spec[1], spec[2]
  local cls, parent = torch.class(name, 'nn.Module')
  cls.__init = function(self, ...)
    parent.__init(self)
    local o = P.parse(name, { 'p', 'inplace' }, ...)
    P.bool(name, 'inplace', o.inplace, false)
    self.p = P.number(name, 'p', o.p, 0.5)
    if self.p < 0 or self.p > 1 then lib.fail(name, 'dropout probability has to be between 0 and 1, got %g', self.p) end
    self.noise = torch.Tensor()
  end
  local function active(self) return self.train ~= false and self.p > 0 end
  cls.updateOutput = function(self, input)
    nn.utils.checkFloatInput(self, input)
    if feature and input:dim() < 2 then
      lib.fail(name, 'expected an input of 2 dims or more (N x C x ...), got %s', nn.utils.describe(input))
    end
    if not active(self) then
      self.output = nn.utils.buffer(self.output, input):resizeAs(input):copy(input)
      return self.output
    end
    local shape = input:size()
    if feature then for d = 3, input:dim() do shape[d] = 1 end end
    if self.noise:type() ~= input:type() then self.noise = input.new() end
    local keep = self.noise:resize(shape):bernoulli(1 - self.p)
    local a = self.p < 1 and 1 / math.sqrt((SELU_ALPHA * SELU_ALPHA * self.p + 1) * (1 - self.p)) or 0
    local shift = torch.add(keep, -1 + self.p):mul(SELU_ALPHA * a)
    keep:mul(a)
    self.output = torch.add(torch.cmul(input, keep:expandAs(input)), shift:expandAs(input))
    return self.output
  end
  cls.updateGradInput = function(self, input, gradOutput)
    if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
      lib.fail(name, 'expected a gradOutput of the input\'s size, got %s', nn.utils.describe(gradOutput))
    end
    if not active(self) then
      self.gradInput = nn.utils.buffer(self.gradInput, gradOutput):resizeAs(gradOutput):copy(gradOutput)
    else
      self.gradInput = torch.cmul(gradOutput, self.noise:expandAs(gradOutput))
    end
    return self.gradInput
  end
  cls.clearState = function(self)
    self.noise:set()
    return parent.clearState(self)
  end
  cls.__tostring__ = function(self) return string.format('%s(%g)', name, self.p) end
end

-- nn.NLLLoss2d([weight, sizeAverage, ignoreIndex = -100, reduce, reduction = 'mean']): PyTorch's
-- deprecated alias of nn.NLLLoss (which takes N x C x H x W input and N x H x W 1-based targets too).
do
  local name = 'nn.NLLLoss2d'
  local cls, parent = torch.class(name, 'nn.NLLLoss')
  cls.__init = function(self, ...)
    local o = P.parse(name, { 'weight', 'sizeAverage', 'ignoreIndex', 'reduce', 'reduction' }, ...)
    -- the parent's argument errors, named after this class
    local ok, err = pcall(parent.__init, self, o)
    if not ok then error((tostring(err):gsub('%[nn%.NLLLoss%]', '[' .. name .. ']')), 2) end
  end
  cls.__tostring__ = function(self) return (parent.__tostring__(self):gsub('^nn%.NLLLoss', name, 1)) end
end

return nn.AlphaDropout
