-- Shared pieces of the bench/*.lua scripts: best-of-5 timing of a function and the PyTorch twin
-- (bench/NAME.py, run with Debian's python3-torch in the same run) read back as key/value lines.
-- Load it with: local H = dofile(BENCH_DIR .. '/harness.lua')
local H = {}

--- H.best(fn, n[, warm]): seconds per call of fn, the best mean of 5 runs of n calls after warm
--- calls (default n / 10, at least 1).
function H.best(fn, n, warm)
  for _ = 1, warm or math.max(1, math.floor(n / 10)) do fn() end
  local best = math.huge
  for _ = 1, 5 do
    local t0 = torch.tic()
    for _ = 1, n do fn() end
    best = math.min(best, torch.toc(t0) / n)
  end
  return best
end

--- H.best_cuda(fn, n[, warm]): milliseconds per call of fn on the GPU, the best mean of 5 runs of
--- n calls after warm calls (default 1), synchronized before and after each run.
function H.best_cuda(fn, n, warm)
  for _ = 1, warm or 1 do fn() end
  torch.cuda.synchronize()
  local best = math.huge
  for _ = 1, 5 do
    local t0 = torch.tic()
    for _ = 1, n do fn() end
    torch.cuda.synchronize()
    best = math.min(best, torch.toc(t0) / n)
  end
  return best * 1e3
end

--- H.host_cuda(fn[, n, rounds]): milliseconds of host time per call of fn, the best mean of
--- `rounds` (200) rounds of n (256) calls, each started on an idle GPU and timed without waiting
--- for it: fewer calls than the launch queue holds, so the host never blocks on a full queue.
function H.host_cuda(fn, n, rounds)
  n, rounds = n or 256, rounds or 200
  fn()
  local best = math.huge
  for _ = 1, rounds do
    torch.cuda.synchronize()
    local t0 = torch.tic()
    for _ = 1, n do fn() end
    best = math.min(best, torch.toc(t0) / n)
  end
  torch.cuda.synchronize()
  return best * 1e3
end

--- H.train_steps(model, crit, x, y, lr): one SGD step in each nn style, as functions: torch7
--- (criterion:backward, model:backward, updateParameters) and autograd (loss:backward()).
function H.train_steps(model, crit, x, y, lr)
  return {
    torch7 = function()
      model:zeroGradParameters()
      local out = model:forward(x)
      crit:forward(out, y)
      model:backward(x, crit:backward(out, y))
      model:updateParameters(lr)
    end,
    autograd = function()
      model:zeroGradParameters()
      local loss = crit(model(x), y)
      loss:backward()
      model:updateParameters(lr)
    end,
  }
end

--- H.dir(): the folder of the running bench script.
function H.dir()
  for level = 2, 10 do
    local info = debug.getinfo(level, 'S')
    if not info then break end
    local dir = info.source:match('^@(.*)/[^/]*%.lua$')
    if dir and not info.source:match('harness%.lua$') then return dir end
  end
  return '.'
end

--- H.reference(script, ...): runs /usr/bin/python3 bench/script with the given arguments and
--- returns the table of its "key number" output lines (empty when PyTorch is missing).
function H.reference(script, ...)
  local args = {}
  for i, a in ipairs({ ... }) do args[i] = string.format('%q', tostring(a)) end
  local ref = {}
  local p = io.popen('/usr/bin/python3 ' .. H.dir() .. '/' .. script .. ' ' .. table.concat(args, ' ') .. ' 2>/dev/null')
  if not p then return ref end
  for line in p:lines() do
    local k, v = line:match('^(%S+) ([%d.eE+-]+)')
    if k then ref[k] = tonumber(v) end
  end
  p:close()
  return ref
end

--- H.fmt(x, spec): x formatted with spec, or 'n/a' when x is nil.
function H.fmt(x, spec)
  return x and string.format(spec, x) or 'n/a'
end

return H
