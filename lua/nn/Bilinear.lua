-- nn.Bilinear(inputSize1, inputSize2, outputSize[, bias = true]): y_k = x1^T W_k x2 + b_k for a
-- table {x1 (N x inputSize1), x2 (N x inputSize2)} of batches (Torch7 takes batches only; N1 x N2 x
-- ... x inputSize tensors too, as PyTorch's: Note [Bilinear on other shapes]).
local S = require 'nn.support'
local Bilinear, parent = torch.class('nn.Bilinear', 'nn.Module')

function Bilinear:__init(inputSize1, inputSize2, outputSize, bias)
  parent.__init(self)
  S.argInt('nn.Bilinear', 'inputSize1', inputSize1, 1)
  S.argInt('nn.Bilinear', 'inputSize2', inputSize2, 1)
  S.argInt('nn.Bilinear', 'outputSize', outputSize, 1)
  -- Note [bias as an option]: PyTorch's bias = False may come as a trailing {bias = false}
  -- (PyTorch-named modules take options tables); a table was once taken as bias = true.
  if type(bias) == 'table' and not torch.isTensor(bias) then
    for k in pairs(bias) do
      if k ~= 'bias' then error(string.format('[nn.Bilinear] unknown option %s (expected bias)', tostring(k)), torch._lib.user_level()) end
    end
    bias = bias.bias
  end
  if bias ~= nil and type(bias) ~= 'boolean' then
    error(string.format('[nn.Bilinear] bias must be true or false, got %s', tostring(bias)), torch._lib.user_level())
  end
  self.weight = torch.Tensor(outputSize, inputSize1, inputSize2)
  self.gradWeight = torch.Tensor(outputSize, inputSize1, inputSize2)
  if bias ~= false then
    self.bias = torch.Tensor(outputSize)
    self.gradBias = torch.Tensor(outputSize)
  end
  self.gradInput = { torch.Tensor(), torch.Tensor() }
  self:reset()
end

--- b:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(inputSize1) by default.
function Bilinear:reset(stdv)
  if stdv ~= nil and (type(stdv) ~= 'number' or stdv <= 0) then
    error('[' .. tostring(self) .. '] reset expects a positive standard deviation, got ' .. tostring(stdv), torch._lib.user_level())
  end
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(2))
  self.weight:uniform(-stdv, stdv)
  if self.bias then self.bias:uniform(-stdv, stdv) end
  self.gradWeight:zero()
  if self.gradBias then self.gradBias:zero() end
  nn.utils.linkGradients(self)
  return self
end

local function check_input(self, input)
  local K, I1, I2 = self.weight:size(1), self.weight:size(2), self.weight:size(3)
  local ok = type(input) == 'table' and #input == 2 and torch.isTensor(input[1]) and torch.isTensor(input[2])
    and input[1]:dim() == 2 and input[2]:dim() == 2 and input[1]:size(1) == input[2]:size(1)
    and input[1]:size(2) == I1 and input[2]:size(2) == I2
  if not ok then
    S.fail(tostring(self), 'expected {N x %d, N x %d} (a table of two batches), got %s', I1, I2, S.describe(input))
  end
  return input[1], input[2], K, I1, I2
end

-- x1 W viewed as N x K x I2: row n, block k is x1[n]^T W_k.
local function x1W(self, x1, K, I1, I2)
  self._wt = self._wt or x1.new()
  self._wt:resize(I1, K, I2):copy(self.weight:transpose(1, 2))
  self._x1W = self._x1W or x1.new()
  return torch.mm(self._x1W, x1, self._wt:view(I1, K * I2)):view(x1:size(1), K, I2)
end

local function update_output(self, input)
  local x1, x2, K, I1, I2 = check_input(self, input)
  local N = x1:size(1)
  local t = x1W(self, x1, K, I1, I2)
  self._out = self._out or x1.new()
  torch.bmm(self._out, t, x2:contiguous():view(N, I2, 1))
  self.output = self._out:view(N, K)
  if self.bias then self.output:add(self.bias:view(1, K):expandAs(self.output)) end
  return self.output
end

local function update_grad_input(self, input, gradOutput)
  local x1, x2, K, I1, I2 = check_input(self, input)
  local N = x1:size(1)
  S.gradLike(tostring(self), gradOutput, { N, K })
  local g = gradOutput:contiguous():view(N, 1, K)
  self._gi1, self._gi2 = self._gi1 or x1.new(), self._gi2 or x1.new()
  -- dx2[n] = sum_k g[n,k] (x1[n]^T W_k)
  local t = x1W(self, x1, K, I1, I2)
  torch.bmm(self._gi2, g, t)
  -- dx1[n] = sum_k g[n,k] (W_k x2[n]), from x2 W^T viewed as N x K x I1
  self._wt2 = self._wt2 or x1.new()
  self._wt2:resize(I2, K, I1):copy(self.weight:permute(3, 1, 2))
  self._x2W = self._x2W or x1.new()
  local u = torch.mm(self._x2W, x2, self._wt2:view(I2, K * I1)):view(N, K, I1)
  torch.bmm(self._gi1, g, u)
  self.gradInput = { self._gi1:view(N, I1), self._gi2:view(N, I2) }
  return self.gradInput
end

local function acc_grad_parameters(self, input, gradOutput, scale)
  local x1, x2, K, I1, I2 = check_input(self, input)
  local N = x1:size(1)
  S.gradLike(tostring(self), gradOutput, { N, K })
  -- Torch7 applied scale to the bias gradient only; it scales both here (as backward(..., scale) says).
  scale = scale or 1
  -- dW[k,i,j] = sum_n g[n,k] x1[n,i] x2[n,j]: (g (x) x1)^T x2 with g (x) x1 of size N x (K*I1).
  self._gx1 = self._gx1 or x1.new()
  self._gx1:resize(N, K, I1)
  torch.cmul(self._gx1, gradOutput:contiguous():view(N, K, 1):expand(N, K, I1), x1:contiguous():view(N, 1, I1):expand(N, K, I1))
  self.gradWeight:view(K * I1, I2):addmm(scale, self._gx1:view(N, K * I1):t(), x2)
  if self.bias then self.gradBias:add(scale, gradOutput:sum(1):view(K)) end
end

-- Note [Bilinear on other shapes]: PyTorch's Bilinear takes x1 (* x inputSize1) and x2 (* x
-- inputSize2) with the same leading dims *; Torch7's took N x I batches only. Inputs of 3 dims or
-- more run as the batches they reshape to, with output and gradInput viewed back. A pair of
-- vectors (PyTorch's unbatched form) is still refused, as Torch7 did (test_nn_dense.lua).
local function other_shape(self, input)
  if type(input) ~= 'table' or not torch.isTensor(input[1]) or not torch.isTensor(input[2]) then return nil end
  local a, b = input[1], input[2]
  if a:dim() ~= b:dim() or a:dim() < 3 then return nil end
  if a:size(a:dim()) ~= self.weight:size(2) or b:size(b:dim()) ~= self.weight:size(3) then return nil end
  for d = 1, a:dim() - 1 do if a:size(d) ~= b:size(d) then return nil end end
  local lead = a:size():totable()
  lead[#lead] = nil
  return { a:reshape(-1, a:size(a:dim())), b:reshape(-1, b:size(b:dim())) }, lead
end
local function with_k(lead, k)
  local s = {}
  for i, v in ipairs(lead) do s[i] = v end
  s[#s + 1] = k
  return torch.LongStorage(s)
end
local function grad_batch(self, gradOutput, lead)
  local K = self.weight:size(1)
  if not torch.isTensor(gradOutput) or not gradOutput:isSize(with_k(lead, K)) then
    S.fail(tostring(self), 'expected a gradOutput of size %s, got %s', table.concat(with_k(lead, K):totable(), 'x'),
      S.describe(gradOutput))
  end
  return gradOutput:reshape(-1, K)
end

function Bilinear:updateOutput(input)
  local flat, lead = other_shape(self, input)
  if not flat then return update_output(self, input) end
  self.output = update_output(self, flat):view(with_k(lead, self.weight:size(1)))
  return self.output
end

function Bilinear:updateGradInput(input, gradOutput)
  local flat, lead = other_shape(self, input)
  if not flat then return update_grad_input(self, input, gradOutput) end
  local g = update_grad_input(self, flat, grad_batch(self, gradOutput, lead))
  self.gradInput = { g[1]:view(input[1]:size()), g[2]:view(input[2]:size()) }
  return self.gradInput
end

function Bilinear:accGradParameters(input, gradOutput, scale)
  local flat, lead = other_shape(self, input)
  if not flat then return acc_grad_parameters(self, input, gradOutput, scale) end
  return acc_grad_parameters(self, flat, grad_batch(self, gradOutput, lead), scale)
end

-- Torch7 prints 'nn.Bilinear(2x3 -> 4) ' with a stray space; the space is dropped here.
function Bilinear:__tostring__()
  return string.format('nn.Bilinear(%dx%d -> %d)%s', self.weight:size(2), self.weight:size(3), self.weight:size(1),
    self.bias == nil and ' without bias' or '')
end

return Bilinear
