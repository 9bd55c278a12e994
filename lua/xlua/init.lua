-- Torch7's xlua package (require 'xlua' sets the global xlua, and xprint, xerror, xrequire):
-- the progress bar (xlua/progress.lua), a table printer, session logging, argument unpacking
-- (xlua/unpack.lua), OptionParser, Profiler, and small string and table helpers.
if rawget(_G, 'xlua') and xlua._tocha then return xlua end
local torch = require 'torch'
local lib = require 'torch.lib'
local sys = require 'sys'
local paths = require 'paths'

xlua = rawget(_G, 'xlua') or {}
xlua._tocha = true

-- The globals present now: clearall and who leave them alone.
local protected = {}
for k in pairs(_G) do protected[k] = true end
protected.xlua, protected.xprint, protected.xerror, protected.xrequire = true, true, true, true

local progress = require 'xlua.progress'
xlua.progress = progress.progress
xlua.formatTime = progress.formatTime
require('xlua.unpack')(xlua, sys)
require('xlua.OptionParser')(xlua)
require('xlua.Profiler')(xlua, sys)

--- xlua.print(x, ...): prints tables as {[key] = value,\n [key] = value} (values cut at 40
--- characters), objects with __tostring__ through it, anything else with tostring; further
--- arguments follow after four spaces.
--- Example: xlua.print({lr = 0.1})
function xlua.print(obj, ...)
  -- io.write is looked up at each call, so that xlua.log's copy to a file sees the output.
  if type(obj) == 'table' then
    local mt = getmetatable(obj)
    if mt and mt.__tostring__ then
      io.write(mt.__tostring__(obj))
    else
      local tos = tostring(obj)
      if tos and not tos:find('table: ', 1, true) then
        if type(obj.usage) == 'string' then io.write(obj.usage .. '\n\nFIELDS:\n')
        else io.write(tos .. ':\n') end
      end
      io.write('{')
      local first = true
      for k, v in pairs(obj) do
        if not first then io.write(',\n') end
        local tab = first and '' or ' '
        if type(v) == 'userdata' then
          io.write(tab .. '[' .. tostring(k) .. '] = <userdata>')
        else
          local s = tostring(v):gsub('\n', '\\n')
          if #s > 40 then s = s:sub(1, 40) .. sys.COLORS.none .. ' ... ' end
          io.write(tab .. '[' .. tostring(k) .. '] = ' .. s)
        end
        first = false
      end
      io.write('}')
    end
  else
    io.write(tostring(obj))
  end
  if select('#', ...) > 0 then
    io.write('    ')
    print(...)
  else
    io.write('\n')
  end
end
rawset(_G, 'xprint', xlua.print)

--- xlua.log(file[, append]): from now on, what print and io.write show is also written to file
--- (created with its folder; appended to when append). print becomes xlua.print, as in Torch7.
--- Example: xlua.log('logs/session.txt'); print('hello')
function xlua.log(file, append)
  if type(file) ~= 'string' then xlua.error('expected a file name, got ' .. type(file), 'xlua.log') end
  paths.mkdir(paths.dirname(file))
  local f = assert(io.open(file, append and 'a' or 'w'))
  io._write = io.write
  rawset(_G, '_print', _G.print)
  _G.print = xlua.print
  local write = io._write
  io.write = function(...)
    local r = write(...)
    for i = 1, select('#', ...) do f:write((select(i, ...))) end
    f:flush()
    return r
  end
end

--- xlua.clearall(): removes every global defined after xlua was loaded (and unloads such
--- packages), then collects garbage.
--- Example: local function freshSession() xlua.clearall() end
function xlua.clearall()
  for k in pairs(_G) do
    if not protected[k] then
      _G[k] = nil
      if package.loaded[k] then package.loaded[k] = nil end
    end
  end
  collectgarbage()
end

--- xlua.clear(name): removes the global name, then collects garbage.
--- Example: xlua.clear('someGlobal')
function xlua.clear(var)
  _G[var] = nil
  collectgarbage()
end

--- xlua.who(): prints the loaded packages and the globals defined after xlua was loaded.
--- Example: xlua.who()
function xlua.who()
  local user, libs = {}, {}
  for k, v in pairs(_G) do
    if package.loaded[k] and k ~= '_G' then libs[#libs + 1] = k
    elseif not protected[k] then user[k] = v end
  end
  table.sort(libs, function(a, b) return tostring(a) < tostring(b) end)
  for _, s in ipairs({ '', 'Global Libs:', libs, '', 'Global Vars:', user, '' }) do xlua.print(s) end
end

--- xlua.error(message[, domain][, usage]): raises message in red, as '<domain> message',
--- followed by usage.
--- Example: pcall(xlua.error, 'bad size', 'mymodule')
function xlua.error(message, domain, usage)
  local c = sys.COLORS
  if domain then message = '<' .. domain .. '> ' .. tostring(message) end
  local msg = c.Red .. tostring(message) .. c.none
  if usage then msg = msg .. '\n' .. usage end
  -- At the first line outside Tocha's Lua files (xlua.unpack's caller's caller included).
  error(msg, lib.user_level())
end
rawset(_G, 'xerror', xlua.error)

--- xlua.trycatch(try, catch): calls try(); if it raises, calls catch(err).
--- Example: xlua.trycatch(function() error('x') end, function(e) end)
function xlua.trycatch(try, catch)
  local ok, err = pcall(try)
  if not ok then catch(err) end
end

--- xlua.installed(name): true and the file when package.path or package.cpath has name, else
--- false.
--- Example: xlua.installed('nn')
function xlua.installed(name)
  local templates = package.path .. ';' .. package.cpath
  for t in templates:gmatch('[^;]+') do
    local f = t:gsub('%?', (name:gsub('%%', '%%%%')))
    if sys.filep(f) then return true, f end
  end
  return false
end

--- xlua.require(name[, luarocks]): require(name), or false (printing why) when it cannot be
--- loaded. Torch7 offered to install it with luarocks; that second argument is ignored.
--- Example: local image = xlua.require('image')
function xlua.require(name)
  local ok, mod = pcall(require, name)
  if not ok then
    print(mod)
    print('warning: <' .. tostring(name) .. '> could not be loaded (is it installed?)')
    return false
  end
  return mod
end
rawset(_G, 'xrequire', xlua.require)

local function val_to_str(v)
  if type(v) == 'string' then
    v = v:gsub('\n', '\\n')
    if v:gsub("[^'\"]", ''):match('^"+$') then return "'" .. v .. "'" end
    return '"' .. v:gsub('"', '\\"') .. '"'
  end
  return type(v) == 'table' and xlua.table2string(v) or tostring(v)
end

local function key_to_str(k)
  if type(k) == 'string' and k:match('^[_%a][_%a%d]*$') then return k end
  return '[' .. val_to_str(k) .. ']'
end

--- xlua.table2string(t[, newline]): t as Lua source ({1,2,x=3}; one entry per line with ' : '
--- when newline).
--- Example: xlua.table2string({1, 2, x = 'a'})  -- '{1,2,x="a"}'
function xlua.table2string(tbl, newline)
  local result, done = {}, {}
  for k, v in ipairs(tbl) do
    result[#result + 1] = val_to_str(v)
    done[k] = true
  end
  local sep = newline and ' : ' or '='
  for k, v in pairs(tbl) do
    if not done[k] then result[#result + 1] = key_to_str(k) .. sep .. val_to_str(v) end
  end
  if newline then return '{\n   ' .. table.concat(result, '\n   ') .. '\n}' end
  return '{' .. table.concat(result, ',') .. '}'
end

--- xlua.envparams(defaults): a copy of defaults where environment variables of the same names
--- override (converted to numbers or booleans like the defaults).
--- Example: xlua.envparams{learningRate = 1e-2, nesterov = true}
function xlua.envparams(default)
  local params = {}
  for k, v in pairs(default) do
    params[k] = v
    local s = os.getenv(k)
    if s ~= nil then
      local new = s
      if type(v) == 'number' then new = tonumber(s)
      elseif type(v) == 'boolean' then
        if s == 'false' or s == 'False' then new = false elseif s == 'true' or s == 'True' then new = true end
      end
      if new == nil then xlua.error('environment variable ' .. k .. ' = ' .. s .. ' is not a number', 'xlua.envparams') end
      params[k] = new
    end
  end
  return params
end

-- Torch7's xlua extended the string and table libraries; scripts call line:split(',').
--- string.split(s, pattern): the pieces of s between matches of pattern (added by xlua).
--- Example: ('a,b'):split(',')
string.split = string.split or function(s, pat) return sys.split(s, pat) end

--- string.tosymbol(name): the value of the Lua expression name ('nn.Linear'), or an error.
--- Example: string.tosymbol('math.pi')
string.tosymbol = string.tosymbol or function(str)
  local f, err = loadstring('return ' .. str)
  if not f then error(err, 2) end
  local ok, result = pcall(f)
  if not ok then error(result, 2) end
  if not result then error('symbol "' .. str .. '" does not exist', 2) end
  return result
end

--- table.splice(t[, start=1][, length=1]): t without the length elements from start, and those
--- elements (two new lists).
--- Example: table.splice({1, 2, 3}, 2, 1)  -- {1, 3}, {2}
table.splice = table.splice or function(tbl, start, length)
  length, start = length or 1, start or 1
  local kept, removed = {}, {}
  for i, e in ipairs(tbl) do
    if i < start or i >= start + length then kept[#kept + 1] = e else removed[#removed + 1] = e end
  end
  return kept, removed
end

--- table.prune(t[, hash][, merge]): the elements of t without duplicates (by hash(e); merge(a,
--- b) combines duplicates), in no particular order.
--- Example: table.prune({1, 2, 2, 3})
table.prune = table.prune or function(tbl, hashfunc, merge)
  local hashes = {}
  local hash = hashfunc or function(a) return a end
  for _, v in ipairs(tbl) do
    local h = hash(v)
    if merge and hashes[h] ~= nil then hashes[h] = merge(v, hashes[h]) else hashes[h] = v end
  end
  local out = {}
  for _, v in pairs(hashes) do out[#out + 1] = v end
  return out
end

package.loaded.xlua = xlua
return xlua
