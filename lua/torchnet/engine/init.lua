-- tnt.Engine (Torch7 torchnet's engine/init.lua): the base of training loops. An engine owns a
-- table of named hooks (engine.hooks.onStart = function(state) ... end); assigning or calling an
-- unknown hook is an error, so a misspelt hook name does not go unnoticed.
local torch = require 'torch'
local tnt = require 'torchnet.env'

local Engine = torch.class('tnt.Engine', tnt)

--- tnt.Engine(hooks): an engine whose hooks are the names in the list hooks (each a no-op until
--- set); engine.hooks(name, ...) calls one. Subclasses implement train() and test().
--- Example: local tnt = require 'torchnet'; local e = tnt.Engine{'onStart'}; e.hooks.onStart = function(s) s.n = 1 end
---   local state = {}; e.hooks('onStart', state)  -- state.n == 1
function Engine:__init(hooks)
  if type(hooks) ~= 'table' then
    error('[tnt.Engine] expected a list of hook names, got ' .. torch.type(hooks), 2)
  end
  local fns = {}
  for _, name in ipairs(hooks) do
    if type(name) ~= 'string' then
      error('[tnt.Engine] hooks must be a table of hook names (strings), got a ' .. torch.type(name), 2)
    end
    fns[name] = function() end
  end
  local names = table.concat(hooks, ', ')
  local function unknown(name)
    error(string.format('[tnt.Engine] unknown hook <%s> (hooks: %s)', tostring(name), names), 3)
  end
  self.hooks = setmetatable({}, {
    __index = function(_, name)
      if fns[name] == nil then unknown(name) end
      return fns[name]
    end,
    __newindex = function(_, name, fn)
      if fns[name] == nil then unknown(name) end
      if fn == nil then fn = function() end end  -- unset: back to a no-op
      if type(fn) ~= 'function' then
        error(string.format('[tnt.Engine] hook %s should be a function, got %s', name, torch.type(fn)), 2)
      end
      fns[name] = fn
    end,
    __call = function(_, name, ...)
      if fns[name] == nil then unknown(name) end
      return fns[name](...)
    end,
  })
end

--- engine:train(...): the training loop (each engine class defines it).
--- Example: local tnt = require 'torchnet'; local ok = pcall(tnt.Engine{}.train, tnt.Engine{})  -- false: not implemented
function Engine:train()
  error(string.format('[%s.train] A tnt.Engine should implement the train() function.', torch.type(self)), 2)
end

--- engine:test(...): the evaluation loop (each engine class defines it).
--- Example: local tnt = require 'torchnet'; local ok = pcall(tnt.Engine{}.test, tnt.Engine{})  -- false: not implemented
function Engine:test()
  error(string.format('[%s.test] A tnt.Engine should implement the test() function.', torch.type(self)), 2)
end

return Engine
