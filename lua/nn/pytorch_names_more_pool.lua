-- PyTorch's pooling and sliding-window modules missing from pytorch_names_pool.lua:
-- nn.AdaptiveAvgPool3d, nn.AdaptiveMaxPool3d, nn.LPPool1d/2d, nn.Fold and nn.Unfold. Forward is the
-- nn.functional op of the same name (recorded ops), backward autograd's (Note [Modules and
-- autograd]); arguments are PyTorch's, positionals or a trailing camelCase options table.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.functional_fold'
require 'nn.functional_more'
local F = nn.functional

-- A module class on nn.Module whose forward is f(self, input).
local function define(name, names, init, f, show)
  local cls, parent = torch.class(name, 'nn.Module')
  cls.__init = function(self, ...)
    parent.__init(self)
    init(self, P.parse(name, names, ...))
  end
  cls.updateOutput = function(self, input)
    if not torch.isTensor(input) then lib.fail(name, 'expected a tensor input, got %s', nn.utils.describe(input)) end
    nn.utils.checkFloatInput(self, input)
    self.output = f(self, input)
    return self.output
  end
  cls.__tostring__ = function(self) return name .. '(' .. show(self) .. ')' end
  return cls
end

local function list(t) return '{' .. table.concat(t, ', ') .. '}' end

-- Note [None in 3-D adaptive sizes]: as AdaptiveAvgPool2d's (Note [None in adaptive output
-- sizes]), an entry nil or false in {d, h, w} keeps the input's size there (the last one must be
-- false: Lua does not see a trailing nil).
local function size3(name, v)
  if type(v) == 'number' then return P.tuple(name, 'outputSize', v, 3) end
  if type(v) ~= 'table' or torch.isTensor(v) then
    lib.fail(name, 'expected outputSize as a number or {d, h, w}, got %s', nn.utils.describe(v))
  end
  local t = {}
  for k in pairs(v) do
    if k ~= 1 and k ~= 2 and k ~= 3 then lib.fail(name, 'expected outputSize as {d, h, w}, got a key %s', tostring(k)) end
  end
  if v[3] == nil then
    lib.fail(name, 'expected outputSize as {d, h, w} (keep the last size with false: a trailing nil is not seen)')
  end
  for d = 1, 3 do
    if v[d] == nil or v[d] == false then t[d] = false else t[d] = P.int(name, 'outputSize', v[d]) end
  end
  return t
end
local function show3(t)
  local s = {}
  for d = 1, 3 do s[d] = t[d] and tostring(t[d]) or 'None' end
  return list(s)
end

-- nn.AdaptiveAvgPool3d(outputSize): PyTorch's, on C x D x H x W or N x C x D x H x W inputs.
define('nn.AdaptiveAvgPool3d', { 'outputSize' },
  function(self, o) self.outputSize = size3('nn.AdaptiveAvgPool3d', o.outputSize) end,
  function(self, x) return F.adaptiveAvgPool3d(x, self.outputSize) end,
  function(self) return show3(self.outputSize) end)

-- nn.AdaptiveMaxPool3d(outputSize [, returnIndices = false]): PyTorch's; with returnIndices forward
-- gives {output, indices}, the indices the 1-based flat positions in D*H*W (Note [returnIndices on
-- PyTorch-named pools]). Note [Indices output of autograd pools]: the module is differentiated by
-- autograd, whose Torch7-style backward wants a gradOutput shaped like the output: {gradOutput}
-- (or {gradOutput, anything}) with returnIndices, not the bare tensor the Torch7-style pools take.
do
  local name = 'nn.AdaptiveMaxPool3d'
  define(name, { 'outputSize', 'returnIndices' },
    function(self, o)
      self.outputSize = size3(name, o.outputSize)
      self.returnIndices = P.bool(name, 'returnIndices', o.returnIndices, false) or nil
    end,
    function(self, x)
      if not self.returnIndices then return F.adaptiveMaxPool3d(x, self.outputSize) end
      local y, idx = F.adaptiveMaxPool3d(x, self.outputSize, true)
      self.indices = idx
      return { y, idx }
    end,
    function(self) return show3(self.outputSize) .. (self.returnIndices and ', returnIndices' or '') end)
end

-- nn.LPPool1d(normType, kernelSize [, stride = kernelSize, ceilMode = false]) and nn.LPPool2d:
-- PyTorch's power-average pools ((sum over the window of x^p)^(1/p)).
for nd = 1, 2 do
  local name = 'nn.LPPool' .. nd .. 'd'
  define(name, { 'normType', 'kernelSize', 'stride', 'ceilMode' },
    function(self, o)
      self.normType = P.number(name, 'normType', o.normType)
      if self.normType == nil or not (self.normType > 0 and self.normType < math.huge) then
        lib.fail(name, 'expected normType, a positive finite number, got %s', tostring(o.normType))
      end
      self.kernelSize = P.tuple(name, 'kernelSize', o.kernelSize, nd)
      self.stride = P.tuple(name, 'stride', o.stride, nd, self.kernelSize)
      self.ceilMode = P.bool(name, 'ceilMode', o.ceilMode, false)
    end,
    function(self, x)
      local f = nd == 1 and F.lpPool1d or F.lpPool2d
      local k = nd == 1 and self.kernelSize[1] or self.kernelSize
      local s = nd == 1 and self.stride[1] or self.stride
      return f(x, self.normType, k, s, self.ceilMode)
    end,
    function(self)
      return string.format('normType=%g, kernelSize=%s, stride=%s', self.normType, list(self.kernelSize), list(self.stride))
    end)
end

local function window_opts(name, o)
  return { dilation = P.tuple(name, 'dilation', o.dilation, 2, 1), padding = P.tuple(name, 'padding', o.padding, 2, 0, 0),
           stride = P.tuple(name, 'stride', o.stride, 2, 1) }
end
local function show_window(self)
  return string.format('kernelSize=%s, dilation=%s, padding=%s, stride=%s', list(self.kernelSize),
    list(self.opts.dilation), list(self.opts.padding), list(self.opts.stride))
end

-- nn.Unfold(kernelSize [, dilation = 1, padding = 0, stride = 1]): PyTorch's Unfold (im2col):
-- N x C x H x W -> N x (C*kh*kw) x L.
define('nn.Unfold', { 'kernelSize', 'dilation', 'padding', 'stride' },
  function(self, o)
    self.kernelSize = P.tuple('nn.Unfold', 'kernelSize', o.kernelSize, 2)
    self.opts = window_opts('nn.Unfold', o)
  end,
  function(self, x) return F.unfold(x, self.kernelSize, self.opts) end,
  show_window)

-- nn.Fold(outputSize, kernelSize [, dilation = 1, padding = 0, stride = 1]): PyTorch's Fold
-- (col2im): N x (C*kh*kw) x L -> N x C x H x W, overlapping windows summed.
define('nn.Fold', { 'outputSize', 'kernelSize', 'dilation', 'padding', 'stride' },
  function(self, o)
    self.outputSize = P.tuple('nn.Fold', 'outputSize', o.outputSize, 2)
    self.kernelSize = P.tuple('nn.Fold', 'kernelSize', o.kernelSize, 2)
    self.opts = window_opts('nn.Fold', o)
  end,
  function(self, x) return F.fold(x, self.outputSize, self.kernelSize, self.opts) end,
  function(self) return 'outputSize=' .. list(self.outputSize) .. ', ' .. show_window(self) end)

return nn.Fold
