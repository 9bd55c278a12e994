-- tostring/print of a torch.SparseTensor: its indices and values printed as Torch7 prints
-- tensors, then a closing line in Torch7's style with the size, the entry count and whether the
-- tensor is coalesced.
local U = require 'torch.sparse_util'
local mt = U.mt

--- tostring(S): S's 1-based indices and its values, then
--- "[torch.SparseTensor of size 2x3 with 2 entries (coalesced), torch.FloatTensor values]".
--- Example: tostring(torch.eye(2):toSparse())
function mt:__tostring__()
  local close = string.format('[torch.SparseTensor of size %s with %d entr%s (%s), %s values]',
    table.concat(self._size, 'x'), self:nnz(), self:nnz() == 1 and 'y' or 'ies',
    self._coalesced and 'coalesced' or 'not coalesced', torch.typename(self._values))
  if self:nnz() == 0 then return close end
  return table.concat({ 'indices:', tostring(self._indices), 'values:', tostring(self._values), close }, '\n')
end

return mt
