-- data.BatchSampler (PyTorch's torch.utils.data.BatchSampler), and reading any sampler's length
-- and indices whatever shape it has (Note [Sampler protocol], data/samplers.lua).
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'

-- A sampler's length and indices, whatever shape it has (Note [Sampler protocol]); op names the
-- caller in errors.
local function sampler_size(op, s)
  if type(s) == 'table' and getmetatable(s) == nil and s.size == nil and s.len == nil then return #s end
  if type(s) == 'table' then
    if type(s.size) == 'function' then return s:size() end
    if type(s.len) == 'function' then return s:len() end
  end
  util.fail(op, 'the sampler has neither size() nor len(): %s', torch.type(s))
end
local function sampler_indices(op, s, epoch)
  if type(s) == 'table' and getmetatable(s) == nil and s.indices == nil and s.iter == nil then
    return data._list_of(op, 'the sampler', s)
  end
  if type(s.indices) == 'function' then return s:indices(epoch) end
  if type(s.iter) == 'function' then
    local out = {}
    for i in s:iter(epoch) do out[#out + 1] = i end
    return out
  end
  util.fail(op, 'the sampler has neither indices(epoch) nor iter(epoch): %s', torch.type(s))
end
data._sampler_size, data._sampler_indices = sampler_size, sampler_indices

local Batch = torch.class('data.BatchSampler', data)

--- data.BatchSampler(sampler, batchSize, dropLast): lists of batchSize consecutive indices of
--- sampler (a sampler or a Lua list of indices); the last list is smaller unless dropLast.
--- Example: data.BatchSampler(data.SequentialSampler(5), 2, false):batches()
function Batch:__init(sampler, batchSize, dropLast)
  if type(sampler) ~= 'table' and not torch.isTensor(sampler) then
    util.fail('BatchSampler', 'argument #1: expected a sampler or a list of indices, got %s', torch.type(sampler))
  end
  if torch.isTensor(sampler) then sampler = data._list_of('BatchSampler', 'the sampler', sampler) end
  sampler_size('BatchSampler', sampler)
  if type(batchSize) ~= 'number' or batchSize < 1 or batchSize ~= math.floor(batchSize) then
    util.fail('BatchSampler', 'batchSize must be a positive integer, got %s', tostring(batchSize))
  end
  if type(dropLast) ~= 'boolean' then util.fail('BatchSampler', 'dropLast must be a boolean, got %s', tostring(dropLast)) end
  self.sampler, self.batchSize, self.dropLast = sampler, batchSize, dropLast
end
--- The number of batches.
function Batch:size()
  local n = sampler_size('BatchSampler', self.sampler)
  return self.dropLast and math.floor(n / self.batchSize) or math.ceil(n / self.batchSize)
end
--- The same as size().
function Batch:len() return self:size() end
--- batchSampler:batches([epoch]): the list of lists of indices of an epoch.
function Batch:batches(epoch)
  local idx, out, b = sampler_indices('BatchSampler', self.sampler, epoch), {}, self.batchSize
  local count = self.dropLast and math.floor(#idx / b) or math.ceil(#idx / b)
  for k = 1, count do
    local batch = {}
    for j = (k - 1) * b + 1, math.min(k * b, #idx) do batch[#batch + 1] = idx[j] end
    out[k] = batch
  end
  return out
end
--- batchSampler:iter([epoch]): an iterator over the lists of indices.
function Batch:iter(epoch)
  local list, k = self:batches(epoch), 0
  return function()
    k = k + 1
    return list[k]
  end
end
--- batchSampler:setEpoch(epoch): passes the epoch on to the wrapped sampler when it has setEpoch.
function Batch:setEpoch(epoch)
  if type(self.sampler.setEpoch) == 'function' then self.sampler:setEpoch(epoch) end
end
function Batch:__tostring__() return string.format('data.BatchSampler (%d batches of %d)', self:size(), self.batchSize) end

return data
