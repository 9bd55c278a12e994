-- nn.MaskedSelect(): {tensor, mask} -> tensor:maskedSelect(mask), a vector of the elements where
-- the mask (a ByteTensor or BoolTensor) is nonzero, in row-major order (Torch7). Built from the
-- differentiable maskedSelect op: the gradient puts gradOutput back at the mask's positions and
-- zeros elsewhere; the mask gets a zero gradient.
local S = require 'nn.support'
local dtype = require('torch.lib').dtype
local MaskedSelect, parent = torch.class('nn.MaskedSelect', 'nn.Module')

function MaskedSelect:__init(mask)
  parent.__init(self)
  -- Torch7's first version took the mask here; the table input replaced it.
  if mask ~= nil then
    error('[nn.MaskedSelect] takes no arguments (the mask is the second input: {tensor, mask}), got '
      .. S.describe(mask), torch._lib.user_level())
  end
end

local function op_message(err) return (tostring(err):gsub('^[^%[]*', '')) end

function MaskedSelect:updateOutput(input)
  S.tensors('nn.MaskedSelect', input, 2)
  local t, mask = input[1], input[2]
  if mask.p.dtype ~= dtype.u8 and mask.p.dtype ~= dtype.bool then
    S.fail('nn.MaskedSelect', 'expected the mask as a ByteTensor or BoolTensor, got %s', S.describe(mask))
  end
  -- Torch7 pairs tensor and mask element by element in row-major order when their shapes differ
  -- but their sizes agree; the op does that too and also broadcasts a smaller mask.
  local ok, out = pcall(t.maskedSelect, t, mask)
  if not ok then S.fail('nn.MaskedSelect', '%s', op_message(out)) end
  self.output = out
  return out
end

return MaskedSelect
