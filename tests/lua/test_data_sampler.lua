-- data.DistributedSampler without MPI (explicit numReplicas/rank): disjoint shards that cover the
-- dataset, agreement for a seed, epochs, padding or dropLast, and DataLoader's sampler= option.
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function shards(n, R, opts)
  local all = {}
  for r = 0, R - 1 do
    local o = { numReplicas = R, rank = r }
    for k, v in pairs(opts or {}) do o[k] = v end
    all[r + 1] = data.DistributedSampler(n, o)
  end
  return all
end

function tests.shardsAreDisjointAndCoverTheDataset()
  for _, shuffle in ipairs({ true, false }) do
    local ss = shards(12, 3, { shuffle = shuffle, seed = 5 })
    local seen = {}
    for _, s in ipairs(ss) do
      tester:eq(s:size(), 4)
      local idx = s:indices(1)
      tester:eq(#idx, 4)
      for _, i in ipairs(idx) do
        tester:assert(not seen[i], 'index ' .. i .. ' in two shards')
        seen[i] = true
      end
    end
    for i = 1, 12 do tester:assert(seen[i], 'index ' .. i .. ' missing') end
  end
  tester:eq(shards(6, 2, { shuffle = false })[2]:indices(), { 2, 4, 6 })
end

function tests.paddingAndDropLast()
  local ss = shards(10, 4)
  local count = 0
  for _, s in ipairs(ss) do
    tester:eq(#s:indices(), 3)
    count = count + #s:indices()
  end
  tester:eq(count, 12)  -- 10 samples, 2 repeated so that every rank has 3
  local dl = shards(10, 4, { dropLast = true })
  for _, s in ipairs(dl) do tester:eq(#s:indices(), 2) end
end

function tests.seedAndEpochDecideTheShuffle()
  local a, b = shards(50, 2, { seed = 3 }), shards(50, 2, { seed = 3 })
  tester:eq(a[1]:indices(1), b[1]:indices(1))
  tester:ne(a[1]:indices(1), a[1]:indices(2))
  a[1]:setEpoch(7)
  tester:eq(a[1]:indices(1), b[1]:indices(7))
  tester:ne(shards(50, 2, { seed = 4 })[1]:indices(1), a[1]:indices(2))
end

function tests.dataLoaderReadsTheShard()
  local ds = data.TensorDataset({ input = torch.range(1, 10) })
  local s = data.DistributedSampler(ds, { numReplicas = 2, rank = 1, seed = 9 })
  local loader = data.DataLoader(ds, { batchSize = 2, sampler = s })
  tester:eq(loader:size(), 3)
  local got = {}
  for batch in loader:iter() do
    for i = 1, batch.input:size(1) do got[#got + 1] = batch.input[i] end
  end
  tester:eq(got, s:indices(1))
  tester:assertErrorPattern(function() data.DataLoader(ds, { sampler = s, shuffle = true }) end, 'sampler and shuffle')
  tester:assertErrorPattern(function() data.DataLoader(ds, { sampler = {} }) end, 'sampler must have size')
  tester:assertErrorPattern(function() data.DistributedSampler(ds, { numReplicas = 2, rank = 2 }) end, 'rank must be')
end

function tests.singleProcessDefaults()
  local s = data.DistributedSampler(5)
  tester:eq(s.numReplicas, 1)
  tester:eq(s.rank, 0)
  tester:eq(#s:indices(), 5)
end

tester:add(tests)
tester:run()
