-- nn.Bottle(module [, nInputDim = 2] [, nOutputDim = nInputDim]): Torch7's nn.Bottle: an input
-- with more than nInputDim dims has its leading dims merged into one, goes through module, and
-- the output (nOutputDim dims) gets the leading dims back (e.g. nn.Linear over B x T x D).
require 'nn.Container'
local A = require 'nn.functional_args'
local Bottle, parent = torch.class('nn.Bottle', 'nn.Container')

function Bottle:__init(module, nInputDim, nOutputDim)
  parent.__init(self)
  if type(module) ~= 'table' or not module.forward then
    A.fail('nn.Bottle', 'expected a module, got %s', nn.utils.describe(module))
  end
  self.nInputDim = A.int('nn.Bottle', nInputDim, 'nInputDim', 2)
  self.nOutputDim = A.int('nn.Bottle', nOutputDim, 'nOutputDim', self.nInputDim)
  if self.nInputDim < 1 or self.nOutputDim < 1 then A.fail('nn.Bottle', 'nInputDim and nOutputDim must be positive') end
  self.modules[1] = module
end

-- The input as the module sees it, and the leading (batch) sizes merged (nil: no bottling).
function Bottle:_squeeze(input)
  if not torch.isTensor(input) then A.fail(tostring(self), 'expected a tensor, got %s', nn.utils.describe(input)) end
  local batch = input:dim() - self.nInputDim + 1
  if batch <= 1 then return input, nil end
  local lead, m = {}, 1
  for i = 1, batch do lead[i] = input:size(i) m = m * input:size(i) end
  local size = { m }
  for i = batch + 1, input:dim() do size[#size + 1] = input:size(i) end
  return input:reshape(torch.LongStorage(size)), lead
end

local function unsqueeze(self, out, lead)
  if not torch.isTensor(out) then  -- a table output cannot get the leading dims back
    A.fail(tostring(self), 'the module returned %s, expected a tensor of nOutputDim = %d dims', nn.utils.describe(out),
      self.nOutputDim)
  end
  if out:dim() ~= self.nOutputDim then
    A.fail(tostring(self), 'the module returned %d dims, expected nOutputDim = %d', out:dim(), self.nOutputDim)
  end
  local size = {}
  for i, v in ipairs(lead) do size[i] = v end
  for i = 2, out:dim() do size[#size + 1] = out:size(i) end
  return out:reshape(torch.LongStorage(size))
end

function Bottle:updateOutput(input)
  local x, lead = self:_squeeze(input)
  local out = self:rethrowErrors(self.modules[1], 1, 'forward', x)
  self.output = lead and unsqueeze(self, out, lead) or out
  return self.output
end

function Bottle:updateGradInput(input, gradOutput)
  local x, lead = self:_squeeze(input)
  local g = lead and gradOutput:reshape(self.modules[1].output:size()) or gradOutput
  local gi = self.modules[1]:updateGradInput(x, g)
  self.gradInput = lead and gi:reshape(input:size()) or gi
  return self.gradInput
end

function Bottle:accGradParameters(input, gradOutput, scale)
  local x, lead = self:_squeeze(input)
  local g = lead and gradOutput:reshape(self.modules[1].output:size()) or gradOutput
  self.modules[1]:accGradParameters(x, g, scale)
end

-- Without this, Module's accUpdateGradParameters (which swaps the module's own weight in for
-- gradWeight) ran the child's accGradParameters: the child's gradients moved, its weights did not.
function Bottle:accUpdateGradParameters(input, gradOutput, lr)
  local x, lead = self:_squeeze(input)
  local g = lead and gradOutput:reshape(self.modules[1].output:size()) or gradOutput
  self.modules[1]:accUpdateGradParameters(x, g, lr)
end

function Bottle:backward(input, gradOutput, scale)
  local x, lead = self:_squeeze(input)
  local g = lead and gradOutput:reshape(self.modules[1].output:size()) or gradOutput
  local gi = self.modules[1]:backward(x, g, scale)
  self.gradInput = lead and gi:reshape(input:size()) or gi
  return self.gradInput
end

function Bottle:__tostring__()
  return string.format('nn.Bottle(%s, %d -> %d)', tostring(self.modules[1]), self.nInputDim, self.nOutputDim)
end

return Bottle
