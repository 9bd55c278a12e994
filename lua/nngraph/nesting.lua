-- Helpers over "nested" values (a tensor or a table of them, at any depth) used to sum the
-- gradients that reach one node from several consumers.
local M = {}

--- nesting.clone(x): a copy of a tensor or nested table of tensors.
function M.clone(x)
  if torch.isTensor(x) then return x:clone() end
  local r = {}
  for k, v in pairs(x) do r[k] = M.clone(v) end
  return r
end

--- nesting.resizeAs(out, x): gives out x's structure and sizes (adding or dropping entries).
function M.resizeAs(out, x)
  if torch.isTensor(out) then out:resizeAs(x) return out end
  for k, v in pairs(x) do
    if out[k] == nil or torch.isTensor(out[k]) ~= torch.isTensor(v) then out[k] = M.clone(v)
    else M.resizeAs(out[k], v) end
  end
  for k in pairs(out) do if x[k] == nil then out[k] = nil end end
  return out
end

--- nesting.copy(out, x): copies x's values into out (same structure).
function M.copy(out, x)
  if torch.isTensor(out) then out:copy(x) return end
  for k, v in pairs(x) do M.copy(out[k], v) end
end

--- nesting.add(out, x): out += x, elementwise through the structure.
function M.add(out, x)
  if torch.isTensor(out) then out:add(x) return end
  for k, v in pairs(x) do
    if out[k] == nil then error('[nn.gModule] gradients of one node have different structures (missing key '
      .. tostring(k) .. ')', 0) end
    M.add(out[k], v)
  end
end

return M
