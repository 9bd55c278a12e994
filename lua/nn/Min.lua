-- nn.Min([dimension = 1, nInputDims]): the minimum over dimension, which is removed (negative
-- from the end; with nInputDims, one more input dim is a batch). The gradient goes to the
-- position of the minimum. Everything but the reduction is nn.Max's.
require 'nn.Max'
local Min = torch.class('nn.Min', 'nn.Max')
Min._reduce = 'min'

return Min
