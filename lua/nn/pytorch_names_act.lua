-- PyTorch's names for softmax-like activations and attention as subclasses of Torch7's classes:
-- nn.Softmax(dim), nn.LogSoftmax(dim), nn.Softplus(beta, threshold), nn.CosineSimilarity(dim, eps),
-- nn.MultiheadAttention(embedDim, numHeads, ...).
-- Note [PyTorch dims here]: dims are Tocha's, 1-based (PyTorch's Softmax(dim=1) on N x C is
-- nn.Softmax(2)); negative dims count from the end as in PyTorch. Without a dim, Softmax and
-- LogSoftmax pick the class dim as Torch7's SoftMax does (PyTorch's legacy implicit dim: the first
-- dim of 1-D and 3-D inputs, the second otherwise).
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.SoftMax'
require 'nn.LogSoftMax'
require 'nn.SoftPlus'
require 'nn.CosineDistance'
require 'nn.MultiHeadAttention'

local dim_option = P.dim_option

local function softmax_dim(self, input)
  if self.dim == nil then return nn.utils.softmaxDim(self, input) end
  nn.utils.checkFloatInput(self, input)
  return P.dim(torch.typename(self), self.dim, input:dim())
end

-- nn.Softmax([dim]): PyTorch's Softmax over Tocha's 1-based dim (Note [PyTorch dims here]).
do
  local cls, parent = torch.class('nn.Softmax', 'nn.SoftMax')
  function cls:__init(...)
    parent.__init(self)
    local o = P.parse('nn.Softmax', { 'dim' }, ...)
    self.dim = dim_option('nn.Softmax', o.dim)
  end
  function cls:updateOutput(input)
    self.output = torch.softmax(input, softmax_dim(self, input))
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    local y, d = self.output, softmax_dim(self, input)
    local s = torch.sum(torch.cmul(gradOutput, y), d)
    self.gradInput = torch.cmul(torch.csub(gradOutput, s:expandAs(y)), y)
    return self.gradInput
  end
  function cls:__tostring__() return self.dim and string.format('nn.Softmax(dim=%d)', self.dim) or 'nn.Softmax' end
end

-- nn.LogSoftmax([dim]): PyTorch's LogSoftmax over Tocha's 1-based dim.
do
  local cls, parent = torch.class('nn.LogSoftmax', 'nn.LogSoftMax')
  function cls:__init(...)
    parent.__init(self)
    local o = P.parse('nn.LogSoftmax', { 'dim' }, ...)
    self.dim = dim_option('nn.LogSoftmax', o.dim)
  end
  function cls:updateOutput(input)
    self.output = torch.logSoftmax(input, softmax_dim(self, input))
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    local y, d = self.output, softmax_dim(self, input)
    local s = torch.sum(gradOutput, d)
    self.gradInput = torch.csub(gradOutput, torch.cmul(torch.exp(y), s:expandAs(y)))
    return self.gradInput
  end
  function cls:__tostring__()
    return self.dim and string.format('nn.LogSoftmax(dim=%d)', self.dim) or 'nn.LogSoftmax'
  end
end

-- nn.Softplus([beta = 1, threshold = 20]): PyTorch's Softplus (Torch7's SoftPlus with the same rule).
do
  local cls, parent = torch.class('nn.Softplus', 'nn.SoftPlus')
  function cls:__init(...)
    local o = P.parse('nn.Softplus', { 'beta', 'threshold' }, ...)
    local beta = P.number('nn.Softplus', 'beta', o.beta, 1)
    if beta <= 0 then lib.fail('nn.Softplus', 'expected beta > 0, got %s', tostring(beta)) end
    parent.__init(self, beta, P.number('nn.Softplus', 'threshold', o.threshold, 20))
  end
end

-- nn.CosineSimilarity([dim = 2, eps = 1e-8]): PyTorch's CosineSimilarity of input {x1, x2}
-- (broadcast) along Tocha's dim 2 by default (PyTorch's dim=1); torch.cosineSimilarity computes it
-- and autograd its gradient, where Torch7's CosineDistance handles only vectors and row batches.
do
  local name = 'nn.CosineSimilarity'
  local cls, parent = torch.class(name, 'nn.CosineDistance')
  function cls:__init(...)
    parent.__init(self)
    local o = P.parse(name, { 'dim', 'eps' }, ...)
    self.dim = dim_option(name, o.dim, 2)
    self.eps = P.number(name, 'eps', o.eps, 1e-8)
  end
  local function args(self, input)
    if type(input) ~= 'table' or torch.isTensor(input) or not torch.isTensor(input[1])
        or not torch.isTensor(input[2]) then
      lib.fail(name, 'expected a table {x1, x2} of two tensors, got %s', nn.utils.describe(input))
    end
    return input[1], input[2], P.dim(name, self.dim, math.max(input[1]:dim(), input[2]:dim()))
  end
  function cls:updateOutput(input)
    local a, b, d = args(self, input)
    self.output = torch.noGrad(function() return torch.cosineSimilarity(a, b, d, self.eps) end)
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    local a, b, d = args(self, input)
    a, b = a:detach():requiresGrad(), b:detach():requiresGrad()
    local g = torch.enableGrad(function()
      return torch.autograd.grad({ torch.cosineSimilarity(a, b, d, self.eps) }, { a, b }, { gradOutput })
    end)
    self.gradInput = { g[1], g[2] }
    return self.gradInput
  end
  function cls:__tostring__() return string.format('nn.CosineSimilarity(dim=%d, eps=%g)', self.dim, self.eps) end
end

-- nn.MultiheadAttention(embedDim, numHeads [, dropout = 0, bias = true, addBiasKv = false,
-- addZeroAttn = false, kdim, vdim, batchFirst = false]): PyTorch's spelling of Tocha's
-- nn.MultiHeadAttention (same parameters, state dict and forward; addBiasKv and addZeroAttn as
-- Note [Attention extra keys] in nn/MultiHeadAttention.lua says).
do
  local name = 'nn.MultiheadAttention'
  local cls, parent = torch.class(name, 'nn.MultiHeadAttention')
  function cls:__init(...)
    local o = P.parse(name, { 'embedDim', 'numHeads', 'dropout', 'bias', 'addBiasKv', 'addZeroAttn', 'kdim', 'vdim',
      'batchFirst' }, ...)
    parent.__init(self, o.embedDim, o.numHeads, { dropout = o.dropout, bias = o.bias, kdim = o.kdim, vdim = o.vdim,
      batchFirst = o.batchFirst, addBiasKv = P.bool(name, 'addBiasKv', o.addBiasKv, false),
      addZeroAttn = P.bool(name, 'addZeroAttn', o.addZeroAttn, false) })
  end
  function cls:__tostring__() return (parent.__tostring__(self):gsub('^nn%.MultiHeadAttention', name, 1)) end
end

return nn.Softmax
