-- torchnet.log.view.text (Torch7 torchnet's log/view/text.lua): an onFlush viewer writing chosen
-- keys of a tnt.Log on one line ("loss 0.1 | acc 90", or with formats), to the console or a file.
local argcheck = require 'torchnet.argcheck'

local args = argcheck.parser{ name = 'torchnet.log.view.text', noordered = true,
  { name = 'filename', type = 'string', opt = true },
  { name = 'keys', type = 'table' },
  { name = 'format', type = 'table', opt = true },
  { name = 'separator', type = 'string', default = ' | ' },
  { name = 'append', type = 'boolean', default = false },
}

local function formatters(fname, keys, format)
  local out = {}
  for idx, key in ipairs(keys) do
    local f = format and format[idx]
    if not f then
      out[#out + 1] = { name = key, format = function(value) return string.format('%s %s', key, tostring(value)) end }
    elseif type(f) == 'function' then
      out[#out + 1] = { name = key, format = f }
    elseif type(f) == 'string' then
      out[#out + 1] = { name = key, format = function(value) return string.format(f, value) end }
    else
      error(string.format('[%s] format must be a string or a function, got a %s for key %s', fname, type(f), key), 3)
    end
  end
  return out
end

--- require('torchnet.log.view.text'){keys=[, filename=, format=, separator=' | ', append=false]}:
--- the closure(log) writing the keys that have a value, each through its format (a string.format
--- pattern or a function; default "key value"), separated by separator, as one line on stdout or
--- appended to filename (emptied first unless append).
--- Example: local tnt = require 'torchnet'; local logtext = require 'torchnet.log.view.text'
---   local log = tnt.Log{keys = {'loss'}, onFlush = {logtext{keys = {'loss'}, filename = 'log.txt'}}}
---   log:set{loss = 0.5}; log:flush()  -- log.txt holds "loss 0.5"
local function text(...)
  local filename, keys, format, separator, append = args(...)
  local fmts = formatters('torchnet.log.view.text', keys, format)
  if filename and not append then
    local f = io.open(filename, 'w')
    if not f then error(string.format('[torchnet.log.view.text] could not open file <%s> for writing', filename), 2) end
    f:close()
  end
  return function(log)
    local txt = {}
    for _, key in ipairs(fmts) do
      local value = log:get(key.name)
      if value ~= nil then
        local s = key.format(value)
        if type(s) ~= 'string' then
          error(string.format('[torchnet.log.view.text] value for key %s cannot be converted to string', key.name), 2)
        end
        txt[#txt + 1] = s
      end
    end
    local line = table.concat(txt, separator)
    if filename then
      local f = io.open(filename, 'a+')
      if f then
        f:write(line, '\n')
        f:close()
      else
        print('failed to open for appending ', filename)
        print(line)
      end
    else
      print(line)
    end
  end
end

return text
