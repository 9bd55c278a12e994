-- nn.SpatialFullConvolution(nInputPlane, nOutputPlane, kW, kH [, dW = 1, dH = 1] [, padW = 0, padH = 0]
-- [, adjW = 0, adjH = 0]): the transposed ("full", fractionally strided) 2-D convolution, weight
-- nInputPlane x nOutputPlane x kH x kW (Torch7). Output size (in - 1) * d - 2 * pad + k + adj;
-- adj (< d) picks among the sizes a strided convolution maps to the same input size; a table input
-- {input, target} takes adj from target's size instead (Note [Target-sized output]).
require 'nn.conv_utils'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local SpatialFullConvolution, parent = torch.class('nn.SpatialFullConvolution', 'nn.Module')

function SpatialFullConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH, adjW, adjH)
  parent.__init(self)
  self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
  self.kW, self.kH = kW, kH
  self.dW, self.dH = dW or 1, dH or 1
  self.padW, self.padH = padW or 0, padH or 0
  self.adjW, self.adjH = adjW or 0, adjH or 0
  local checked = { nInputPlane, nOutputPlane, kW, kH, self.dW, self.dH }
  for k = 1, 6 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
      error(string.format('[nn.SpatialFullConvolution] expected positive integer sizes, got %s', tostring(v)), torch._lib.user_level())
    end
  end
  if self.adjW > self.dW - 1 or self.adjH > self.dH - 1 or self.adjW < 0 or self.adjH < 0 then
    error(string.format('[nn.SpatialFullConvolution] adjW and adjH must be in [0, dW - 1] and [0, dH - 1], got '
      .. '%d, %d for strides %d, %d', self.adjW, self.adjH, self.dW, self.dH), torch._lib.user_level())
  end
  self.weight = torch.Tensor(nInputPlane, nOutputPlane, kH, kW)
  self.gradWeight = torch.Tensor(nInputPlane, nOutputPlane, kH, kW)
  self.bias = torch.Tensor(nOutputPlane)
  self.gradBias = torch.Tensor(nOutputPlane)
  self:reset()
end

--- m:noBias(): drops the bias (returns m).
function SpatialFullConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kW*kH*nInputPlane) by default.
function SpatialFullConvolution:reset(stdv)
  return nn.utils.resetUniform(self, self.kW * self.kH * self.nInputPlane, stdv)
end

local function options(self, adj)
  return cu.options(2, 1, { self.dH, self.dW }, { self.padH, self.padW }, nil, adj)
end

-- Note [Target-sized output]: as in Torch7, the input may be a table {input, target}; the output
-- then takes target's last two sizes (adj = (size + 2 * pad - k) % d, whatever adjW and adjH say)
-- and gradInput is {gradInput, zeros of target's size}. Returns the input tensor and {adjH, adjW}.
local function resolve(self, input)
  if type(input) ~= 'table' then return input, { self.adjH, self.adjW } end
  local x, target = input[1], input[2]
  if not torch.isTensor(x) or not torch.isTensor(target) or target:dim() < 2 then
    cu.fail(self, 'expected a 3D (%d x H x W) or 4D input tensor, or a table {input, target} of two tensors '
      .. '(target with 2 or more dims), got {%s, %s}', self.nInputPlane, cu.describe(x), cu.describe(target))
  end
  local n = target:dim()
  return x, { (target:size(n - 1) + 2 * self.padH - self.kH) % self.dH,
              (target:size(n) + 2 * self.padW - self.kW) % self.dW }
end

-- The output's channel count and spatial sizes for input.
local function output_size(self, input, adj)
  local first = input:dim() - 2
  local want = { self.nOutputPlane }
  for d, v in ipairs({ { self.dH, self.padH, self.kH, adj[1] }, { self.dW, self.padW, self.kW, adj[2] } }) do
    want[d + 1] = (input:size(first + d) - 1) * v[1] - 2 * v[2] + v[3] + v[4]
  end
  return want
end

function SpatialFullConvolution:updateOutput(input)
  local x, adj = resolve(self, input)
  cu.checkInput(self, x, 2, self.nInputPlane, { 1, 1 }, { 0, 0 })
  local want = output_size(self, x, adj)
  if want[2] < 1 or want[3] < 1 then
    cu.fail(self, 'input of size %s gives an empty output (%dx%d)', table.concat(x:size():totable(), 'x'),
      want[2], want[3])
  end
  check(C.tocha_conv_transpose_out(self.output.p, x.p, self.weight.p, self.bias and self.bias.p or nil,
    options(self, adj)))
  return self.output
end

function SpatialFullConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local x, adj = resolve(self, input)
  cu.unwrapGradInput(self, x)  -- Note [Target-sized output]
  cu.checkGradOutput(self, gradOutput, x, output_size(self, x, adj))
  check(C.tocha_conv_out(self.gradInput.p, gradOutput.p, self.weight.p, nil, options(self, nil)))
  return cu.wrapGradInput(self, input)
end

-- The weight gradient of a transposed convolution is that of the convolution it transposes, with
-- gradOutput as that convolution's input (Note [Convolution roles]).
function SpatialFullConvolution:accGradParameters(input, gradOutput, scale)
  local x, adj = resolve(self, input)
  -- the C op sees gradOutput as its input, so its message would swap the roles
  cu.checkGradOutput(self, gradOutput, x, output_size(self, x, adj))
  check(C.tocha_conv_weight_acc(self.gradWeight.p, nil, gradOutput.p, x.p, options(self, nil), scale or 1, 1))
  if self.bias then check(C.tocha_conv_bias_acc(self.gradBias.p, gradOutput.p, 2, scale or 1)) end
end

function SpatialFullConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.typename(self), self.nInputPlane, self.nOutputPlane, self.kW,
    self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if self.padW ~= 0 or self.padH ~= 0 then s = s .. ', ' .. self.padW .. ',' .. self.padH end
  if (self.adjW or 0) ~= 0 or (self.adjH or 0) ~= 0 then s = s .. ', ' .. self.adjW .. ',' .. self.adjH end
  return s .. (self.bias and ')' or ') without bias')
end

return SpatialFullConvolution
