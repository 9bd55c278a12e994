-- Shared by the nn layers (not a class): argument checks whose errors name the module and what it
-- received, dims counted from the end or shifted past a batch dim, and recursive helpers over
-- tables of tensors (zeroed copies, copies, sums) for table-valued inputs and gradients.
local types = require 'torch.types'
local lib = require 'torch.lib'
local S = {}

--- 'torch.DoubleTensor of size 2x3', '{torch.DoubleTensor of size 2, ...}' or the Lua type.
function S.describe(x)
  if torch.isTensor(x) then return types.describe(x) end
  if type(x) == 'table' and getmetatable(x) == nil then
    local parts = {}
    for i, v in ipairs(x) do parts[i] = S.describe(v) end
    return '{' .. table.concat(parts, ', ') .. '}'
  end
  return torch.typename(x) or type(x)
end

--- 2x3 for sizes (a tensor, a LongStorage or a Lua list).
function S.sizestr(x)
  if torch.isTensor(x) then x = x:size() end
  if type(x) ~= 'table' then x = x:totable() end
  if #x == 0 then return '(0-dim)' end  -- a blank size read as a missing word in messages
  return table.concat(x, 'x')
end

--- S.outputBuffer(module, input): the module's output tensor, or a new one of input[1]'s type when
--- it is one of the table input's tensors (Note [Outputs fed back], nn/CAddTable.lua).
function S.outputBuffer(self, input)
  local o = self.output
  if not torch.isTensor(o) then return input[1].new() end
  for i = 1, #input do if input[i] == o then return input[1].new() end end
  return o
end

--- Raises '[name] message' (name: the module with its configuration).
function S.fail(name, fmt, ...)
  error('[' .. name .. '] ' .. string.format(fmt, ...), torch._lib.user_level())
end

--- Whether x is a finite integer.
function S.isint(x) return type(x) == 'number' and x == math.floor(x) and x > -math.huge and x < math.huge end

--- Constructor argument checks (errors at the user's line, lib.fail): an integer, at least min if given.
function S.argInt(name, what, x, min)
  if not S.isint(x) or (min and x < min) then
    lib.fail(name, '%s must be an integer%s, got %s', what, min and string.format(' >= %d', min) or '',
      type(x) == 'number' and tostring(x) or S.describe(x))
  end
  return x
end
--- A number argument, else an error naming the module and what it got.
function S.argNumber(name, what, x)
  if type(x) ~= 'number' then lib.fail(name, '%s must be a number, got %s', what, S.describe(x)) end
  return x
end
--- An optional boolean argument (nil means false).
function S.argBool(name, what, x)
  if x ~= nil and type(x) ~= 'boolean' then lib.fail(name, '%s must be true or false, got %s', what, S.describe(x)) end
  return x or false
end
--- A new tensor of the given sizes (a module's weight); sizes too large to allocate are refused
--- naming the module instead of the allocator.
function S.alloc(name, ...)
  local ok, t = pcall(torch.Tensor, ...)
  if not ok then
    local sizes = {}
    for i = 1, select('#', ...) do sizes[i] = string.format('%.0f', (select(i, ...))) end
    lib.fail(name, 'cannot allocate a %s weight: %s', table.concat(sizes, 'x'), (tostring(t):gsub('^.-%] ', '')))
  end
  return t
end

--- x itself when it is a tensor, else an error naming the module and what it got.
function S.tensor(name, x, what)
  if not torch.isTensor(x) then S.fail(name, 'expected %s (a tensor), got %s', what or 'a tensor input', S.describe(x)) end
  return x
end

--- A table of tensors: exactly n of them when n is given, at least `min` otherwise.
function S.tensors(name, x, n, min)
  local ok = type(x) == 'table' and getmetatable(x) == nil
  if ok then
    for i = 1, #x do if not torch.isTensor(x[i]) then ok = false end end
    if n and #x ~= n then ok = false end
    if min and #x < min then ok = false end
  end
  if not ok then
    local want = n and string.format('a table of %d tensors', n) or string.format('a table of at least %d tensors', min or 1)
    S.fail(name, 'expected %s, got %s', want, S.describe(x))
  end
  return x
end

--- Every tensor of the list has the size of the first one.
function S.sameSizes(name, list)
  for i = 2, #list do
    if not list[i]:isSameSizeAs(list[1]) then
      S.fail(name, 'input %d has size %s but input 1 has size %s', i, S.sizestr(list[i]), S.sizestr(list[1]))
    end
  end
end

--- gradOutput must have the output's size (a tensor of that size, or a Lua list of sizes): else
--- a copy would silently reshape it.
function S.gradLike(name, gradOutput, ref)
  local ok = torch.isTensor(gradOutput)
  if ok and torch.isTensor(ref) then ok = gradOutput:isSameSizeAs(ref)
  elseif ok then
    ok = gradOutput:dim() == #ref
    for i = 1, ok and #ref or 0 do if gradOutput:size(i) ~= ref[i] then ok = false end end
  end
  if not ok then
    S.fail(name, 'gradOutput is %s but the output is of size %s', S.describe(gradOutput), S.sizestr(ref))
  end
  return gradOutput
end

--- got has like's structure and sizes (tensors of the same size, tables of matching entries); a
--- nil entry inside a table is allowed when allowNil (a gradient nobody sent). Else an error.
function S.checkLike(name, what, got, like, allowNil)
  local function ok(g, l)
    if g == nil then return allowNil end
    if torch.isTensor(l) then return torch.isTensor(g) and g:isSameSizeAs(l) end
    if type(l) ~= 'table' or type(g) ~= 'table' or torch.isTensor(g) then return false end
    for i = 1, #l do if not ok(g[i], l[i]) then return false end end
    return true
  end
  if got == nil or not ok(got, like) then
    S.fail(name, '%s is %s, expected the shape %s', what, S.describe(got), S.describe(like))
  end
  return got
end

--- A 1-based dim: negative counts from the end; with nInputDims, an input with one more dim is a
--- batch and positive dims shift by one (Torch7's convention).
function S.dim(name, dim, input, nInputDims)
  local nd = input:dim()
  local d = dim
  if d < 0 then d = nd + d + 1
  elseif nInputDims and nd == nInputDims + 1 then d = d + 1 end
  if d < 1 or d > nd then
    S.fail(name, 'dimension %d is out of range for an input of size %s', dim, S.sizestr(input))
  end
  return d
end

--- Makes dst a zeroed structure shaped like src (tensors resized in place, tables recursed).
function S.zeroLike(dst, src)
  if torch.isTensor(src) then
    if not torch.isTensor(dst) or dst:type() ~= src:type() then dst = src.new() end
    return dst:resizeAs(src):zero()
  end
  if type(dst) ~= 'table' or torch.isTensor(dst) then dst = {} end
  for k, v in pairs(src) do dst[k] = S.zeroLike(dst[k], v) end
  for k in pairs(dst) do if src[k] == nil then dst[k] = nil end end
  return dst
end

--- Copies src into dst (same structure), resizing dst's tensors; returns dst. nil src gives zeros.
function S.copyInto(dst, src, like)
  if src == nil then return S.zeroLike(dst, like) end
  if torch.isTensor(src) then
    if not torch.isTensor(dst) or dst:type() ~= src:type() then dst = src.new() end
    return dst:resizeAs(src):copy(src)
  end
  if type(dst) ~= 'table' or torch.isTensor(dst) then dst = {} end
  for k, v in pairs(src) do dst[k] = S.copyInto(dst[k], v, like and like[k]) end
  for k in pairs(dst) do if src[k] == nil then dst[k] = nil end end
  return dst
end

--- dst += src for matching structures (for summing children's gradInputs).
function S.addInto(dst, src)
  if torch.isTensor(src) then return dst:add(src) end
  for k, v in pairs(src) do
    if dst[k] == nil then dst[k] = S.copyInto(nil, v) else dst[k] = S.addInto(dst[k], v) end
  end
  return dst
end

--- True when autograd should see this computation (grad mode on and some tensor needs grad).
function S.recording(list)
  if not torch.isGradEnabled() then return false end
  for _, t in ipairs(list) do if t:needsGrad() then return true end end
  return false
end

return S
