-- Torch7's xlua argument helpers: xlua.unpack (named or positional arguments checked against a
-- list of {arg=, type=, help=, default=, req=} with a generated usage text), xlua.unpack_class,
-- xlua.usage and xlua.usage_module.
local torch = require 'torch'

return function(xlua, sys)

  --- xlua.usage(funcname, description, example, arg1, arg2, ...): the usage text of a function
  --- whose arguments are described by tables {arg=, type=, help=, req=, default=}.
  --- Example: xlua.usage('f', 'adds', 'f{x=1}', {arg = 'x', type = 'number', help = 'a number', req = true})
  function xlua.usage(funcname, description, example, ...)
    local c = sys.COLORS
    local style = { banner = string.rep('+', 69), list = c.blue .. '> ' .. c.none, title = c.Magenta,
                    pre = c.cyan, none = c.none }
    local str = style.banner .. '\n' .. style.title .. funcname .. style.none .. '\n'
    if description then str = str .. '\n' .. description .. '\n' end
    str = str .. '\n' .. style.list .. 'usage:\n' .. style.pre
    local args = { ... }
    if args[1] and args[1].tabled then args = args[1].tabled end
    local function align(key) return key .. string.rep(' ', 40 - #key) end
    if args[1] and args[1].arg then
      -- named arguments
      str = str .. funcname .. '{\n'
      for _, param in ipairs(args) do
        local key = param.req and ('    ' .. param.arg .. ' = ' .. param.type)
          or ('    [' .. param.arg .. ' = ' .. param.type .. ']')
        str = str .. align(key) .. '-- ' .. (param.help or '')
        if type(param.default) == 'table' then
          str = str .. '  [default = ' .. xlua.table2string(param.default) .. ']'
        elseif param.default ~= nil then
          str = str .. '  [default = ' .. tostring(param.default) .. ']'
        elseif param.defaulta then
          str = str .. '  [default == ' .. param.defaulta .. ']'
        end
        str = str .. '\n'
      end
      str = str .. '}\n'
    else
      -- positional arguments; an empty string separates alternative signatures
      local idx = 1
      while true do
        local param
        str = str .. funcname .. '(\n'
        while true do
          param = args[idx]
          idx = idx + 1
          if not param or param == '' then break end
          local key = param.req and ('    ' .. param.type) or ('    [' .. param.type .. ']')
          str = str .. align(key) .. '-- ' .. (param.help or '') .. '\n'
        end
        str = str .. ')\n'
        if not param then break end
      end
    end
    str = str .. style.none
    if example then str = str .. '\n' .. style.pre .. example .. style.none .. '\n' end
    return str .. style.banner
  end

  --- xlua.unpack(args, funcname, description, def1, def2, ...): the arguments of a function
  --- called either with one table of named arguments or positionally ({...}), checked against
  --- the definitions {arg=, type=, help=, req=, default=, defaulta=}: returns a table of them
  --- by name and position (with .usage) followed by their values in order.
  --- Example: local t, x, y = xlua.unpack({ {x = 1} }, 'f', nil, {arg = 'x', type = 'number'}, {arg = 'y', type = 'number', default = 2})
  function xlua.unpack(args, funcname, description, ...)
    local defs = { ... }
    funcname = funcname or '?'
    if type(args) ~= 'table' then
      xlua.error('expected a table of arguments ({...} or {{name = value}}), got ' .. type(args), 'xlua.unpack')
    end
    -- The usage text is built only when printed (tostring).
    local usage = setmetatable({}, { __tostring = function()
      local example
      if #defs > 1 then
        example = funcname .. '{' .. defs[2].arg .. '=' .. defs[2].type .. ', ' .. defs[1].arg .. '=' .. defs[1].type
          .. '}\n' .. funcname .. '(' .. defs[1].type .. ', ...)'
      end
      return xlua.usage(funcname, description, example, { tabled = defs })
    end })

    local iargs = {}
    if #args == 1 and type(args[1]) == 'table' and #args[1] == 0 and torch.typename(args[1]) == nil then
      iargs = args[1]  -- named
    else
      for i = 1, #defs do iargs[defs[i].arg] = args[i] end  -- positional
    end

    local dargs = {}
    for i, def in ipairs(defs) do
      -- Note [xlua.unpack errors]: Torch7 printed the usage and raised 'error' (also for an empty
      -- args, even when nothing is required); we raise one error naming the function and the
      -- missing argument, with the usage after it, and an empty args just takes the defaults.
      if def.req and iargs[def.arg] == nil then
        xlua.error('missing argument: ' .. def.arg, funcname, tostring(usage))
      end
      local v = iargs[def.arg]
      if v == nil then v = def.default end
      if v == nil and def.defaulta then v = dargs[def.defaulta] end
      dargs[def.arg] = v
      dargs[i] = v
    end
    dargs.usage = usage
    return dargs, unpack(dargs, 1, #defs)
  end

  --- xlua.unpack_class(object, args, funcname, description, def1, ...): xlua.unpack whose named
  --- results are also stored in object (a constructor's self).
  --- Example: local self = {}; xlua.unpack_class(self, { {lr = 0.1} }, 'Opt', nil, {arg = 'lr', type = 'number'})
  function xlua.unpack_class(object, args, funcname, description, ...)
    local dargs = xlua.unpack(args, funcname, description, ...)
    for k, v in pairs(dargs) do
      if type(k) ~= 'number' then object[k] = v end
    end
  end

  --- xlua.usage_module(module, name[, description]): a banner describing a package, also set as
  --- the module's tostring; returns it.
  --- Example: xlua.usage_module({}, 'mypackage', 'does things')
  function xlua.usage_module(module, name, description)
    local c = sys.COLORS
    local str = c.magenta .. string.rep('+', 69) .. '\nPACKAGE:\n' .. name .. '\n'
    if description then str = str .. '\nDESC:\n' .. description .. '\n' end
    str = str .. string.rep('+', 70) .. c.none
    local mt = getmetatable(module) or {}
    setmetatable(module, mt)
    mt.__tostring = function() return str end
    return str
  end
end
