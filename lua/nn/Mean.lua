-- nn.Mean([dimension = 1, nInputDims]): the mean over dimension: nn.Sum with sizeAverage (Torch7).
require 'nn.Sum'
local Mean, parent = torch.class('nn.Mean', 'nn.Sum')

function Mean:__init(dimension, nInputDims)
  parent.__init(self, dimension, nInputDims, true)
end

return Mean
