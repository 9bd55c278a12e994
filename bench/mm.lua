-- Benchmark: torch.mm through the Lua API against raw cblas_sgemm (bench/mm_ref.cpp) at 64, 256
-- and 1024 with the same thread count. Native and Lua trials alternate (so load from other
-- processes hits both alike) and each side reports its best trial. Target: 1024 within 5%.
-- Usage: tocha mm.lua [path/to/bench_mm_ref [rounds]]
--        (default: ../build/bench/bench_mm_ref next to this file, 7 rounds)
local ffi = require 'ffi'
require 'torch'

-- Wall-clock time (other modules may have declared these already; then theirs are used).
pcall(ffi.cdef, 'struct timespec { long tv_sec; long tv_nsec; };')
pcall(ffi.cdef, 'int clock_gettime(int clock, struct timespec *ts);')
local ts = ffi.new('struct timespec')
local function now()
  ffi.C.clock_gettime(1, ts)  -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local function file_exists(path)
  local f = io.open(path, 'r')
  if f then f:close() end
  return f ~= nil
end

local script_dir = (debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$')) or '.'
local ref_path = arg and arg[1]
if not ref_path then
  for _, p in ipairs({ script_dir .. '/../build/bench/bench_mm_ref', '../build/bench/bench_mm_ref' }) do
    if file_exists(p) then ref_path = p break end
  end
end
if not ref_path or not file_exists(ref_path) then
  error('mm.lua: cannot find bench_mm_ref; pass its path (e.g. ../build/bench/bench_mm_ref)', 0)
end
local rounds = tonumber(arg and arg[2]) or 7

local threads = torch.getnumthreads()
torch.setnumthreads(threads)  -- OpenMP and OpenBLAS agree, as in the native program

-- Seconds per call of one native trial for size n (a fresh process: same warm-up as below).
local function native_trial(n)
  local pipe = assert(io.popen(string.format('%q %d %d 1', ref_path, threads, n)))
  local t
  for line in pipe:lines() do
    local size, secs = line:match('^mm_ref%s+(%d+)%s+(%S+)')
    if tonumber(size) == n then t = tonumber(secs) end
  end
  pipe:close()
  if not t then error('mm.lua: ' .. ref_path .. ' printed no time for n = ' .. n, 0) end
  return t
end

-- Mean seconds per call over `calls` calls of f, after one warm-up call.
local function lua_trial(f, calls)
  f()
  local start = now()
  for _ = 1, calls do f() end
  return (now() - start) / calls
end

local function fill(t, k, scale, shift)
  local i = 0
  return t:apply(function() i = i + 1 return (i % k) * scale + shift end)
end

print(string.format('torch.mm vs raw cblas_sgemm (%s): %d threads, FloatTensor n x n, best of %d rounds',
                    ref_path, threads, rounds))
print(string.format('%6s %14s %14s %14s %10s %10s %9s', 'n', 'mm(res,A,B)', 'mm(A,B)', 'cblas_sgemm',
                    'ratio res', 'ratio new', 'GFLOP/s'))
local ok = true
for _, n in ipairs({ 64, 256, 1024 }) do
  local A = fill(torch.FloatTensor(n, n), 7, 0.25, -0.5)
  local B = fill(torch.FloatTensor(n, n), 5, 0.5, -1.0)
  local C = torch.FloatTensor(n, n):zero()
  local calls = math.floor(4e9 / (2 * n ^ 3)) + 1  -- about 4 GFLOP per trial, as mm_ref does
  local t_res, t_new, t_ref = math.huge, math.huge, math.huge
  for _ = 1, rounds do
    t_ref = math.min(t_ref, native_trial(n))
    t_res = math.min(t_res, lua_trial(function() torch.mm(C, A, B) end, calls))
    t_new = math.min(t_new, lua_trial(function() return torch.mm(A, B) end, calls))
  end
  print(string.format('%6d %11.4f ms %11.4f ms %11.4f ms %10.3f %10.3f %9.1f', n, t_res * 1e3, t_new * 1e3,
                      t_ref * 1e3, t_res / t_ref, t_new / t_ref, 2 * n ^ 3 / t_res * 1e-9))
  if n == 1024 and t_res / t_ref > 1.05 then ok = false end
end
print('ratio = torch time / cblas_sgemm time; mm(res,A,B) reuses res, mm(A,B) allocates its result')
print(ok and 'target met: 1024x1024 torch.mm(res, A, B) within 5% of cblas_sgemm'
         or 'TARGET MISSED: 1024x1024 torch.mm(res, A, B) is more than 5% slower than cblas_sgemm')
