-- torchnet.log.view.status (Torch7 torchnet's log/view/status.lua): an onSet viewer writing the
-- tnt.Log's status messages (log:status(...)) to the console or a file.
local argcheck = require 'torchnet.argcheck'
local output = require 'torchnet.log.view.output'

local args = argcheck.parser{ name = 'torchnet.log.view.status', noordered = true,
  { name = 'file', type = 'torch.File', opt = true },
  { name = 'filename', type = 'string', opt = true },
  { name = 'append', type = 'boolean', default = false },
}

--- require('torchnet.log.view.status'){[filename= or file=, append=false]}: the closure(log, key,
--- value) printing (or appending to the file) the value of each __status__ set.
--- Example: local tnt = require 'torchnet'; local logstatus = require 'torchnet.log.view.status'
---   local log = tnt.Log{keys = {}, onSet = {logstatus{filename = 'status.txt'}}}; log:status('started')
local function status(...)
  local file, filename, append = args(...)
  local write = output.writer('torchnet.log.view.status', file, filename, append)
  return function(_, key, value)
    if key ~= '__status__' then return end
    local line = tostring(value)
    write(line)
  end
end

return status
