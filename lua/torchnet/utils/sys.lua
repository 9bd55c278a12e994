-- tnt.utils.sys (Torch7 torchnet's utils/sys.lua): small helpers for experiment scripts: making
-- directories, reading a list file, running `key=value` command-line code in an environment.
local sys = {}

--- tnt.utils.sys.mkdir(path): creates the directory path and its parents (mkdir -p).
--- Example: local tnt = require 'torchnet'; tnt.utils.sys.mkdir('runs/exp1')
function sys.mkdir(path)
  if type(path) ~= 'string' then
    error('[tnt.utils.sys.mkdir] expected a path (string), got ' .. type(path), 2)
  end
  local ok = os.execute(string.format("mkdir -p '%s'", path:gsub("'", "'\\''")))
  if not (ok == 0 or ok == true) then
    error(string.format('[tnt.utils.sys.mkdir] could not create directory %s', path), 2)
  end
end

--- tnt.utils.sys.loadlist(path[, revert][, maxload]): the lines of the file path as a list (also
--- line -> index when revert; at most maxload lines).
--- Example: local tnt = require 'torchnet'; local f = io.open('l.txt', 'w'); f:write('a\nb\n'); f:close()
---   local lst = tnt.utils.sys.loadlist('l.txt', true)  -- {'a', 'b', a = 1, b = 2}
function sys.loadlist(path, revert, maxload)
  local f = io.open(path)
  if not f then error(string.format('[tnt.utils.sys.loadlist] cannot open %s', tostring(path)), 2) end
  f:close()
  local lst, idx = {}, 0
  for elem in io.lines(path) do
    idx = idx + 1
    lst[idx] = elem
    if revert then lst[elem] = idx end
    if maxload and maxload == idx then break end
  end
  return lst
end

--- tnt.utils.sys.cmdline(arg, env): runs each string of arg (e.g. the script's `lr=0.1`
--- arguments) as Lua code whose globals are env's fields (reads fall back to _G).
--- Example: local tnt = require 'torchnet'; local opt = {lr = 1}; tnt.utils.sys.cmdline({'lr=0.5'}, opt)  -- opt.lr == 0.5
function sys.cmdline(arg, env)
  for _, code in ipairs(arg) do
    if type(code) ~= 'string' then error('[tnt.utils.sys.cmdline] expected strings of code, got ' .. type(code), 2) end
    local fn, msg = loadstring(code)
    if not fn then error(string.format('[tnt.utils.sys.cmdline] compilation error: %s', msg), 2) end
    if getmetatable(env) then error('[tnt.utils.sys.cmdline] env should have no metatable', 2) end
    setfenv(fn, env)
    setmetatable(env, { __index = _G })
    local ok, err = pcall(fn)
    setmetatable(env, nil)
    if not ok then error(err, 2) end
  end
end

return sys
