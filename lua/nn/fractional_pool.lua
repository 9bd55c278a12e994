-- The pooling windows of Torch7's fractional max pooling, shared by nn.SpatialFractionalMaxPooling
-- and nn.VolumetricFractionalMaxPooling (one axis at a time).
local M = {}

-- Torch7's window starts (P x out, 0-based) from the samples u (P): floor((i + u) * alpha) -
-- floor(u * alpha), alpha = (in - pool) / (out - 1), and in - pool for the last window.
function M.intervals(u, inSize, outSize, pool, like)
  local P = u:size(1)
  local seq = nn.utils.longBuffer(nil, like):resize(P, outSize)
  if outSize > 1 then
    local alpha = (inSize - pool) / (outSize - 1)
    local i = torch.range(0, outSize - 2):typeAs(u):view(1, outSize - 1)
    local starts = torch.add(i, u:view(P, 1)):mul(alpha):floor():csub(torch.mul(u, alpha):floor():view(P, 1))
    seq:narrow(2, 1, outSize - 1):copy(starts)
  end
  seq:select(2, outSize):fill(inSize - pool)
  return seq
end

return M
