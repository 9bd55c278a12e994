-- tnt.Log (Torch7 torchnet's log/init.lua): a table of allowed keys whose values are set, read,
-- flushed and closed, with viewer closures attached to those events (the text, json and status
-- viewers in torchnet.log.view.* write the values to the console or a file).
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'

local Log = torch.class('tnt.Log', tnt)

function Log:__clear()
  self.__events = { onClose = {}, onFlush = {}, onGet = {}, onSet = {} }
  self.__data = {}
end

local args = argcheck.parser{ name = 'tnt.Log', noordered = true,
  { name = 'keys', type = 'table' },
  { name = 'onClose', type = 'table', opt = true },
  { name = 'onFlush', type = 'table', opt = true },
  { name = 'onGet', type = 'table', opt = true },
  { name = 'onSet', type = 'table', opt = true },
}

--- tnt.Log{keys=[, onSet=, onGet=, onFlush=, onClose=]}: a log of the string keys listed (plus
--- __status__), each event with a list of closures: onSet(log, key, value), onGet(log, key),
--- onFlush(log), onClose(log).
--- Example: local tnt = require 'torchnet'; local logtext = require 'torchnet.log.view.text'
---   local log = tnt.Log{keys = {'loss', 'acc'}, onFlush = {logtext{keys = {'loss', 'acc'}, format = {'%.3f', '%.1f'}}}}
---   log:set{loss = 0.25, acc = 91}; log:flush()  -- prints 0.250 | 91.0
function Log:__init(...)
  local keys, onClose, onFlush, onGet, onSet = args(...)
  self.__keys = { __status__ = true }
  for _, key in ipairs(keys) do
    if type(key) ~= 'string' then error('[tnt.Log] keys should be strings, got a ' .. torch.type(key), 2) end
    self.__keys[key] = true
  end
  self:__clear()
  if onClose then self:attach('onClose', onClose) end
  if onFlush then self:attach('onFlush', onFlush) end
  if onGet then self:attach('onGet', onGet) end
  if onSet then self:attach('onSet', onSet) end
end

--- log:status([message][, time=true]): sets __status__ to "| <date> | message" (no date when time is false).
--- Example: local tnt = require 'torchnet'; local log = tnt.Log{keys = {}}; log:status('epoch 1 done', false)
function Log:status(message, time)
  if type(message) == 'table' then message, time = message.message, message.time end
  if time == nil then time = true end
  local prefix = '|'
  if time then prefix = prefix .. ' ' .. os.date() .. ' |' end
  self:set{ __status__ = string.format('%s %s', prefix, tostring(message)) }
end

--- log:set(keys): sets each key of the table keys (all must be allowed keys), calling onSet closures.
--- Example: local tnt = require 'torchnet'; local log = tnt.Log{keys = {'loss'}}; log:set{loss = 0.1}
function Log:set(keys)
  if type(keys) ~= 'table' then error('[tnt.Log.set] expected a table of key = value, got ' .. torch.type(keys), 2) end
  for key, value in pairs(keys) do
    if type(key) ~= 'string' then error('[tnt.Log.set] string expected for key, got ' .. torch.type(key), 2) end
    if not self.__keys[key] then error(string.format('[tnt.Log.set] unknown key <%s>', key), 2) end
    for _, closure in ipairs(self.__events.onSet) do closure(self, key, value) end
    self.__data[key] = value
  end
end

--- log:get(key): the value of key (calling onGet closures).
--- Example: local tnt = require 'torchnet'; local log = tnt.Log{keys = {'loss'}}; log:set{loss = 0.1}; local v = log:get('loss')
function Log:get(key)
  if type(key) == 'table' then key = key.key end
  if not self.__keys[key] then error(string.format('[tnt.Log.get] unknown key <%s>', tostring(key)), 2) end
  for _, closure in ipairs(self.__events.onGet) do closure(self, key) end
  return self.__data[key]
end

--- log:flush(): calls the onFlush closures (the viewers write), then empties the values.
--- Example: local tnt = require 'torchnet'; local log = tnt.Log{keys = {'loss'}}; log:set{loss = 1}; log:flush()
function Log:flush()
  for _, closure in ipairs(self.__events.onFlush) do closure(self) end
  self.__data = {}
end

--- log:close(): calls the onClose closures, then forgets values and closures.
--- Example: local tnt = require 'torchnet'; local log = tnt.Log{keys = {'loss'}}; log:close()
function Log:close()
  for _, closure in ipairs(self.__events.onClose) do closure(self) end
  self:__clear()
end

--- log:attach(event, closures): adds the list of functions closures to event ('onSet', 'onGet', 'onFlush' or 'onClose').
--- Example: local tnt = require 'torchnet'; local log = tnt.Log{keys = {'loss'}}
---   log:attach('onSet', {function(log, key, value) print(key, value) end})
function Log:attach(event, closures)
  local events = self.__events[event]
  if not events then error(string.format('[tnt.Log.attach] unknown event <%s> (onSet, onGet, onFlush or onClose)', tostring(event)), 2) end
  if type(closures) ~= 'table' then error('[tnt.Log.attach] expected a table of functions, got ' .. torch.type(closures), 2) end
  for _, closure in ipairs(closures) do
    if type(closure) ~= 'function' then
      error(string.format('[tnt.Log.attach] %s: table of functions expected, got a %s', event, torch.type(closure)), 2)
    end
    events[#events + 1] = closure
  end
end

return Log
