-- nn.BatchNormalization(nOutput [, eps = 1e-5] [, momentum = 0.1] [, affine = true]): Torch7's
-- batch normalization of N x C inputs (also N x C x L, like PyTorch's BatchNorm1d), on the fused
-- kernels of torch._batchNormOut. Spatial/VolumetricBatchNormalization only change nDim.
local BN, parent = torch.class('nn.BatchNormalization', 'nn.Module')

BN.__version = 2
BN.nDim = 2  -- dims of a mini-batch (evaluation also takes a single sample: nDim - 1 dims)
-- stateDict holds the running statistics after weight and bias, as PyTorch's (a class field, so
-- modules loaded from older files have it too).
BN._stateBuffers = { 'running_mean', 'running_var' }

function BN:__init(nOutput, eps, momentum, affine)
  parent.__init(self)
  local name = torch.typename(self)
  if type(nOutput) ~= 'number' or nOutput < 1 or nOutput ~= math.floor(nOutput) then
    error(string.format('[%s] expected a positive number of features, got %s', name, tostring(nOutput)), torch._lib.user_level())
  end
  if affine ~= nil and type(affine) ~= 'boolean' then
    error(string.format('[%s] affine must be true or false, got %s', name, tostring(affine)), torch._lib.user_level())
  end
  self.affine = affine ~= false
  self.eps = eps or 1e-5
  self.momentum = momentum or 0.1
  if type(self.eps) ~= 'number' or self.eps < 0 or type(self.momentum) ~= 'number' then
    error(string.format('[%s] expected eps >= 0 and a number momentum, got %s and %s', name, tostring(eps),
      tostring(momentum)), torch._lib.user_level())
  end
  self.running_mean = torch.zeros(nOutput)
  self.running_var = torch.ones(nOutput)
  if self.affine then
    self.weight = torch.Tensor(nOutput)
    self.bias = torch.Tensor(nOutput)
    self.gradWeight = torch.Tensor(nOutput):zero()
    self.gradBias = torch.Tensor(nOutput):zero()
  end
  self:reset()
end

--- bn:reset(): Torch7's initialization: weight uniform on [0, 1), bias 0, running mean 0 and
--- running variance 1.
function BN:reset()
  if self.weight then self.weight:uniform() end
  if self.bias then self.bias:zero() end
  if self.gradWeight then self.gradWeight:zero() end
  if self.gradBias then self.gradBias:zero() end
  self.running_mean:zero()
  self.running_var:fill(1)
  nn.utils.linkGradients(self)
  return self
end

local function size_str(t)
  if not torch.isTensor(t) then return torch.type(t) end
  return torch.type(t) .. ' of size ' .. (t:dim() == 0 and '[]' or table.concat(t:size():totable(), 'x'))
end

-- Note [Normalization under autocast]: an f16/bf16 input with f32 parameters (a low-precision
-- activation under torch.autocast) is normalized in the parameters' dtype, as PyTorch's autocast
-- runs normalization in f32; gradInput is then of that dtype and autograd casts it to the input's.
local function in_param_dtype(t, ref)
  local d = t.p.dtype
  if ref and d ~= ref.p.dtype and (d == 2 or d == 3) then return t:typeAs(ref) end
  return t
end

-- The input as a mini-batch (a single sample gets a batch dim of 1); errors name the module.
function BN:_batch(input, what)
  local nd, c = self.nDim, self.running_mean:nElement()
  local ok = torch.isTensor(input)
  local d = ok and input:dim() or 0
  local single = ok and not self.train and d == nd - 1
  ok = ok and (d == nd or (nd == 2 and d == 3) or single)
  ok = ok and input:size(single and 1 or 2) == c
  if not ok then
    local want = nd == 2 and string.format('N x %d or N x %d x L', c, c)
      or string.format('N x %d%s', c, string.rep(' x ?', nd - 2))
    error(string.format('[%s] expected %s %s (a single sample without N in evaluation mode), got %s',
      tostring(self), what or 'input', want, size_str(input)), torch._lib.user_level())
  end
  return in_param_dtype(single and input:unsqueeze(1) or input, self.running_mean), single
end

function BN:updateOutput(input)
  local x, single = self:_batch(input)
  self.save_mean = self.save_mean or x.new()
  self.save_std = self.save_std or x.new()
  self._stashInput, self._stashGradOutput = nil, nil
  torch._batchNormOut(self.output, self.save_mean, self.save_std, x, self.weight, self.bias, self.running_mean,
    self.running_var, self.train, self.momentum, self.eps)
  if single then self.output = self.output:view(input:size()) end
  return self.output
end

local function check_backward(self, input, gradOutput)
  local x, single = self:_batch(input)
  local g = self:_batch(gradOutput, 'gradOutput')
  if not g:isSameSizeAs(x) then
    error(string.format('[%s] gradOutput is %s but the input is %s', tostring(self), size_str(gradOutput),
      size_str(input)), torch._lib.user_level())
  end
  if not self.save_mean or self.save_mean:nElement() == 0 then
    error(string.format('[%s] backward needs a forward first', tostring(self)), torch._lib.user_level())
  end
  return x, g, single
end

-- Note [Batch-norm parameter gradients]: the backward kernel gets the parameter gradients from
-- the sums it computes for gradInput anyway, so updateGradInput keeps them (unscaled) and the
-- accGradParameters that follows with the same input and gradOutput (Module:backward, autograd's
-- coarse node, Sequential) only adds them. Holding both tensors keeps their identity unambiguous.
function BN:updateGradInput(input, gradOutput)
  local x, g, single = check_backward(self, input, gradOutput)
  if self.gradInput == nil then return end
  local gw, gb
  if self.affine then
    self._gw = (self._gw or x.new()):resize(self.running_mean:nElement()):zero()
    self._gb = (self._gb or x.new()):resize(self.running_mean:nElement()):zero()
    gw, gb = self._gw, self._gb
  end
  torch._batchNormBackwardOut(self.gradInput, gw, gb, g, x, self.weight, self.save_mean, self.save_std, self.train, 1)
  if self.affine then self._stashInput, self._stashGradOutput = input, gradOutput end
  if single then self.gradInput = self.gradInput:view(input:size()) end
  return self.gradInput
end

function BN:accGradParameters(input, gradOutput, scale)
  if not self.affine then return end
  scale = scale or 1
  local si, sg = self._stashInput, self._stashGradOutput
  self._stashInput, self._stashGradOutput = nil, nil
  if si and torch.pointer(si) == torch.pointer(input) and torch.pointer(sg) == torch.pointer(gradOutput) then
    self.gradWeight:add(scale, self._gw)
    self.gradBias:add(scale, self._gb)
    return
  end
  local x, g = check_backward(self, input, gradOutput)
  torch._batchNormBackwardOut(nil, self.gradWeight, self.gradBias, g, x, self.weight, self.save_mean, self.save_std,
    self.train, scale)
end

function BN:clearState()
  self._stashInput, self._stashGradOutput = nil, nil
  return parent.clearState(self, 'save_mean', 'save_std')
end

--- bn:read(file, version): reads the fields of a saved module (Torch7's File:readObject protocol).
--- Torch7's version 1 kept running_std = 1 / sqrt(var + eps); it becomes running_var here, as
--- Torch7's own BatchNormalization:read does. Modules saved without an affine flag get one.
function BN:read(file, version)
  local fields = file:readObject()
  if type(fields) ~= 'table' then
    error(string.format('[%s] expected a table of fields in the file, got %s', torch.typename(self), type(fields)), torch._lib.user_level())
  end
  for k, v in pairs(fields) do self[k] = v end
  if (version or 1) < 2 and torch.isTensor(self.running_std) then
    self.running_var = self.running_std:clone():pow(-2):add(-self.eps)
    self.running_std = nil
  end
  if self.affine == nil then self.affine = self.weight ~= nil end
  -- fields of cudnn's BatchNormalization that only describe its cuDNN call
  self.mode, self.iDesc, self.oDesc, self.sDesc = nil, nil, nil, nil
  nn.utils.linkGradients(self)
end

function BN:__tostring__()
  return string.format('%s (%dD) (%d)', torch.typename(self), self.nDim, self.running_mean:nElement())
end

-- Torch7 models trained on GPUs hold cudnn's classes, which keep nn's fields (plus descriptors
-- that BN:read drops): they load as nn's.
for _, name in ipairs({ 'BatchNormalization', 'SpatialBatchNormalization', 'VolumetricBatchNormalization' }) do
  torch.serialization.registerClassAlias('cudnn.' .. name, 'nn.' .. name)
end

return BN
