-- nn.CMinTable(): the elementwise minimum of a table of same-size tensors; the gradient goes to
-- the input holding the minimum (the first one on ties). All but the comparison is nn.CMaxTable's.
require 'nn.CMaxTable'
local CMinTable = torch.class('nn.CMinTable', 'nn.CMaxTable')
CMinTable._better, CMinTable._combine = 'lt', 'cmin'

return CMinTable
