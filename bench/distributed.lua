-- torch.distributed over MPI: all-reduce time on 1..256 MiB against OpenMPI's own MPI_Allreduce
-- (bench/allreduce_ref.c, same sizes and trials) and data-parallel scaling of the nn issue's MLP,
-- 2 ranks x 1 thread against 1 rank x 1 thread. Runs bench/distributed_worker.lua under mpirun.
-- Targets: all-reduce at least 0.95x of MPI_Allreduce's bandwidth; MLP scaling at least 1.7x.
-- Usage: tocha bench/distributed.lua [path/to/build]   (run it as a plain process, not under mpirun)
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local here = H.dir()
local build = arg[1] or (here .. '/../build')
local mpirun = 'OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 '
  .. 'OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun -np '

local function run(np, cmd)
  local out = {}
  local p = assert(io.popen(mpirun .. np .. ' ' .. cmd .. ' 2>&1'))
  for line in p:lines() do
    local k, v = line:match('^(%S+) ([%d.eE+-]+)$')
    if k then out[k] = tonumber(v) end
  end
  p:close()
  return out
end

-- The machine's load, printed before and after: on a shared machine it explains the spread.
local function loadavg()
  local f = io.open('/proc/loadavg')
  if not f then return '?' end
  local l = f:read('*l')
  f:close()
  return l:match('^(%S+ %S+ %S+)') or '?'
end
print('load average (1, 5, 15 min) before: ' .. loadavg())

local worker = string.format('%s/tocha %s/distributed_worker.lua', build, here)
local ref_exe = build .. '/bench/bench_allreduce_ref'
-- Raw and Tocha runs alternate so that load from other processes hits both alike.
local ours, ref = {}, {}
for _ = 1, 2 do
  for k, v in pairs(run(2, ref_exe)) do ref[k] = math.min(ref[k] or math.huge, v) end
  for k, v in pairs(run(2, worker .. ' allreduce')) do ours[k] = math.min(ours[k] or math.huge, v) end
end
print('all-reduce, 2 ranks (float sum, in place): bandwidth = size / time')
print(string.format('%-8s %14s %14s %8s', 'MiB', 'tocha GiB/s', 'MPI GiB/s', 'ratio'))
for _, mib in ipairs({ 1, 4, 16, 64, 256 }) do
  local k = 'allreduce_' .. mib
  local bo, br = ours[k] and mib / 1024 / ours[k], ref[k] and mib / 1024 / ref[k]
  print(string.format('%-8d %14s %14s %8s', mib, H.fmt(bo, '%.2f'), H.fmt(br, '%.2f'),
    H.fmt(bo and br and bo / br, '%.3f')))
end

-- 1-rank and 2-rank runs alternate (3 rounds, best of each) so that load from other processes
-- hits both alike.
local one, two
for _ = 1, 3 do
  local a = run(1, worker .. ' mlp').mlp_samples_per_s
  local b = run(2, worker .. ' mlp').mlp_samples_per_s
  if a then one = math.max(one or 0, a) end
  if b then two = math.max(two or 0, b) end
end
print(string.format('MLP 784-512-256-10, batch 128 per rank, 1 thread per rank: 1 rank %s samples/s, '
  .. '2 ranks %s samples/s, scaling %s (target >= 1.7)', H.fmt(one, '%.0f'), H.fmt(two, '%.0f'),
  H.fmt(one and two and two / one, '%.2fx')))
print('load average (1, 5, 15 min) after: ' .. loadavg())
