-- The main-state side of data.DataLoader over an iterable dataset: batches pulled from the
-- dataset's iterator (workers = 0), or gathered from the workers' streams in turn
-- (Note [Iterable shards], data/iterable.lua).
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'
local util = require 'data.util'
local fetch = require 'data.fetch'
local transfer = require 'data.transfer'
local collate = require 'data.collate'
local C = lib.C

local M = {}

local function stale(loader, token)
  if loader._token ~= token then util.fail('DataLoader', 'this iteration was replaced by a newer loader:iter()') end
end

--- M.local_iterator(loader, base, token): batches of the main state's own iterator; its
--- randomness runs on a generator state of its own (seeded by mix(base, 0)), so the training
--- loop's random stream does not depend on the loader (Note [Loader determinism]).
function M.local_iterator(loader, base, token)
  local ds, per = loader.dataset, loader.batchSize or 1
  local merge = loader.collate or collate.default
  local saved = torch.getRNGState()
  torch.manualSeed(util.mix_seed(base, 0))
  local ok, it = pcall(ds.iter, ds)
  local rng = torch.getRNGState()
  torch.setRNGState(saved)
  if not ok then error(tostring(it), 0) end
  local done, k = false, 0
  local function pull()
    local items = {}
    while #items < per do
      local x = it()
      if x == nil then done = true break end
      items[#items + 1] = x
    end
    if #items == 0 or (loader.dropLast and #items < per) then return nil end
    k = k + 1
    if not loader.batchSize then  -- Note [Unbatched collate], data/fetch.lua
      if not loader.collate then return items[1] end
      local item = loader.collate(items[1])
      if item == nil then error(string.format('[DataLoader] the collate function returned nil for item %d', k), 0) end
      return item
    end
    local batch = merge(items, { what = 'batch ' .. k .. ', ' })
    if batch == nil then error(string.format('[DataLoader] the collate function returned nil for batch %d', k), 0) end
    return batch
  end
  return function()
    stale(loader, token)
    if done then return nil end
    local outer = torch.getRNGState()
    torch.setRNGState(rng)
    local ok2, item = pcall(pull)
    rng = torch.getRNGState()
    torch.setRNGState(outer)
    if not ok2 then error(tostring(item), 0) end
    return item
  end
end

local len_out, count_out = ffi.new('int64_t[1]'), ffi.new('int[1]')

--- M.worker_iterator(loader, base, token): batches of the workers' streams, worker 1's first,
--- worker 2's first, ..., then their second ones, skipping workers whose stream has ended.
function M.worker_iterator(loader, base, token)
  local h = loader:_start()
  lib.check(C.tocha_loader_reset(h))
  local W, capacity, epoch = loader.workers, loader.workers * loader.prefetch, loader.epoch
  local pushed, delivered = 0, 0
  local queues, heads, tails, done, ndone, buffered, turn = {}, {}, {}, {}, 0, 0, 1
  for w = 1, W do queues[w], heads[w], tails[w] = {}, 1, 0 end

  local function receive()
    while pushed < delivered + capacity do
      pushed = pushed + 1
      local task = fetch.encode_task(base, pushed, { epoch })
      if C.tocha_loader_push(h, task, #task) < 0 then lib.raise() end
    end
    if C.tocha_loader_next_timeout(h, loader.timeout or 0) ~= 0 then
      local msg = ffi.string(C.tocha_last_error())
      C.tocha_loader_reset(h)
      loader._token = nil
      error(msg .. '\n(while reading an iterable dataset)', 0)
    end
    delivered = delivered + 1
    local p = C.tocha_loader_result(h, len_out, count_out)
    local s = ffi.string(p, len_out[0])
    local tensors = {}
    for i = 1, count_out[0] do tensors[i] = lib.wrap(C.tocha_loader_result_tensor(h, i - 1)) end
    local r = transfer.decode(s, tensors)
    local w = r.worker
    if r.item ~= nil then
      tails[w] = tails[w] + 1
      queues[w][tails[w]] = r.item
      buffered = buffered + 1
    end
    if r.done and not done[w] then
      done[w] = true
      ndone = ndone + 1
    end
  end

  local finished = false
  return function()
    stale(loader, token)
    if finished then return nil end
    if loader._handle ~= h then  -- Note [Closed during an iteration], data/loader.lua
      util.fail('DataLoader', 'the loader was closed (loader:close()) during this iteration')
    end
    while true do
      local q = queues[turn]
      if heads[turn] <= tails[turn] then
        local item = q[heads[turn]]
        q[heads[turn]] = nil
        heads[turn] = heads[turn] + 1
        buffered = buffered - 1
        turn = turn % W + 1
        return item
      elseif done[turn] then
        if ndone == W and buffered == 0 then
          C.tocha_loader_reset(h)  -- the done workers' idle answers still queued
          finished = true  -- a later call must not touch h: persistentWorkers = false frees it now
          return nil
        end
        turn = turn % W + 1
      else
        receive()
      end
    end
  end
end

return M
