-- torchnet.log.view.json (Torch7 torchnet's log/view/json.lua): an onFlush viewer writing chosen
-- keys of a tnt.Log as one JSON object per line ({"loss": "0.1", ...}; values as strings, as
-- torchnet wrote them), to the console or a file.
local torch = require 'torch'
local argcheck = require 'torchnet.argcheck'
local output = require 'torchnet.log.view.output'

local args = argcheck.parser{ name = 'torchnet.log.view.json', noordered = true,
  { name = 'file', type = 'torch.File', opt = true },
  { name = 'filename', type = 'string', opt = true },
  { name = 'keys', type = 'table' },
  { name = 'format', type = 'table', opt = true },
  { name = 'append', type = 'boolean', default = false },
}

-- JSON string escaping (torchnet wrote the text as is, which broke on quotes).
local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local named = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
    return named[c] or string.format('\\u%04x', c:byte())
  end) .. '"'
end

--- require('torchnet.log.view.json'){keys=[, filename= or file=, format=, append=false]}: the
--- closure(log) writing {"key": "formatted value", ...} for the keys (format: string.format
--- patterns or functions; default tostring), one line per flush, to stdout or the file.
--- Example: local tnt = require 'torchnet'; local logjson = require 'torchnet.log.view.json'
---   local log = tnt.Log{keys = {'loss'}, onFlush = {logjson{keys = {'loss'}, filename = 'log.json'}}}
---   log:set{loss = 0.5}; log:flush()  -- log.json holds {"loss": "0.5"}
local function json(...)
  local file, filename, keys, format, append = args(...)
  local write = output.writer('torchnet.log.view.json', file, filename, append)
  local fmts = {}
  for idx, key in ipairs(keys) do
    local f = format and format[idx]
    if not f then
      fmts[#fmts + 1] = { name = key, format = tostring }
    elseif type(f) == 'function' then
      fmts[#fmts + 1] = { name = key, format = f }
    elseif type(f) == 'string' then
      fmts[#fmts + 1] = { name = key, format = function(value) return string.format(f, value) end }
    else
      error(string.format('[torchnet.log.view.json] format must be a string or a function, got a %s', type(f)), 2)
    end
  end
  return function(log)
    local txt = {}
    for _, key in ipairs(fmts) do
      local s = key.format(log:get(key.name))
      if type(s) ~= 'string' then
        error(string.format('[torchnet.log.view.json] value for key %s cannot be converted to string', key.name), 2)
      end
      txt[#txt + 1] = string.format('%s: %s', quote(key.name), quote(s))
    end
    local line = string.format('{%s}', table.concat(txt, ', '))
    write(line)
  end
end

return json
