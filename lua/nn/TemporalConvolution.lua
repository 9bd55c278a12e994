-- nn.TemporalConvolution(inputFrameSize, outputFrameSize, kW [, dW = 1]): 1-D convolution over frames
-- in Torch7's layout: input nInputFrame x inputFrameSize (or nBatch x nInputFrame x inputFrameSize),
-- output nOutputFrame x outputFrameSize with nOutputFrame = (nInputFrame - kW) / dW + 1, weight
-- outputFrameSize x (kW * inputFrameSize) with frame k's features at columns k*F+1 .. (k+1)*F.
-- Note [Temporal convolution as GEMM]: frames are rows of a row-major matrix, so the kW frames under
-- output t are one contiguous stretch of kW*F numbers: the window matrix is a strided view of the
-- input (rows dW*F apart) and the layer is one batched GEMM against weight^T, with no copy. The
-- input gradient adds gradOutput x W_k into the rows k, k+dW, ... for each tap k (kW GEMMs into
-- strided views); the weight gradient is one batch-summed GEMM.
require 'nn.conv_utils'
local cu = nn.conv_utils
local TemporalConvolution, parent = torch.class('nn.TemporalConvolution', 'nn.Module')

function TemporalConvolution:__init(inputFrameSize, outputFrameSize, kW, dW)
  parent.__init(self)
  dW = dW or 1
  local checked = { inputFrameSize, outputFrameSize, kW, dW }
  for k = 1, 4 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
      error(string.format('[nn.TemporalConvolution] expected positive integer sizes (inputFrameSize, outputFrameSize, '
        .. 'kW, dW), got %s, %s, %s, %s', tostring(inputFrameSize), tostring(outputFrameSize), tostring(kW),
        tostring(dW)), torch._lib.user_level())
    end
  end
  self.inputFrameSize, self.outputFrameSize, self.kW, self.dW = inputFrameSize, outputFrameSize, kW, dW
  self.weight = torch.Tensor(outputFrameSize, inputFrameSize * kW)
  self.gradWeight = torch.Tensor(outputFrameSize, inputFrameSize * kW)
  self.bias = torch.Tensor(outputFrameSize)
  self.gradBias = torch.Tensor(outputFrameSize)
  self:reset()
end

--- m:noBias(): drops the bias (returns m).
function TemporalConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kW*inputFrameSize) by default.
function TemporalConvolution:reset(stdv) return nn.utils.resetUniform(self, self.kW * self.inputFrameSize, stdv) end

-- input as a contiguous batch (N x T x F), the number of output frames, and whether it was batched.
local function batch_of(self, input)
  local F = self.inputFrameSize
  if not torch.isTensor(input) or (input:dim() ~= 2 and input:dim() ~= 3) or input:size(input:dim()) ~= F then
    cu.fail(self, 'expected a 2D (nInputFrame x %d) or 3D (nBatch x nInputFrame x %d) input, got %s', F, F,
      cu.describe(input))
  end
  local T = input:size(input:dim() - 1)
  if T < self.kW then
    cu.fail(self, 'input of size %s has %d frames, fewer than the kernel width %d',
      table.concat(input:size():totable(), 'x'), T, self.kW)
  end
  local batched = input:dim() == 3
  local x = input:isContiguous() and input or input:contiguous()
  if not batched then x = x:view(1, T, F) end
  return x, math.floor((T - self.kW) / self.dW) + 1, batched
end

-- gradOutput must be the output's size: a view of the same number of elements in another shape
-- would otherwise be taken silently.
local function check_grad(self, gradOutput, N, oT, batched)
  local want = batched and { N, oT, self.outputFrameSize } or { oT, self.outputFrameSize }
  local ok = torch.isTensor(gradOutput) and gradOutput:dim() == #want
  for d = 1, #want do ok = ok and gradOutput:size(d) == want[d] end
  if not ok then
    cu.fail(self, 'expected a gradOutput of size %s, got %s', table.concat(want, 'x'), cu.describe(gradOutput))
  end
end

-- The N x oT x (kW*F) window matrix: a view of x (Note [Temporal convolution as GEMM]).
local function windows(self, x, oT)
  local N, T, F = x:size(1), x:size(2), x:size(3)
  return x:asStrided({ N, oT, self.kW * F }, { T * F, self.dW * F, 1 }, x:storageOffset())
end

function TemporalConvolution:updateOutput(input)
  local x, oT, batched = batch_of(self, input)
  local N, O = x:size(1), self.outputFrameSize
  local wt = self.weight:t():view(1, self.weight:size(2), O):expand(N, self.weight:size(2), O)
  self.output:resize(N, oT, O)
  if self.bias then
    torch.baddbmm(self.output, 1, self.bias:view(1, 1, O):expand(N, oT, O), 1, windows(self, x, oT), wt)
  else
    torch.bmm(self.output, windows(self, x, oT), wt)
  end
  if not batched then self.output = self.output:view(oT, O) end
  return self.output
end

function TemporalConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local x, oT, batched = batch_of(self, input)
  local N, T, F, O = x:size(1), x:size(2), x:size(3), self.outputFrameSize
  check_grad(self, gradOutput, N, oT, batched)
  local go = gradOutput:contiguous():view(N, oT, O)
  self.gradInput:resize(N, T, F):zero()
  local gi = self.gradInput
  for k = 0, self.kW - 1 do
    -- rows k, k + dW, ... of each sample's gradient, and the columns of weight for tap k
    local rows = gi:asStrided({ N, oT, F }, { T * F, self.dW * F, 1 }, gi:storageOffset() + k * F)
    local wk = self.weight:narrow(2, k * F + 1, F):view(1, O, F):expand(N, O, F)
    rows:baddbmm(go, wk)
  end
  if not batched then self.gradInput = self.gradInput:view(T, F) end
  return self.gradInput
end

function TemporalConvolution:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local x, oT, batched = batch_of(self, input)
  local N, O = x:size(1), self.outputFrameSize
  check_grad(self, gradOutput, N, oT, batched)
  local go = gradOutput:contiguous():view(N, oT, O)
  self.gradWeight:addbmm(scale, go:transpose(2, 3), windows(self, x, oT))
  if self.bias then self.gradBias:add(scale, go:view(N * oT, O):sum(1):view(O)) end
end

return TemporalConvolution
