-- tnt.CoroutineBatchDataset (Torch7 torchnet's dataset/coroutinebatchdataset.lua): a BatchDataset
-- whose underlying get() may coroutine.yield() once, so a dataset can queue all the indices of a
-- batch before fetching them (every get of the batch starts before any finishes).
local torch = require 'torch'
local tnt = require 'torchnet.env'
require 'torchnet.dataset.batchdataset'

local CoroutineBatchDataset, BatchDataset = torch.class('tnt.CoroutineBatchDataset', 'tnt.BatchDataset', tnt)

--- tnt.CoroutineBatchDataset{dataset=, batchsize=[, perm=, merge=, policy=, filter=]}: as
--- tnt.BatchDataset; the underlying dataset's get may call coroutine.yield() once.
--- Example: local tnt = require 'torchnet'
---   local b = tnt.CoroutineBatchDataset{dataset = tnt.TableDataset{data = {{x = torch.ones(1)}, {x = torch.ones(1)}}}, batchsize = 2}
function CoroutineBatchDataset:__init(...)
  BatchDataset.__init(self, ...)
end

local function resume(co)
  local ok, sample = coroutine.resume(co)
  if not ok then error(string.format('[tnt.CoroutineBatchDataset.get] dataset threw error: %s', tostring(sample)), 0) end
  return sample
end

--- coroutinebatchdataset:get(idx): batch idx, its samples fetched through coroutines.
--- Example: local tnt = require 'torchnet'
---   local s = tnt.CoroutineBatchDataset{dataset = tnt.TableDataset{data = {{x = torch.ones(1)}}}, batchsize = 1}:get(1)
function CoroutineBatchDataset:get(idx)
  self:__checkindex(idx, self:size())
  local crs, samples, maxidx = {}, {}, self.dataset:size()
  local count = 0
  for n = 1, self.batchsize do
    local j = (idx - 1) * self.batchsize + n
    if j > maxidx then break end
    count = n
    crs[n] = coroutine.create(function() return self.dataset:get(self.perm(j, maxidx)) end)
    local sample = resume(crs[n])
    if coroutine.status(crs[n]) == 'dead' then samples[n] = sample end
  end
  for n = 1, count do
    if coroutine.status(crs[n]) == 'suspended' then
      samples[n] = resume(crs[n])
      if coroutine.status(crs[n]) ~= 'dead' then
        error('[tnt.CoroutineBatchDataset.get] the dataset yielded more than once in get()', 2)
      end
    end
  end
  local filtered = {}
  for n = 1, count do
    if self.filter(samples[n]) then filtered[#filtered + 1] = samples[n] end
  end
  return self.makebatch(filtered)
end

return CoroutineBatchDataset
