-- nn.GroupNormalization(nGroups, nChannels [, eps = 1e-5] [, affine = true]): PyTorch's GroupNorm:
-- the channels of an N x C x ... input are split into nGroups groups, each normalized over its
-- channels and positions, then a per-channel weight (init 1) and bias (init 0) apply. Built on
-- differentiable torch ops (Note [Modules and autograd]).
local GN, parent = torch.class('nn.GroupNormalization', 'nn.Module')

local function positive_int(v) return type(v) == 'number' and v >= 1 and v == math.floor(v) end

function GN:__init(nGroups, nChannels, eps, affine)
  parent.__init(self)
  if not positive_int(nGroups) or not positive_int(nChannels) or nChannels % nGroups ~= 0 then
    error(string.format('[nn.GroupNormalization] expected positive nGroups dividing nChannels, got %s and %s',
      tostring(nGroups), tostring(nChannels)), torch._lib.user_level())
  end
  self.nGroups, self.nChannels = nGroups, nChannels
  self.eps = eps or 1e-5
  if type(self.eps) ~= 'number' or self.eps < 0 then
    error(string.format('[nn.GroupNormalization] expected eps >= 0, got %s', tostring(eps)), torch._lib.user_level())
  end
  self.affine = affine ~= false
  if self.affine then
    self.weight = torch.Tensor(nChannels)
    self.bias = torch.Tensor(nChannels)
    self.gradWeight = torch.Tensor(nChannels):zero()
    self.gradBias = torch.Tensor(nChannels):zero()
  end
  self:reset()
end

--- gn:reset(): weight 1 and bias 0 (PyTorch's initialization).
function GN:reset()
  if self.weight then
    self.weight:fill(1)
    self.bias:zero()
    self.gradWeight:zero()
    self.gradBias:zero()
  end
  nn.utils.linkGradients(self)
  return self
end

function GN:updateOutput(input)
  if not torch.isTensor(input) or input:dim() < 2 or input:size(2) ~= self.nChannels then
    error(string.format('[%s] expected an input of N x %d x ..., got %s', tostring(self), self.nChannels,
      torch.isTensor(input) and (torch.type(input) .. ' of size '
        .. (input:dim() == 0 and '[]' or table.concat(input:size():totable(), 'x'))) or type(input)), torch._lib.user_level())
  end
  nn.utils.checkFloatInput(self, input)
  local d = input.p.dtype
  if self.affine and d ~= self.weight.p.dtype and (d == 2 or d == 3) then
    -- Note [Normalization under autocast] (nn/LayerNormalization.lua): an f16/bf16 input is
    -- normalized in the parameters' dtype
    input = input:typeAs(self.weight)
  end
  local n = input:size(1)
  -- the group size is computed, not -1: an empty batch (n = 0) cannot infer it
  local perGroup = self.nChannels / self.nGroups
  for k = 3, input:dim() do perGroup = perGroup * input:size(k) end
  local grouped = input:contiguous():view(n, self.nGroups, perGroup)
  local y = torch.layerNorm(grouped, 1, nil, nil, self.eps):view(input:size())
  if self.affine then
    local shape = torch.LongStorage(input:dim()):fill(1)
    shape[2] = self.nChannels
    y = torch.add(torch.cmul(y, self.weight:view(shape)), self.bias:view(shape))
  end
  self.output = y
  return y
end

function GN:__tostring__()
  return string.format('%s(%d, %d%s)', torch.typename(self), self.nGroups, self.nChannels,
    self.affine and '' or ', without affine')
end

return GN
