-- tnt.BatchDataset (Torch7 torchnet's dataset/batchdataset.lua): consecutive samples of a dataset
-- (through an optional permutation) merged into batch samples, with a policy for the last one.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local transform = require 'torchnet.transform'
require 'torchnet.dataset'

local BatchDataset = torch.class('tnt.BatchDataset', 'tnt.Dataset', tnt)

local spec = { name = 'tnt.BatchDataset',
  { name = 'dataset', type = 'tnt.Dataset' },
  { name = 'batchsize', type = 'number' },
  { name = 'perm', type = 'function', default = function(idx) return idx end },
  { name = 'merge', type = 'function', opt = true },
  { name = 'policy', type = 'string', default = 'include-last' },
  { name = 'filter', type = 'function', default = function() return true end },
}
local args = argcheck.parser(spec)
local POLICIES = { ['include-last'] = true, ['skip-last'] = true, ['divisible-only'] = true }

--- tnt.BatchDataset{dataset=, batchsize=[, perm=, merge=, policy='include-last', filter=]}: batch i
--- holds the samples (i-1)*batchsize+1 .. i*batchsize of dataset, each read as dataset:get(perm(j, size))
--- and kept when filter(sample); merge(fields) builds the batch (default: tnt.transform.makebatch,
--- which stacks same-sized tensors). policy: 'include-last' (a smaller last batch), 'skip-last'
--- (drop it) or 'divisible-only' (the size must divide).
--- Example: local tnt = require 'torchnet'
---   local data = {}; for i = 1, 5 do data[i] = {input = torch.Tensor{i}} end
---   local b = tnt.BatchDataset{dataset = tnt.TableDataset{data = data}, batchsize = 2}  -- 3 batches, b:get(3).input is 1x1
function BatchDataset:__init(...)
  local dataset, batchsize, perm, merge, policy, filter = args(...)
  if batchsize <= 0 or batchsize ~= math.floor(batchsize) then
    error(string.format('[%s] batchsize should be a positive integer number, got %s', torch.type(self), tostring(batchsize)), 2)
  end
  if not POLICIES[policy] then
    error(string.format('[%s] invalid policy %q (include-last | skip-last | divisible-only expected)', torch.type(self), policy), 2)
  end
  self.dataset, self.perm, self.batchsize, self.policy, self.filter = dataset, perm, batchsize, policy, filter
  self.makebatch = transform.makebatch{ merge = merge }
  local ok, err = pcall(self.size, self)  -- checks divisible-only now, as torchnet did
  if not ok then error(err, 2) end
end

--- batchdataset:size(): the number of batches under the policy.
--- Example: local tnt = require 'torchnet'
---   local n = tnt.BatchDataset{dataset = tnt.TableDataset{data = {1, 2, 3}}, batchsize = 2, policy = 'skip-last'}:size()  -- 1
function BatchDataset:size()
  local n, bs = self.dataset:size(), self.batchsize
  local policy = self.policy
  if policy == 'include-last' then
    return math.ceil(n / bs)
  elseif policy == 'skip-last' then
    return math.floor(n / bs)
  end
  if n % bs ~= 0 then
    error(string.format('[%s] dataset size (%d) is not divisible by batch size (%d) (policy divisible-only)',
      torch.type(self), n, bs), 2)
  end
  return n / bs
end

--- batchdataset:get(idx): the merged batch idx.
--- Example: local tnt = require 'torchnet'
---   local b = tnt.BatchDataset{dataset = tnt.TableDataset{data = {{x = torch.ones(2)}, {x = torch.zeros(2)}}}, batchsize = 2}:get(1)  -- b.x is 2x2
function BatchDataset:get(idx)
  self:__checkindex(idx, self:size())
  local samples = {}
  local maxidx = self.dataset:size()
  for i = 1, self.batchsize do
    local j = (idx - 1) * self.batchsize + i
    if j > maxidx then break end
    local sample = self.dataset:get(self.perm(j, maxidx))
    if self.filter(sample) then samples[#samples + 1] = sample end
  end
  return self.makebatch(samples)
end

return BatchDataset
