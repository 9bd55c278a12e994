-- Producing one loader item (a batch, or a single sample when the loader does not batch) from a
-- list of dataset indices. The main state (workers=0) and worker states run this same code, so
-- both give the same batches.
local fetch = {}

--- fetch.run(job, indices, batch, stopping): job.dataset's samples at indices, collated with
--- job.collate when job.batched (else the one sample, passed through job.collate when there is
--- one). stopping() says whether to give up.
function fetch.run(job, indices, batch, stopping)
  local samples = {}
  for k, i in ipairs(indices) do
    if stopping and stopping() then error('[DataLoader] the loader is shutting down', 0) end
    local s = job.dataset:get(i)
    if s == nil then error(string.format('[DataLoader] dataset:get(%d) returned nil', i), 0) end
    samples[k] = s
  end
  -- Note [Unbatched collate]: as PyTorch 1.13 (batch_size=None), a loader that does not batch
  -- applies a collate function it was given to each sample (it was silently ignored).
  if not job.batched then
    if job.collate == nil then return samples[1] end
    local item = job.collate(samples[1])
    if item == nil then error(string.format('[DataLoader] the collate function returned nil for item %d', batch), 0) end
    return item
  end
  local item = job.collate(samples, { indices = indices, what = 'batch ' .. batch .. ', ' })
  -- A nil batch would end the caller's for loop early: the rest of the epoch silently lost.
  if item == nil then error(string.format('[DataLoader] the collate function returned nil for batch %d', batch), 0) end
  return item
end

-- Tasks travel as "seed;batch;i1,i2,...".
--- fetch.encode_task(seed, batch, indices): the task string.
function fetch.encode_task(seed, batch, indices)
  return string.format('%.17g;%d;%s', seed, batch, table.concat(indices, ','))
end

--- fetch.decode_task(s): seed, batch number and the list of indices of a task string.
function fetch.decode_task(s)
  local seed, batch, rest = s:match('^([^;]*);([^;]*);(.*)$')
  local indices = {}
  for i in rest:gmatch('[^,]+') do indices[#indices + 1] = tonumber(i) end
  return tonumber(seed), tonumber(batch), indices
end

return fetch
