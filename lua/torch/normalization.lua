-- Normalization as torch functions: torch.batchNorm (differentiable; fused CPU kernels) and the
-- Torch7-style forms writing into buffers that nn's Batch/LayerNormalization modules use
-- (torch.layerNorm itself is in torch/functional.lua).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local check_tensor, describe = types.check_tensor, types.describe

-- An optional tensor argument at position pos (nil allowed).
local function opt(op, t, pos)
  if t == nil then return nil end
  return check_tensor(op, t, pos).p
end
local function flag(op, v, pos, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then fail(op, 'expected a boolean as argument %d, got %s', pos, describe(v)) end
  return v and 1 or 0
end
local function number(op, v, pos, default)
  if v == nil then return default end
  if type(v) ~= 'number' then fail(op, 'expected a number as argument %d, got %s', pos, describe(v)) end
  return v
end

--- torch.batchNorm(x, runningMean, runningVar [, weight] [, bias] [, training = false]
--- [, momentum = 0.1] [, eps = 1e-5]): normalizes each channel (dim 2) of x (N x C or N x C x ...)
--- like PyTorch's batch_norm: with the batch statistics when training (and, when runningMean
--- and runningVar are given, updates them in place: running = (1 - momentum) * running +
--- momentum * batch, with the unbiased batch variance), else with the running statistics; then
--- scales by weight and shifts by bias (C-vectors, optional). Differentiable in x, weight and bias.
--- Example: torch.batchNorm(torch.randn(8, 3), nil, nil, nil, nil, true)
function torch.batchNorm(x, runningMean, runningVar, weight, bias, training, momentum, eps)
  local op = 'batchNorm'
  check_tensor(op, x, 1)
  return wrap(C.tocha_batch_norm(x.p, opt(op, weight, 4), opt(op, bias, 5), opt(op, runningMean, 2),
    opt(op, runningVar, 3), flag(op, training, 6, 0), number(op, momentum, 7, 0.1), number(op, eps, 8, 1e-5),
    nil, nil))
end

--- torch._batchNormOut(out, saveMean, saveInvstd, x, weight, bias, runningMean, runningVar,
--- training, momentum, eps): batch normalization into buffers (resized); saveMean and saveInvstd
--- receive the per-channel mean and 1 / sqrt(var + eps) used, for torch._batchNormBackwardOut.
function torch._batchNormOut(out, saveMean, saveInvstd, x, weight, bias, runningMean, runningVar, training, momentum, eps)
  check(C.tocha_batch_norm_out(out.p, saveMean.p, saveInvstd.p, x.p, weight and weight.p or nil,
    bias and bias.p or nil, runningMean and runningMean.p or nil, runningVar and runningVar.p or nil,
    training and 1 or 0, momentum, eps))
  return out
end

--- torch._batchNormBackwardOut(gradInput, gradWeight, gradBias, gradOutput, x, weight, saveMean,
--- saveInvstd, training, scale): Torch7's batch-norm backward: writes gradInput (resized) and adds
--- scale times the parameter gradients into gradWeight and gradBias (each may be nil).
function torch._batchNormBackwardOut(gradInput, gradWeight, gradBias, gradOutput, x, weight, saveMean, saveInvstd,
                                     training, scale)
  check(C.tocha_batch_norm_backward_out(gradInput and gradInput.p or nil, gradWeight and gradWeight.p or nil,
    gradBias and gradBias.p or nil, gradOutput.p, x.p, weight and weight.p or nil, saveMean.p, saveInvstd.p,
    training and 1 or 0, scale))
  return gradInput
end

--- torch._layerNormOut(out, saveMean, saveInvstd, x, ndims, weight, bias, eps): layer
--- normalization over the last ndims dims into buffers (resized); saveMean and saveInvstd receive
--- the statistics of each normalized row, for torch._layerNormBackwardOut.
function torch._layerNormOut(out, saveMean, saveInvstd, x, ndims, weight, bias, eps)
  check(C.tocha_layer_norm_out(out.p, saveMean.p, saveInvstd.p, x.p, ndims, weight and weight.p or nil,
    bias and bias.p or nil, eps))
  return out
end

--- torch._layerNormBackwardOut(gradInput, gradWeight, gradBias, gradOutput, x, ndims, weight,
--- saveMean, saveInvstd, scale): writes gradInput (resized) and adds scale times the parameter
--- gradients into gradWeight and gradBias (each may be nil).
function torch._layerNormBackwardOut(gradInput, gradWeight, gradBias, gradOutput, x, ndims, weight, saveMean,
                                     saveInvstd, scale)
  check(C.tocha_layer_norm_backward_out(gradInput and gradInput.p or nil, gradWeight and gradWeight.p or nil,
    gradBias and gradBias.p or nil, gradOutput.p, x.p, ndims, weight and weight.p or nil, saveMean.p, saveInvstd.p,
    scale))
  return gradInput
end

return torch
