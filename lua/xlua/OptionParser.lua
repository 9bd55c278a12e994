-- Torch7's xlua.OptionParser: command-line options in the style of Python's optparse, read from
-- the global arg (op:option{'-l', '--lr', action='store', dest='lr', default=0.1, help=...};
-- opt, args = op:parse()). Values stay strings, as in Torch7.
return function(xlua)
  local OptionParser = {}

  --- xlua.OptionParser(usage): a parser whose help starts with usage ('%prog' is replaced by
  --- the script's name); -h/--help is predefined. Usage may be a table {usage = ...}.
  --- Example: local op = xlua.OptionParser('%prog [options]'); op:option{'-n', action = 'store', dest = 'n', default = 10, help = 'count'}
  function xlua.OptionParser(usage)
    if type(usage) == 'table' then usage = usage.usage end
    local self = { usage = usage or '%prog [options]', option_descriptions = {}, option_of = {} }
    for k, v in pairs(OptionParser) do self[k] = v end
    self:option{ '-h', '--help', action = 'store_true', dest = 'help', help = 'show this help message and exit' }
    return self
  end

  --- op:fail(message): prints message and the help to stderr/stdout and exits with status 1.
  function OptionParser:fail(s)
    io.stderr:write(s .. '\n')
    self:help()
    os.exit(1)
  end

  --- op:option{flag1[, flag2...], action='store'|'store_true'|'store_false', dest=, default=,
  --- help=, req=, metavar=}: declares an option.
  function OptionParser:option(optdesc)
    if type(optdesc) ~= 'table' or type(optdesc.dest) ~= 'string' then
      error('xlua.OptionParser:option: expected a table {flag..., dest = name, ...}, got '
        .. (type(optdesc) == 'table' and 'no dest' or type(optdesc)), 2)
    end
    self.option_descriptions[#self.option_descriptions + 1] = optdesc
    for _, flag in ipairs(optdesc) do self.option_of[flag] = optdesc end
  end

  --- op:parse([options]): options (a table, defaults filled in) and the list of the other
  --- arguments, from the global arg (as the calling script sees it); prints the help and exits
  --- on -h, and prints the error and the help and exits on a bad option.
  function OptionParser:parse(options)
    options = options or {}
    local args = {}
    for _, v in ipairs(self.option_descriptions) do
      if v.default ~= nil and options[v.dest] == nil then options[v.dest] = v.default end
    end
    -- The arg the calling script sees (its environment's, which is _G for a plain script).
    local env = getfenv(2)
    local garg = type(env) == 'table' and env.arg or rawget(_G, 'arg')
    self._arg = garg
    if not garg then
      options.__main__ = false  -- loaded as a library, Python-like
      self.options = options
      return options, args
    end
    options.__main__ = true
    -- "--flag=value" becomes "--flag", "value". Note [OptionParser flags]: Torch7 split only
    -- word characters (%w), so "--learning-rate=3" failed; dashes and underscores are allowed.
    local argv = { unpack(garg) }
    for i = #argv, 1, -1 do
      local flag, val = argv[i]:match('^(%-%-[%w_%-]+)=(.*)')
      if flag then
        argv[i] = flag
        table.insert(argv, i + 1, val)
      end
    end
    local i = 1
    while i <= #argv do
      local v = argv[i]
      local optdesc = self.option_of[v]
      if optdesc then
        local action, val = optdesc.action, optdesc.default
        if action == 'store' or action == nil then
          i = i + 1
          val = argv[i] or optdesc.default
          if val == nil then self:fail('option requires an argument ' .. v) end
        elseif action == 'store_true' then
          val = true
        elseif action == 'store_false' then
          val = false
        end
        options[optdesc.dest] = val
      else
        if v:match('^%-') then self:fail('invalid option ' .. v) end
        args[#args + 1] = v
      end
      i = i + 1
    end
    for flag, opt in pairs(self.option_of) do
      if opt.req and not options[opt.dest] then self:fail('option ' .. flag .. ' requires an argument ') end
    end
    if options.help then
      self:help()
      os.exit()
    end
    self.options = options
    return options, args
  end

  --- op:flags(optdesc): the flags of an option as the help shows them ('-n N, --num=N').
  function OptionParser:flags(optdesc)
    local sflags = {}
    local action = optdesc and optdesc.action
    for _, flag in ipairs(optdesc) do
      local tail = ''
      if action == nil or action == 'store' then
        local metavar = optdesc.metavar or optdesc.dest:upper()
        tail = #flag == 2 and (' ' .. metavar) or ('=' .. metavar)
      end
      sflags[#sflags + 1] = flag .. tail
    end
    return table.concat(sflags, ', ')
  end

  --- op:help(): prints the usage line and the options with their help and defaults.
  function OptionParser:help()
    local garg = self._arg or rawget(_G, 'arg')
    local prog = garg and garg[0] and ((garg[-1] and (garg[-1] .. ' ') or '') .. garg[0]) or 'THISPROG'
    io.stdout:write('Usage: ' .. self.usage:gsub('%%prog', (prog:gsub('%%', '%%%%'))) .. '\n\n')
    io.stdout:write('Options:\n')
    local pad = 0
    for _, optdesc in ipairs(self.option_descriptions) do pad = math.max(pad, #self:flags(optdesc)) end
    for _, optdesc in ipairs(self.option_descriptions) do
      local defstr = ''
      if optdesc.req then defstr = ' [REQUIRED]'
      elseif optdesc.default then defstr = ' [default = ' .. tostring(optdesc.default) .. ']' end
      local flags = self:flags(optdesc)
      io.stdout:write('  ' .. flags .. string.rep(' ', pad - #flags) .. '  ' .. (optdesc.help or '') .. defstr .. '\n')
    end
  end

  --- op:tostring([generatefilename, params]): the parsed options as a report, or (with
  --- generatefilename) as a compact 'flag=value,...' string usable in file names (only the flags
  --- listed in params when it is not empty).
  function OptionParser:tostring(generatefilename, params)
    local str = ''
    if not generatefilename then
      local garg = self._arg or rawget(_G, 'arg')
      local name = ((garg and garg[0]) or 'interpreted.lua'):gsub('%.lua$', '')
      str = '<' .. name .. '> configuration:\n'
      for k, v in pairs(self.options) do str = str .. ' + ' .. k .. ' = ' .. tostring(v) .. '\n' end
    else
      params = params or {}
      local parts = {}
      for _, entry in ipairs(self.option_descriptions) do
        local key = entry[1]
        local match = #params == 0
        for _, p in ipairs(params) do if key == p then match = true break end end
        local val = self.options[entry.dest]
        if val and match then parts[#parts + 1] = key .. '=' .. tostring(val) end
      end
      str = table.concat(parts, ','):gsub('/', '|'):gsub(' ', '_')
    end
    return str
  end

  --- op:summarize([compact]): writes op:tostring(compact).
  function OptionParser:summarize(compact)
    io.write(self:tostring(compact))
  end
end
