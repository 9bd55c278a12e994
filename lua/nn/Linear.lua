-- nn.Linear(inputSize, outputSize[, bias]): y = x W^T + b, for a vector or a batch of rows (or, as
-- PyTorch's, any N1 x N2 x ... x inputSize tensor: Note [Linear on more dims]).
local Linear, parent = torch.class('nn.Linear', 'nn.Module')

function Linear:__init(inputSize, outputSize, bias)
  parent.__init(self)
  if type(inputSize) ~= 'number' or type(outputSize) ~= 'number' or inputSize < 1 or outputSize < 1 then
    error(string.format('[nn.Linear] expected positive sizes, got %s and %s', tostring(inputSize),
      tostring(outputSize)), torch._lib.user_level())
  end
  -- Note [bias as an option]: PyTorch's bias = False may come as a trailing {bias = false}
  -- (PyTorch-named modules take options tables); a table was once taken as bias = true.
  if type(bias) == 'table' and not torch.isTensor(bias) then
    for k in pairs(bias) do
      if k ~= 'bias' then error(string.format('[nn.Linear] unknown option %s (expected bias)', tostring(k)), torch._lib.user_level()) end
    end
    bias = bias.bias
  end
  if bias ~= nil and type(bias) ~= 'boolean' then
    error(string.format('[nn.Linear] bias must be true or false, got %s', tostring(bias)), torch._lib.user_level())
  end
  self.weight = torch.Tensor(outputSize, inputSize)
  self.gradWeight = torch.Tensor(outputSize, inputSize)
  if bias ~= false then
    self.bias = torch.Tensor(outputSize)
    self.gradBias = torch.Tensor(outputSize)
  end
  self:reset()
end

--- l:noBias(): drops the bias (returns l).
function Linear:noBias() return nn.utils.noBias(self) end

--- l:reset([stdv]): uniform(-stdv, stdv) weights and bias, stdv = 1/sqrt(inputSize) by default.
function Linear:reset(stdv) return nn.utils.resetUniform(self, self.weight:size(2), stdv) end

local function check_input(self, input)
  local n = self.weight:size(2)
  if not torch.isTensor(input) or input:dim() < 1 or input:size(input:dim()) ~= n then
    error(string.format('[%s] expected a vector of %d features or a batch (N x %d, or N1 x N2 x ... x %d), got %s',
      tostring(self), n, n, n,
      torch.isTensor(input) and (torch.type(input) .. ' of size ' .. table.concat(input:size():totable(), 'x'))
        or torch.type(input)), torch._lib.user_level())
  end
end

local function update_output(self, input)
  local out = self.weight:size(1)
  if input:dim() == 1 then
    self.output:resize(out)
    if self.bias then torch.addmv(self.output, 1, self.bias, 1, self.weight, input)
    else torch.mv(self.output, self.weight, input) end
  else
    self.output:resize(input:size(1), out)
    if self.bias then torch.addmm(self.output, 1, self.bias:view(1, out), 1, input, self.weight:t())
    else torch.mm(self.output, input, self.weight:t()) end
  end
  return self.output
end

local function update_grad_input(self, input, gradOutput)
  if not self.gradInput then return end
  self.gradInput:resizeAs(input)
  if input:dim() == 1 then torch.mv(self.gradInput, self.weight:t(), gradOutput)
  else torch.mm(self.gradInput, gradOutput, self.weight) end
  return self.gradInput
end

-- accGradParameters reads only input and gradOutput (Note [Skipping gradInput] in nn/Module.lua).
Linear._accGradWithoutGradInput = true

local function acc_grad_parameters(self, input, gradOutput, scale)
  scale = scale or 1
  if input:dim() == 1 then
    self.gradWeight:addr(scale, gradOutput, input)
    if self.bias then self.gradBias:add(scale, gradOutput) end
  else
    self.gradWeight:addmm(scale, gradOutput:t(), input)
    if self.bias then
      -- Torch7's column sum as a GEMV against a ones buffer: no temporary, and BLAS speed.
      local n = input:size(1)
      local ones = nn.utils.buffer(self.addBuffer, gradOutput)
      if ones:nElement() ~= n then ones:resize(n):fill(1) end
      self.addBuffer = ones
      self.gradBias:addmv(scale, gradOutput:t(), ones)
    end
  end
end

-- Note [Linear on more dims]: PyTorch's Linear maps the last dim of an input of any shape; Torch7's
-- took vectors and batches only. An input of 3 dims or more runs as the (N1 N2 ...) x inputSize
-- batch it reshapes to (a copy when it is not contiguous), and output and gradInput are viewed back.
local function as_batch(t) return t:reshape(-1, t:size(t:dim())) end
local function grad_as_batch(self, gradOutput)
  if not torch.isTensor(gradOutput) then
    error(string.format('[%s] expected a gradOutput tensor, got %s', tostring(self), torch.type(gradOutput)), torch._lib.user_level())
  end
  return gradOutput:reshape(-1, self.weight:size(1))
end

function Linear:updateOutput(input)
  check_input(self, input)
  if input:dim() <= 2 then return update_output(self, input) end
  local size = input:size():totable()
  size[#size] = self.weight:size(1)
  self.output = update_output(self, as_batch(input)):view(torch.LongStorage(size))
  return self.output
end

function Linear:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  if input:dim() <= 2 then return update_grad_input(self, input, gradOutput) end
  self.gradInput = update_grad_input(self, as_batch(input), grad_as_batch(self, gradOutput)):view(input:size())
  return self.gradInput
end

function Linear:accGradParameters(input, gradOutput, scale)
  if input:dim() <= 2 then return acc_grad_parameters(self, input, gradOutput, scale) end
  return acc_grad_parameters(self, as_batch(input), grad_as_batch(self, gradOutput), scale)
end

function Linear:clearState()
  self.addBuffer = nil
  return parent.clearState(self)
end

function Linear:__tostring__()
  return string.format('nn.Linear(%d -> %d)%s', self.weight:size(2), self.weight:size(1),
    self.bias == nil and ' without bias' or '')
end

return Linear
