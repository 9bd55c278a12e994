-- tnt.ShuffleDataset (Torch7 torchnet's dataset/shuffledataset.lua): a ResampleDataset over a
-- random permutation (or, with replacement, random draws) that stays fixed until resample().
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.dataset.resampledataset'

local ShuffleDataset, ResampleDataset = torch.class('tnt.ShuffleDataset', 'tnt.ResampleDataset', tnt)

local args = argcheck.parser{ name = 'tnt.ShuffleDataset',
  { name = 'dataset', type = 'tnt.Dataset' },
  { name = 'size', type = 'number', opt = true },
  { name = 'replacement', type = 'boolean', default = false },
}

--- tnt.ShuffleDataset{dataset=[, size=, replacement=false]}: the samples of dataset in a random
--- order (the first size of a permutation, drawn from torch's generator), or size uniform draws
--- with replacement (size may then exceed dataset:size()).
--- Example: local tnt = require 'torchnet'; torch.manualSeed(1)
---   local s = tnt.ShuffleDataset{dataset = tnt.TableDataset{data = {1, 2, 3}}}  -- a permutation of 1, 2, 3
function ShuffleDataset:__init(...)
  local dataset, size, replacement = args(...)
  if size and (size ~= math.floor(size) or size < 0) then
    error(string.format('[tnt.ShuffleDataset] size should be a non-negative integer, got %s', tostring(size)), 2)
  end
  if size and not replacement and size > dataset:size() then
    error(string.format('[tnt.ShuffleDataset] size (%d) cannot be larger than the underlying dataset size (%d) '
      .. 'when sampling without replacement', size, dataset:size()), 2)
  end
  self.__replacement = replacement
  -- the sampler reads the current permutation, so resample() takes effect at once
  local function sampler(_, idx) return self.__perm[idx] end
  ResampleDataset.__init(self, { dataset = dataset, sampler = sampler, size = size })
  self:resample()
end

--- shuffledataset:resample(): draws a new permutation (or new draws with replacement).
--- Example: local tnt = require 'torchnet'; local s = tnt.ShuffleDataset{dataset = tnt.TableDataset{data = {1, 2, 3}}}; s:resample()
function ShuffleDataset:resample()
  local n = self.__dataset:size()
  if self.__replacement then
    self.__perm = torch.LongTensor(self:size()):random(n)
  else
    self.__perm = torch.randperm(n):long():narrow(1, 1, self:size())
  end
end

return ShuffleDataset
