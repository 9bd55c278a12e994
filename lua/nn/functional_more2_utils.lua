-- torch.nn.init's and torch.nn.utils' remaining PyTorch 1.13 names: the trailing-underscore init
-- and clip names (the same functions), nn.utils.weightNorm / removeWeightNorm over nn.WeightNorm,
-- fuseConvBnWeights / fuseConvBnEval, and nn.utils.rnn's invertPermutation, unpadSequence,
-- unpackSequence and PackedSequence.
require 'nn.init_weights'
require 'nn.init_more'
require 'nn.clip_grad'
require 'nn.utils_rnn'
require 'nn.WeightNorm'
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local utils, init, rnn = nn.utils, nn.init, nn.utils.rnn

-- Note [Underscore aliases]: PyTorch's in-place init and clip functions end in '_' (xavier_uniform_);
-- Tocha's work in place without it (DESIGN: `x:f_()` is an accepted alias of `x:f()`), so the
-- underscore names are the same function objects, documented by their originals.
for _, n in ipairs({ 'uniform', 'normal', 'constant', 'zeros', 'ones', 'xavierUniform', 'xavierNormal',
                     'kaimingUniform', 'kaimingNormal', 'orthogonal', 'truncNormal', 'sparse', 'dirac', 'eye' }) do
  if init[n] and not init[n .. '_'] then init[n .. '_'] = init[n] end
end
utils.clipGradNorm_ = utils.clipGradNorm_ or utils.clipGradNorm
utils.clipGradValue_ = utils.clipGradValue_ or utils.clipGradValue
rnn.PackedSequence = rnn.PackedSequence or nn.PackedSequence

--- nn.utils.weightNorm(module [, name = 'weight'] [, dim = 1]): module wrapped in nn.WeightNorm:
--- weight = g * v / ||v||, the norm taken per slice along dim (1-based: PyTorch's dim 0; negative
--- from the end). Use the module it returns, as PyTorch's m = weight_norm(m). PyTorch's dim=None
--- (one norm for the whole weight) is not supported.
--- Example: local m = nn.utils.weightNorm(nn.Linear(4, 3)); print(m:forward(torch.randn(2, 4)))
function utils.weightNorm(module, name, dim)
  local op = 'nn.utils.weightNorm'
  if not torch.isTypeOf(module, 'nn.Module') or not torch.isTensor(module.weight) then
    lib.fail(op, 'expected a module with a weight, got %s', describe(module))
  end
  if name ~= nil and name ~= 'weight' then
    lib.fail(op, "only the parameter 'weight' can be normalized, got %s", describe(name))
  end
  -- Note [One reparametrization per weight]: the inner wrapper (nn.WeightNorm, nn.SpectralNorm) or
  -- the pruning / parametrization rewrites the weight at each forward after this wrapper wrote it,
  -- so g and v had no effect, silently; PyTorch refuses a second weight_norm of a parameter.
  if torch.isTypeOf(module, 'nn.WeightNorm') or torch.isTypeOf(module, 'nn.SpectralNorm')
     or require('nn.parametrize_core').entry(module, 'weight') then
    lib.fail(op, 'the weight of %s is already reparametrized (weight norm, spectral norm, pruning or a parametrization)',
      torch.typename(module))
  end
  if dim == nil then dim = 1 end
  if type(dim) ~= 'number' or dim % 1 ~= 0 then
    lib.fail(op, 'dim must be an integer (1-based), got %s', describe(dim))
  end
  local n = module.weight:dim()
  if dim < 0 then dim = dim + n + 1 end
  if dim < 1 or dim > n then lib.fail(op, 'dim %d out of range for a %d-D weight', dim, n) end
  return nn.WeightNorm(module, dim)
end

-- The plain module of a wrapper, its weight fixed to g * v / ||v||.
local function unwrap(wn)
  local m = wn.modules[1]
  torch.noGrad(function()
    local scale = torch.cdiv(wn.g:view(-1, 1), wn:_norms())
    local w = torch.cmul(wn.v, scale:expandAs(wn.v))
    m.weight:copy(wn:_permuteOut(w:view(wn:_permuteIn(m.weight):size())))
  end)
  nn.utils.linkGradients(m)
  return m
end

--- nn.utils.removeWeightNorm(module [, name = 'weight']): undoes weightNorm: for an nn.WeightNorm,
--- the wrapped module with a plain weight equal to g * v / ||v||; for a container, the same container
--- with every nn.WeightNorm inside it replaced so. A module without one is an error (as PyTorch).
--- Example: local m = nn.utils.removeWeightNorm(nn.utils.weightNorm(nn.Linear(4, 3)))
function utils.removeWeightNorm(module, name)
  local op = 'nn.utils.removeWeightNorm'
  if not torch.isTypeOf(module, 'nn.Module') then lib.fail(op, 'expected a module, got %s', describe(module)) end
  if name ~= nil and name ~= 'weight' then
    lib.fail(op, "only 'weight' is normalized by weightNorm, got %s", describe(name))
  end
  if torch.isTypeOf(module, 'nn.WeightNorm') then return unwrap(module) end
  local found = false
  local function walk(m)
    if type(m.modules) ~= 'table' then return end
    for i, c in ipairs(m.modules) do
      if torch.isTypeOf(c, 'nn.WeightNorm') then
        m.modules[i] = unwrap(c)
        if m.module == c then m.module = m.modules[i] end
        found = true
      else
        walk(c)
      end
    end
  end
  walk(module)
  if not found then lib.fail(op, 'weight_norm of weight not found in %s', torch.typename(module)) end
  return module
end

--- nn.utils.fuseConvBnWeights(convW, convB, bnRm, bnRv, bnEps, bnW, bnB [, transpose = false]): the
--- weight and bias of a convolution followed by an evaluation-mode batch norm folded into one
--- convolution: w * (bnW / sqrt(bnRv + bnEps)) per output channel (dim 1, dim 2 when transpose) and
--- (convB - bnRm) * bnW / sqrt(bnRv + bnEps) + bnB. convB, bnW and bnB may be nil (0, 1, 0). New tensors.
--- Example: local w, b = nn.utils.fuseConvBnWeights(torch.randn(4, 3, 3, 3), nil, torch.zeros(4), torch.ones(4), 1e-5)
function utils.fuseConvBnWeights(convW, convB, bnRm, bnRv, bnEps, bnW, bnB, transpose)
  local op = 'nn.utils.fuseConvBnWeights'
  for what, t in pairs({ convW = convW, bnRm = bnRm, bnRv = bnRv }) do
    if not torch.isTensor(t) then lib.fail(op, '%s must be a tensor, got %s', what, describe(t)) end
  end
  if type(bnEps) ~= 'number' then lib.fail(op, 'bnEps must be a number, got %s', describe(bnEps)) end
  local c = bnRm:nElement()
  local cdim = transpose and 2 or 1
  if convW:dim() < 2 or convW:size(cdim) ~= c then
    lib.fail(op, 'the weight of size %s does not have %d channels in dim %d', describe(convW), c, cdim)
  end
  convB = convB or torch.zeros(c):typeAs(convW)
  bnW = bnW or torch.ones(c):typeAs(convW)
  bnB = bnB or torch.zeros(c):typeAs(convW)
  local s = torch.cmul(bnW:view(-1), torch.pow(torch.add(bnRv:view(-1), bnEps), -0.5))
  local shape = {}
  for d = 1, convW:dim() do shape[d] = 1 end
  shape[cdim] = c
  local w = torch.cmul(convW, s:view(torch.LongStorage(shape)):expandAs(convW))
  local b = torch.add(torch.cmul(torch.csub(convB:view(-1), bnRm:view(-1)), s), bnB:view(-1))
  return w, b
end

local transposed = { ['nn.SpatialFullConvolution'] = true, ['nn.VolumetricFullConvolution'] = true,
                     ['nn.ConvTranspose1d'] = true, ['nn.ConvTranspose2d'] = true, ['nn.ConvTranspose3d'] = true }

--- nn.utils.fuseConvBnEval(conv, bn [, transpose]): a copy of conv whose weight and bias fold in the
--- evaluation-mode batch norm bn that follows it (running statistics, affine weight and bias), so
--- fused:forward(x) equals bn:forward(conv:forward(x)) with bn in evaluation mode. Both modules must
--- be in evaluation mode (as PyTorch). transpose defaults to whether conv is a transposed convolution.
--- Example: local c, b = nn.SpatialConvolution(3, 4, 3, 3), nn.SpatialBatchNormalization(4); c:evaluate(); b:evaluate(); local f = nn.utils.fuseConvBnEval(c, b)
function utils.fuseConvBnEval(conv, bn, transpose)
  local op = 'nn.utils.fuseConvBnEval'
  if not torch.isTypeOf(conv, 'nn.Module') or not torch.isTensor(conv.weight) then
    lib.fail(op, 'expected a convolution module, got %s', describe(conv))
  end
  if not torch.isTypeOf(bn, 'nn.Module') or not torch.isTensor(bn.running_mean) then
    lib.fail(op, 'expected a batch normalization module, got %s', describe(bn))
  end
  if conv.train ~= false or bn.train ~= false then
    lib.fail(op, 'fusion only works in evaluation mode (call :evaluate())')
  end
  if transpose == nil then
    transpose = false
    for cls in pairs(transposed) do if torch.isTypeOf(conv, cls) then transpose = true end end
  end
  local fused = conv:clone()
  local w, b = utils.fuseConvBnWeights(conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
    bn.bias, transpose)
  fused.weight:copy(w)
  if fused.bias then
    fused.bias:copy(b)
  else
    fused.bias = b
    fused.gradBias = b.new(b:size()):zero()
    fused.noBias = nil
  end
  nn.utils.linkGradients(fused)
  return fused
end

--- nn.utils.rnn.invertPermutation(perm): the inverse of a 1-D LongTensor permutation of 1..n
--- (perm[inv[i]] = i), or nil for nil (as PyTorch).
--- Example: nn.utils.rnn.invertPermutation(torch.LongTensor({3, 1, 2}))
function rnn.invertPermutation(perm)
  if perm == nil then return nil end
  local op = 'nn.utils.rnn.invertPermutation'
  if not torch.isTensor(perm) or not perm:type():match('LongTensor$') or perm:dim() ~= 1 then
    lib.fail(op, 'expected a 1-D LongTensor, got %s', describe(perm))
  end
  local n = perm:nElement()
  local inv = perm.new(n):zero()
  if n == 0 then return inv end
  -- Values in 1..n, then no slot left at 0 (a duplicate leaves one): a permutation (PyTorch checks
  -- nothing and returns garbage for 0-based or repeated indices).
  local ok = perm:min() >= 1 and perm:max() <= n
  if ok then
    inv:scatter(1, perm, torch.range(1, n):long():to(perm:device()))
    ok = inv:min() >= 1
  end
  if not ok then
    lib.fail(op, 'expected a permutation of 1..%d (1-based), got %s', n,
      n <= 20 and table.concat(perm:totable(), ' ') or describe(perm))
  end
  return inv
end

--- nn.utils.rnn.unpadSequence(padded, lengths [, batchFirst = false]): the list of tensors
--- (length_i x *) that padSequence stacked: padded is T x B x * (B x T x * with batchFirst), lengths
--- a table, LongStorage or 1-D LongTensor of B lengths.
--- Example: nn.utils.rnn.unpadSequence(torch.randn(3, 2, 4), {3, 1})
function rnn.unpadSequence(padded, lengths, batchFirst)
  local op = 'nn.utils.rnn.unpadSequence'
  if type(batchFirst) == 'table' then batchFirst = batchFirst.batchFirst end
  if not torch.isTensor(padded) or padded:dim() < 2 then
    lib.fail(op, 'expected a padded tensor of 2+ dims, got %s', describe(padded))
  end
  if batchFirst ~= nil and type(batchFirst) ~= 'boolean' then
    lib.fail(op, 'batchFirst must be a boolean, got %s', describe(batchFirst))
  end
  local len = lengths
  if torch.isTensor(len) or torch.typename(len) == 'torch.LongStorage' then len = len:totable() end
  if type(len) ~= 'table' then
    lib.fail(op, 'lengths must be a table, a LongStorage or a 1-D LongTensor, got %s', describe(lengths))
  end
  local x = batchFirst and padded or padded:transpose(1, 2)
  if #len ~= x:size(1) then lib.fail(op, 'got %d lengths for a batch of %d', #len, x:size(1)) end
  local out = {}
  for b, l in ipairs(len) do
    if type(l) ~= 'number' or l % 1 ~= 0 or l < 1 or l > x:size(2) then
      lib.fail(op, 'length %s of sequence %d is outside 1..%d', tostring(l), b, x:size(2))
    end
    out[b] = x:select(1, b):narrow(1, 1, l)
  end
  return out
end

--- nn.utils.rnn.unpackSequence(packed): the list of tensors (length_i x *) that packSequence packed,
--- in the caller's order.
--- Example: nn.utils.rnn.unpackSequence(nn.utils.rnn.packSequence({torch.randn(2, 3), torch.randn(1, 3)}))
function rnn.unpackSequence(packed)
  if torch.typename(packed) ~= 'nn.PackedSequence' then
    lib.fail('nn.utils.rnn.unpackSequence', 'expected a nn.PackedSequence, got %s', describe(packed))
  end
  local padded, lengths = rnn.padPackedSequence(packed, true)
  return rnn.unpadSequence(padded, lengths, true)
end
