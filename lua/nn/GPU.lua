-- nn.GPU(module, device[, outdevice]): Torch7's decorator that keeps a module's parameters and work
-- on one GPU (device: cutorch's 1-based index): once the module is CUDA, CUDA inputs and
-- gradOutputs are moved to that device, the module runs with it current, the output goes to
-- outdevice (default: device) and gradInput back to the input's device. A module on the CPU is
-- run as it is, so a model built with nn.GPU layers also runs without a GPU.
require 'nn.Decorator'
local S = require 'nn.support'
local GPU, parent = torch.class('nn.GPU', 'nn.Decorator')

local NAME = 'nn.GPU'

--- nn.GPU(module, device[, outdevice = device]): device indices are 1-based as in cutorch
--- (torch.cuda's are 0-based: nn.GPU(m, 1) runs on 'cuda:0').
--- Example: nn.GPU(nn.Linear(2, 3), 1):forward(torch.ones(2))
function GPU:__init(module, device, outdevice)
  parent.__init(self, module)
  self.device = S.argInt(NAME, 'device', device, 1)
  self.outdevice = outdevice == nil and device or S.argInt(NAME, 'outdevice', outdevice, 1)
  local t = module:type()
  if type(t) == 'string' and t:match('^torch%.Cuda') then self:type(t) end
end

local function on_cuda(self)
  return type(self._type) == 'string' and self._type:match('^torch%.Cuda') ~= nil
end

-- Runs f() with cutorch device dev (1-based) current, restoring the previous one even on errors.
local function with_device(dev, f)
  local cur = torch.cuda.getDevice()
  torch.cuda.setDevice(dev - 1)
  local function finish(ok, ...)
    torch.cuda.setDevice(cur)
    if not ok then error((...), 0) end
    return ...
  end
  return finish(pcall(f))
end
GPU._withDevice = with_device

-- x (a tensor or nested table of them) with its CUDA tensors on device dev (1-based); CPU tensors
-- and tensors already there are kept (Torch7's recursiveSetDevice).
local function to_device(x, dev)
  if torch.isTensor(x) then
    if x:isCuda() and x:getDevice() ~= dev - 1 then return x:to('cuda:' .. (dev - 1)) end
    return x
  end
  if type(x) == 'table' then
    local out = {}
    for k, v in ipairs(x) do out[k] = to_device(v, dev) end
    return out
  end
  return x
end

-- y moved to the devices of proto's tensors (gradInput back where the input was).
local function like(y, proto)
  if torch.isTensor(y) and torch.isTensor(proto) and proto:isCuda() then return to_device(y, proto:getDevice() + 1) end
  if type(y) == 'table' and type(proto) == 'table' then
    local out = {}
    for k, v in ipairs(y) do out[k] = like(v, proto[k]) end
    return out
  end
  return y
end

function GPU:updateOutput(input)
  if not on_cuda(self) then return parent.updateOutput(self, input) end
  self._input = to_device(input, self.device)
  local out = with_device(self.device, function() return self.modules[1]:forward(self._input) end)
  self.output = self.device ~= self.outdevice and to_device(out, self.outdevice) or out
  return self.output
end

function GPU:updateGradInput(input, gradOutput)
  if not on_cuda(self) then return parent.updateGradInput(self, input, gradOutput) end
  self._gradOutput = to_device(gradOutput, self.device)
  local gi = with_device(self.device, function()
    return self.modules[1]:updateGradInput(self._input, self._gradOutput)
  end)
  self.gradInput = like(gi, input)
  return self.gradInput
end

function GPU:accGradParameters(input, gradOutput, scale)
  if not on_cuda(self) then return parent.accGradParameters(self, input, gradOutput, scale) end
  with_device(self.device, function() self.modules[1]:accGradParameters(self._input, self._gradOutput, scale) end)
end

function GPU:backward(input, gradOutput, scale)
  if not on_cuda(self) then return parent.backward(self, input, gradOutput, scale) end
  self._gradOutput = to_device(gradOutput, self.device)
  local gi = with_device(self.device, function()
    return self.modules[1]:backward(self._input, self._gradOutput, scale)
  end)
  self.gradInput = like(gi, input)
  return self.gradInput
end

--- m:setDevice([device]): moves the decorated module's CUDA tensors to device (1-based; default:
--- m.device) and makes it m's device; returns m.
--- Example: nn.GPU(nn.Linear(2, 3), 1):setDevice(1)
function GPU:setDevice(device)
  if device ~= nil then self.device = S.argInt(NAME, 'device', device, 1) end
  if on_cuda(self) then
    with_device(self.device, function() parent.type(self, self._type, {}) end)
  end
  return self
end

-- Converting to a CUDA type allocates on m.device.
function GPU:type(name, cache)
  if not name then return self._type end
  self._input, self._gradOutput = nil, nil
  if type(name) == 'string' and name:match('^torch%.Cuda') then
    with_device(self.device, function() parent.type(self, name, cache) end)
    return self
  end
  return parent.type(self, name, cache)
end

function GPU:clearState()
  self._input, self._gradOutput = nil, nil
  return parent.clearState(self)
end

function GPU:__tostring__()
  return torch.type(self) .. '(' .. self.device .. ') @ ' .. tostring(self.modules[1])
end

return GPU
