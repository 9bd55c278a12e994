-- data.DistributedSampler: the share of a dataset's indices that one rank of a data-parallel job
-- reads, with a shuffle that every rank draws alike from (seed, epoch); used by data.DataLoader's
-- sampler= option.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'

local Sampler = torch.class('data.DistributedSampler', data)

-- Note [Distributed shards]: every rank computes the same order of 1..n (a permutation seeded by
-- mix(seed, epoch), or the identity), pads it by wrapping around to a multiple of numReplicas
-- (or, with dropLast, cuts it down to one), and takes every numReplicas-th index from position
-- rank + 1. The shards are disjoint, each has size() indices, and together they cover the
-- dataset (plus the few padded repeats).

--- data.DistributedSampler(dataset, {numReplicas=, rank=, shuffle=true, seed=0, dropLast=false}):
--- this rank's indices of dataset (an object with size(), or a number of samples). numReplicas and
--- rank default to torch.distributed's size() and rank(); seed must agree across ranks.
function Sampler:__init(dataset, opts)
  opts = opts or {}
  if type(opts) ~= 'table' then util.fail('DistributedSampler', 'options must be a table, got %s', type(opts)) end
  local n = type(dataset) == 'number' and dataset or nil
  if n and (n < 0 or n ~= math.floor(n)) then
    util.fail('DistributedSampler', 'argument #1: expected a dataset or a non-negative integer count, got %s', tostring(n))
  end
  if not n then
    util.check_dataset('DistributedSampler', dataset, 1)
    n = dataset:size()
  end
  local dist = torch.distributed
  local replicas = opts.numReplicas or dist.size()
  local rank = opts.rank or dist.rank()
  if type(replicas) ~= 'number' or replicas < 1 or replicas % 1 ~= 0 then
    util.fail('DistributedSampler', 'numReplicas must be a positive integer, got %s', tostring(replicas))
  end
  if type(rank) ~= 'number' or rank < 0 or rank >= replicas or rank % 1 ~= 0 then
    util.fail('DistributedSampler', 'rank must be an integer in 0..%d, got %s', replicas - 1, tostring(rank))
  end
  self.n, self.numReplicas, self.rank = n, replicas, rank
  self.shuffle = opts.shuffle ~= false
  self.seed = util.check_seed('DistributedSampler', opts.seed or 0)
  self.dropLast = opts.dropLast and true or false
  self.numSamples = self.dropLast and math.floor(n / replicas) or math.ceil(n / replicas)
end

--- sampler:size(): the number of indices this rank gets per epoch.
function Sampler:size() return self.numSamples end

--- sampler:setEpoch(epoch): the epoch whose shuffle indices() draws (call it before each epoch,
--- with the same value on every rank; without it the loader passes its own epoch count).
function Sampler:setEpoch(epoch)
  if type(epoch) ~= 'number' then util.fail('DistributedSampler', 'setEpoch expects a number, got %s', type(epoch)) end
  self.epoch = epoch
end

--- sampler:indices([epoch]): this rank's dataset indices (1-based) for the epoch set by setEpoch
--- (or the given one, or 1).
function Sampler:indices(epoch)
  epoch = self.epoch or epoch or 1
  local n, R = self.n, self.numReplicas
  local order
  if self.shuffle then
    order = util.permutation(n, util.mix_seed(self.seed, epoch))
  else
    order = {}
    for i = 1, n do order[i] = i end
  end
  local total = self.numSamples * R
  for k = n + 1, total do order[k] = order[(k - n - 1) % n + 1] end  -- pad by wrapping around
  local mine = {}
  for k = self.rank + 1, total, R do mine[#mine + 1] = order[k] end
  return mine
end

--- sampler:len(): the same as size() (PyTorch's len(sampler); Note [Sampler protocol], data/samplers.lua).
function Sampler:len() return self.numSamples end

--- sampler:iter([epoch]): an iterator over indices(epoch).
function Sampler:iter(epoch)
  local list, k = self:indices(epoch), 0
  return function()
    k = k + 1
    return list[k]
  end
end

function Sampler:__tostring__()
  return string.format('data.DistributedSampler (rank %d of %d, %d of %d samples%s)', self.rank, self.numReplicas,
    self.numSamples, self.n, self.shuffle and ', shuffled' or '')
end

return Sampler
