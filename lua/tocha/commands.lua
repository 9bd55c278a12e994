-- The REPL's own commands, recognised before a line is read as Lua (none of them is valid Lua):
-- `?topic` / `topic?` (help), `%time code`, `%timeit code`, `timer on|off`, `$ shell command`.
local colors = require 'tocha.colors'
local help = require 'tocha.help'

local M = {}

local function now()
  return torch.Timer and M.clock:time().real or os.clock()
end

-- "12.3 ms" and the like.
function M.duration(s)
  if s >= 1 then return string.format('%.3f s', s) end
  if s >= 1e-3 then return string.format('%.3f ms', s * 1e3) end
  if s >= 1e-6 then return string.format('%.3f us', s * 1e6) end
  return string.format('%.0f ns', s * 1e9)
end

local function report(text)
  io.stdout:write(colors.paint('Black', text), '\n')
end

-- %timeit: runs the compiled chunk in batches until a batch takes 0.2 s, then 3 batches.
local function timeit(session, src)
  local eval = require 'tocha.eval'
  local chunk, kind = eval.compile(src)
  if not chunk then
    io.stderr:write(kind == 'incomplete' and '%timeit: incomplete code' or kind, '\n')
    return
  end
  local n = 1
  local function batch()
    local t0 = now()
    for _ = 1, n do chunk() end
    return now() - t0
  end
  local ok, res = pcall(function()
    local t = batch()
    while t < 0.2 and n < 1e7 do
      n = n * (t > 0 and math.min(10, math.max(2, math.ceil(0.2 / t))) or 10)
      t = batch()
    end
    local best = t
    for _ = 1, 2 do best = math.min(best, batch()) end
    return best
  end)
  if not ok then session:show_error(res) return end
  report(string.format('%s per run (best of 3 batches of %d runs)', M.duration(res / n), n))
end

-- Handles `line` if it is a command; returns true when it was one.
function M.handle(session, line)
  local topic = line:match('^%s*%?(.*)$') or line:match('^%s*([%w_.:]+)%?%s*$')
  if topic then help.topic(topic) return true end
  local code = line:match('^%s*%%time%s+(.*)$')
  if code then
    local t0 = now()
    session:execute(code)
    report('Wall time: ' .. M.duration(now() - t0))
    return true
  end
  code = line:match('^%s*%%timeit%s+(.*)$')
  if code then timeit(session, code) return true end
  local switch = line:match('^%s*timer%s+(%a+)%s*$')
  if switch == 'on' or switch == 'off' then
    session.timer = switch == 'on'
    return true
  end
  local cmd = line:match('^%s*%$%s*(.*)$')
  if cmd then
    io.stdout:flush()
    local ok, how, status = os.execute(cmd)
    -- LuaJIT's os.execute returns the raw wait status (or true/exit/code with 5.2 compat).
    if type(ok) == 'number' and ok ~= 0 then report('[exit status ' .. math.floor(ok / 256) .. ']')
    elseif ok == nil and status then report('[' .. tostring(how) .. ' ' .. tostring(status) .. ']') end
    return true
  end
  return false
end

function M.init()
  if torch and torch.Timer then M.clock = torch.Timer() end
end

return M
