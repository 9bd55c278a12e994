-- Part of the char-rnn imitation (karpathy/char-rnn util/OneHot.lua): a module that turns a batch
-- of character indices into one-hot rows, by indexing the rows of a cached identity matrix.
local OneHot, parent = torch.class('OneHot', 'nn.Module')

function OneHot:__init(outputSize)
  parent.__init(self)
  self.outputSize = outputSize
  -- the identity matrix is cached (and saved with the module), as char-rnn did
  self._eye = torch.eye(outputSize)
end

function OneHot:updateOutput(input)
  self.output:resize(input:size(1), self.outputSize):zero()
  if self._eye == nil then self._eye = torch.eye(self.outputSize) end
  self._eye = self._eye:float()
  local longInput = input:long()
  self.output:copy(self._eye:index(1, longInput))
  return self.output
end
