-- Collating samples into a batch: tensors of one size are stacked along a new first dimension,
-- numbers become a tensor, tables are collated field by field; mismatches are errors naming the
-- sample and the field (never a silently dropped or padded sample).
local torch = require 'torch'

local collate = {}

local function shape(t)
  local s = {}
  for d = 1, t:dim() do s[d] = t:size(d) end
  return #s == 0 and 'a scalar' or table.concat(s, 'x')
end

local function where(path) return path == '' and '' or (' field ' .. path) end

local function fail(ctx, i, path, msg)
  local index = ctx.indices and ctx.indices[i]
  error(string.format('[DataLoader] %ssample %d%s%s: %s', ctx.what or '', i,
    index and string.format(' (dataset index %d)', index) or '', where(path), msg), 0)
end

local function is_integer(x) return x == math.floor(x) and x > -2 ^ 53 and x < 2 ^ 53 end

local merge

local function merge_tensors(samples, ctx, path)
  local first = samples[1]
  for i = 2, #samples do
    local t = samples[i]
    if not torch.isTensor(t) then fail(ctx, i, path, 'expected a tensor like sample 1, got ' .. type(t)) end
    if not t:isSameSizeAs(first) then
      fail(ctx, i, path, 'size ' .. shape(t) .. ' differs from sample 1\'s ' .. shape(first))
    end
    if t:type() ~= first:type() then
      fail(ctx, i, path, 'type ' .. t:type() .. ' differs from sample 1\'s ' .. first:type())
    end
  end
  return torch.stack(samples, 1)
end

local function merge_numbers(samples, ctx, path)
  local integers = true
  for i, x in ipairs(samples) do
    if type(x) ~= 'number' then fail(ctx, i, path, 'expected a number like sample 1, got ' .. type(x)) end
    integers = integers and is_integer(x)
  end
  return integers and torch.LongTensor(samples) or torch.Tensor(samples)
end

local function merge_tables(samples, ctx, path)
  local first, out = samples[1], {}
  for i = 2, #samples do
    local s = samples[i]
    if type(s) ~= 'table' then fail(ctx, i, path, 'expected a table like sample 1, got ' .. type(s)) end
    for k in pairs(s) do
      if first[k] == nil then fail(ctx, i, path, 'has field ' .. tostring(k) .. ' that sample 1 lacks') end
    end
  end
  for k in pairs(first) do
    local column = {}
    for i, s in ipairs(samples) do
      local v = s[k]
      if v == nil then fail(ctx, i, path, 'lacks field ' .. tostring(k) .. ' that sample 1 has') end
      column[i] = v
    end
    out[k] = merge(column, ctx, path == '' and tostring(k) or (path .. '.' .. tostring(k)))
  end
  return out
end

merge = function(samples, ctx, path)
  local first = samples[1]
  local t = type(first)
  if torch.isTensor(first) then return merge_tensors(samples, ctx, path)
  elseif t == 'number' then return merge_numbers(samples, ctx, path)
  elseif t == 'table' and getmetatable(first) == nil then return merge_tables(samples, ctx, path)
  elseif t == 'string' or t == 'boolean' or t == 'table' then
    for i = 2, #samples do
      if type(samples[i]) ~= t then fail(ctx, i, path, 'expected a ' .. t .. ' like sample 1, got ' .. type(samples[i])) end
    end
    return samples  -- strings, booleans and objects stay a list
  end
  fail(ctx, 1, path, 'cannot batch a ' .. t)
end

--- collate.default(samples[, ctx]): the batch of a list of samples. ctx.indices (dataset
--- indices of the samples) and ctx.what name them in errors.
--- Example: data.collate({torch.ones(2), torch.zeros(2)})
function collate.default(samples, ctx)
  ctx = ctx or {}
  if type(samples) ~= 'table' or getmetatable(samples) ~= nil then
    error(string.format('[DataLoader] collate expects a list of samples, got %s', torch.type(samples)), 2)
  end
  if #samples == 0 then error('[DataLoader] cannot collate an empty list of samples', 0) end
  return merge(samples, ctx, '')
end

return collate
