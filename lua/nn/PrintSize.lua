-- nn.PrintSize([prefix]): passes its input through and prints its size, and in backward the
-- size of gradOutput (Torch7's nn, from dpnn): a debugging aid.
local S = require 'nn.support'
local PrintSize, parent = torch.class('nn.PrintSize', 'nn.Module')

function PrintSize:__init(prefix)
  parent.__init(self)
  if prefix ~= nil and type(prefix) ~= 'string' then
    error('[nn.PrintSize] prefix must be a string, got ' .. S.describe(prefix), torch._lib.user_level())
  end
  self.prefix = prefix or 'PrintSize'
end

-- A tensor's size (a LongStorage, printed as Torch7 does), a table's description, or 'missing size'.
local function size_of(x)
  if torch.isTensor(x) then return x:size() end
  if x == nil then return 'missing size' end
  return S.describe(x)
end

function PrintSize:updateOutput(input)
  print(self.prefix .. ':input\n', size_of(input))
  self.output = input
  return input
end

function PrintSize:updateGradInput(input, gradOutput)
  print(self.prefix .. ':gradOutput\n', size_of(gradOutput))
  self.gradInput = gradOutput
  return gradOutput
end

return PrintSize
