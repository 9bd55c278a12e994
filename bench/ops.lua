-- Single-op CPU speed against PyTorch: ~195 cases (bench/ops_cases.lua) of reductions along a dim,
-- sort/topk/kthvalue/median, comparisons and masks, cat/stack/repeat/expand/narrow copies, dtype
-- conversions, random fills, activations, small matmuls, 1-d convolution and average pooling, at
-- 256x256 and 2048x2048 f32 and a few typical small sizes, in allocating and into-a-result forms.
-- Each case: calls per round calibrated to ~30 ms, a warm-up round, then the best of 5 rounds
-- (H.best); the PyTorch twin (bench/ops.py) runs the same cases the same way in the same run,
-- with the same thread count. Prints an "id microseconds" line per case as it goes, then one table
-- sorted by time ratio (worst first) and the count of cases above 1.3x PyTorch's time.
-- Usage: tocha bench/ops.lua [threads] [lua-pattern]   (the pattern selects cases by id, both sides)
local threads = tonumber(arg[1] or '1')
local pattern = arg[2]
torch.setnumthreads(threads)
torch.manualSeed(1)

local dir = debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.'
local H = dofile(dir .. '/harness.lua')
local cases = dofile(dir .. '/ops_cases.lua')

-- calls per timed round: about `secs` seconds of calls, found by quadrupling a batch until it
-- takes 10 ms (bench/ops.py calibrates the same way)
local function calls_for(fn, secs)
  fn()
  local n = 1
  while true do
    local t0 = torch.tic()
    for _ = 1, n do fn() end
    local dt = torch.toc(t0)
    if dt >= 0.01 or n >= 1e6 then return math.max(1, math.ceil(n * secs / math.max(dt, 1e-9))) end
    n = n * 4
  end
end

local selected, ids = {}, {}
for _, c in ipairs(cases) do
  if not pattern or c.id:find(pattern) then
    selected[#selected + 1] = c
    ids[#ids + 1] = c.id
  end
end
if #selected == 0 then
  print('no case id matches ' .. tostring(pattern))
  return
end

local ours, errors = {}, {}
for _, c in ipairs(selected) do
  if c.nograd then torch.setGradEnabled(false) end
  local ok, us = pcall(function()
    local fn = c.make()
    local n = calls_for(fn, 0.03)
    return H.best(fn, n, n) * 1e6
  end)
  torch.setGradEnabled(true)
  if ok then
    ours[c.id] = us
    print(string.format('%s %.3f', c.id, us))
  else
    errors[c.id] = tostring(us):gsub('\n', ' ')
    print(string.format('%s ERR %s', c.id, errors[c.id]))
  end
  io.stdout:flush()
  collectgarbage()
end

-- the twin runs only the selected ids (named one by one when a pattern was given)
local ref = pattern and H.reference('ops.py', threads, unpack(ids)) or H.reference('ops.py', threads)

local rows, unpaired = {}, {}
for _, id in ipairs(ids) do
  if ours[id] and ref[id] then
    rows[#rows + 1] = { id = id, ratio = ours[id] / ref[id] }
  else
    unpaired[#unpaired + 1] = id
  end
end
table.sort(rows, function(a, b) return a.ratio > b.ratio end)

print()
print(string.format('ops: %d cases, threads=%d, us per call; sorted by ratio = Tocha time / PyTorch time, ' ..
  'worst first', #ids, threads))
print(string.format('%-44s %12s %12s %8s', 'case', 'tocha us', 'pytorch us', 'ratio'))
local above = 0
for _, r in ipairs(rows) do
  if r.ratio > 1.3 then above = above + 1 end
  print(string.format('%-44s %12.3f %12.3f %8.2f', r.id, ours[r.id], ref[r.id], r.ratio))
end
for _, id in ipairs(unpaired) do
  print(string.format('%-44s %12s %12s %8s', id, ours[id] and string.format('%.3f', ours[id]) or 'ERR',
    H.fmt(ref[id], '%.3f'), 'n/a'))
end
for _, id in ipairs(unpaired) do
  if errors[id] then print('error: ' .. id .. ': ' .. errors[id]) end
end
print(string.format('%d of %d cases above 1.3x PyTorch\'s time%s', above, #rows,
  #unpaired > 0 and string.format(' (%d without a ratio)', #unpaired) or ''))
