-- Shared by the data loader regression suites: the process's thread count, an error check, a
-- ListDataset of 1..n and an epoch's batches as strings.
local data = require 'data'

local function threads()
  local f = io.open('/proc/self/stat')
  local pid, n = f:read('*a'):match('^(%d+)'), 0
  f:close()
  for _ in io.popen('ls /proc/' .. pid .. '/task'):lines() do n = n + 1 end
  return n
end

local function fails(tester, pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), 'got: ' .. tostring(err))
  return tostring(err)
end

local function ints(n, fn)
  local list = {}
  for i = 1, n do list[i] = i end
  return data.ListDataset(list, fn or function(i) return i end)
end

-- The batches of one epoch as strings ("1,2,3"), from a loader whose batches are tensors.
local function epoch(loader)
  local out = {}
  for b in loader:iter() do out[#out + 1] = table.concat(b:totable(), ',') end
  return out
end

return { threads = threads, fails = fails, ints = ints, epoch = epoch }
