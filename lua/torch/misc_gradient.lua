-- torch.gradient: PyTorch's (NumPy's) finite-difference gradient, central differences inside
-- and one-sided first- or second-order differences at the edges, for uniform spacings or
-- coordinates, built from narrow and arithmetic so it is differentiable on every device.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor

local OP = 'gradient'

-- Coordinate differences c[i+1] - c[i] (i = from .. from+len-1) shaped to broadcast along dim d.
local function diffs(c, from, len, d, nd)
  local h = c:narrow(1, from + 1, len) - c:narrow(1, from, len)
  local shape = {}
  for i = 1, nd do shape[i] = i == d and len or 1 end
  return h:contiguous():view(torch.LongStorage(shape))
end

-- The gradient along dim d with uniform spacing h (a number) or coordinates c (a 1-D tensor).
local function along(x, d, h, c, edge)
  local n, nd = x:size(d), x:dim()
  local function f(i, len) return x:narrow(d, i, len or 1) end
  local parts = {}
  if c == nil then
    if edge == 1 then
      parts[1] = (f(2) - f(1)) / h
    else
      parts[1] = (f(1) * -3 + f(2) * 4 - f(3)) / (2 * h)
    end
    if n > 2 then parts[2] = (f(3, n - 2) - f(1, n - 2)) / (2 * h) end
    if edge == 1 then
      parts[#parts + 1] = (f(n) - f(n - 1)) / h
    else
      parts[#parts + 1] = (f(n) * 3 - f(n - 1) * 4 + f(n - 2)) / (2 * h)
    end
    return (torch.cat(parts, d))
  end
  local h0 = diffs(c, 1, 1, d, nd)
  local hn = diffs(c, n - 1, 1, d, nd)
  if edge == 1 then
    parts[1] = torch.cdiv(f(2) - f(1), h0)
  else
    -- NumPy's second-order one-sided weights for uneven steps h1, h2.
    local h1, h2 = h0, diffs(c, 2, 1, d, nd)
    local s = h1 + h2
    local a = -torch.cdiv(h1 * 2 + h2, torch.cmul(h1, s))
    local b = torch.cdiv(s, torch.cmul(h1, h2))
    local cc = -torch.cdiv(h1, torch.cmul(h2, s))
    parts[1] = torch.cmul(a, f(1)) + torch.cmul(b, f(2)) + torch.cmul(cc, f(3))
  end
  if n > 2 then
    local hl, hr = diffs(c, 1, n - 2, d, nd), diffs(c, 2, n - 2, d, nd)
    local num = torch.cmul(torch.cmul(hl, hl), f(3, n - 2)) - torch.cmul(torch.cmul(hr, hr), f(1, n - 2))
      + torch.cmul(torch.cmul(hr, hr) - torch.cmul(hl, hl), f(2, n - 2))
    parts[2] = torch.cdiv(num, torch.cmul(torch.cmul(hl, hr), hl + hr))
  end
  if edge == 1 then
    parts[#parts + 1] = torch.cdiv(f(n) - f(n - 1), hn)
  else
    local h1, h2 = diffs(c, n - 2, 1, d, nd), hn
    local s = h1 + h2
    local a = torch.cdiv(h2, torch.cmul(h1, s))
    local b = -torch.cdiv(s, torch.cmul(h1, h2))
    local cc = torch.cdiv(h2 * 2 + h1, torch.cmul(h2, s))
    parts[#parts + 1] = torch.cmul(a, f(n - 2)) + torch.cmul(b, f(n - 1)) + torch.cmul(cc, f(n))
  end
  return (torch.cat(parts, d))
end

--- torch.gradient(x [, {spacing = 1, dim = all, edgeOrder = 1}]): the gradient of the samples x
--- along each dim asked, in a table of tensors (one per dim, in order): central differences
--- inside, one-sided differences of order edgeOrder (1 or 2) at the ends, as PyTorch and
--- NumPy. spacing is a number (the step of every dim), a table of numbers (one per dim) or a
--- table of 1-D coordinate tensors (uneven steps); dim a number or a table of 1-based dims.
--- Each dim needs at least edgeOrder + 1 elements. Differentiable.
--- Example: torch.gradient(torch.Tensor({1, 4, 9, 16}))[1]
function torch.gradient(x, opts)
  check_tensor(OP, x, 1)
  if opts == nil then opts = {} end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail(OP, 'expected options as a table {spacing=, dim=, edgeOrder=}, got %s', describe(opts))
  end
  for k in pairs(opts) do
    if k ~= 'spacing' and k ~= 'dim' and k ~= 'edgeOrder' then fail(OP, 'unknown option %s', tostring(k)) end
  end
  local nd = x:dim()
  if nd == 0 then fail(OP, 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  local edge = opts.edgeOrder or 1
  if edge ~= 1 and edge ~= 2 then fail(OP, 'edgeOrder must be 1 or 2, got %s', tostring(edge)) end
  local dims = {}
  if opts.dim == nil then
    for i = 1, nd do dims[i] = i end
  else
    local list = type(opts.dim) == 'table' and opts.dim or { opts.dim }
    local seen = {}
    for i, d in ipairs(list) do
      if type(d) ~= 'number' then fail(OP, 'dim %d is a %s, expected a number', i, describe(d)) end
      dims[i] = types.cdim(OP, d, nd) % nd + 1  -- cdim keeps a negative dim negative
      if seen[dims[i]] then fail(OP, 'dim %d appears twice', d) end
      seen[dims[i]] = true
    end
  end
  local sp = opts.spacing == nil and 1 or opts.spacing
  local steps, coords = {}, {}
  if type(sp) == 'number' then
    for i = 1, #dims do steps[i] = sp end
  elseif type(sp) == 'table' and getmetatable(sp) == nil then
    if #sp ~= #dims then
      fail(OP, 'spacing has %d entries but %d dims are differentiated', #sp, #dims)
    end
    for i, s in ipairs(sp) do
      if type(s) == 'number' then steps[i] = s
      elseif is_tensor(s) and s:dim() == 1 then
        if s:size(1) ~= x:size(dims[i]) then
          fail(OP, 'coordinates %d have %d elements but dim %d has size %d', i, s:size(1), dims[i], x:size(dims[i]))
        end
        coords[i] = s
      else
        fail(OP, 'spacing %d must be a number or a 1-D tensor of coordinates, got %s', i, describe(s))
      end
    end
  else
    fail(OP, 'spacing must be a number or a table of numbers or 1-D tensors, got %s', describe(sp))
  end
  if x.p.dtype ~= lib.dtype.f32 and x.p.dtype ~= lib.dtype.f64 and x.p.dtype ~= lib.dtype.f16
    and x.p.dtype ~= lib.dtype.bf16 then
    x = lib.wrap(lib.C.tocha_tensor_to_dtype(x.p, torch._default_dtype()))
  end
  local out = {}
  for i, d in ipairs(dims) do
    if x:size(d) < edge + 1 then
      fail(OP, 'each differentiated dim needs at least edgeOrder + 1 = %d elements, dim %d has %d', edge + 1, d, x:size(d))
    end
    local c = coords[i]
    if c and (c.p.dtype ~= x.p.dtype or c.p.device_type ~= x.p.device_type) then c = c:type(x:type()) end
    out[i] = along(x, d, steps[i], c, edge)
  end
  return out
end

return torch
