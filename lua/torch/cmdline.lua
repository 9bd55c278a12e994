-- torch.CmdLine with Torch7's API and formats (CmdLine.lua): options with typed defaults,
-- positional arguments, help text, run-name strings, and logging that tees print to a file.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local fail = lib.fail

local CmdLine = torch.getmetatable('torch.CmdLine') or torch.class('torch.CmdLine', torch)

-- '-lr' and '--lr' name the same option 'lr' (Torch7 keyed params by the name without dashes).
local function strip(key) return (key:match('^%-*(.*)$')) end
local function pad(s, width) return s .. string.rep(' ', width - #s) end

function CmdLine:__init(argseparator, keyseparator)
  self.argseparator = argseparator or ','
  self.keyseparator = keyseparator or '='
  self.options = {}     -- declared key ('-lr') -> {key, default, help, type}, as in Torch7
  self.arguments = {}   -- in order: {key, help, type}
  self.helplines = {}   -- options, arguments and text lines in declaration order
  self.dateformat = nil
  self.silentio = false
  self._names = {}      -- name without dashes -> option, so both -lr and --lr are accepted
end

--- Declares an option; its type is the default's unless given (number, string or boolean).
function CmdLine:option(key, default, help, type_)
  if type(key) ~= 'string' or strip(key) == '' then fail('CmdLine', 'option key must be a non-empty string, got %s', tostring(key)) end
  if default == nil then fail('CmdLine', 'option %s has no default value', key) end
  type_ = type_ or type(default)
  if type(default) ~= type_ then
    fail('CmdLine', 'option %s has wrong default type value (%s, should be %s)', key, type(default), type_)
  end
  if self._names[strip(key)] then fail('CmdLine', 'option %s is already defined', key) end
  local opt = { key = key, default = default, help = help, type = type_, kind = 'option' }
  self.options[key] = opt
  self._names[strip(key)] = opt
  table.insert(self.helplines, opt)
  return self
end

--- Declares the next positional argument (required); type 'number' converts it.
function CmdLine:argument(key, help, type_)
  if type(key) ~= 'string' then fail('CmdLine', 'argument key must be a string, got %s', type(key)) end
  local a = { key = key, help = help, type = type_, kind = 'argument' }
  table.insert(self.arguments, a)
  table.insert(self.helplines, a)
  return self
end

--- Adds a line of free text to the help.
function CmdLine:text(txt)
  txt = txt or ''
  if type(txt) ~= 'string' then fail('CmdLine', 'text expects a string, got %s', type(txt)) end
  table.insert(self.helplines, txt)
  return self
end

--- The options' defaults, keyed by name without dashes.
function CmdLine:default()
  local params = {}
  for _, opt in pairs(self.options) do params[strip(opt.key)] = opt.default end
  return params
end

--- Prints the usage (to io.stdout, or to `out`), in Torch7's format.
function CmdLine:help(arg, out)
  out = out or io.stdout
  local parts = { 'Usage: ' }
  if arg and arg[0] then parts[#parts + 1] = tostring(arg[0]) .. ' ' end
  parts[#parts + 1] = '[options] '
  -- Torch7 writes the argument names with nothing between them (`<a><b>`); kept for fidelity.
  for _, a in ipairs(self.arguments) do parts[#parts + 1] = '<' .. strip(a.key) .. '>' end
  parts[#parts + 1] = '\n'
  local width = 0
  for _, h in ipairs(self.helplines) do
    if type(h) == 'table' then
      width = math.max(width, h.kind == 'option' and #h.key or #strip(h.key) + 2)
    end
  end
  for _, h in ipairs(self.helplines) do
    if type(h) ~= 'table' then
      parts[#parts + 1] = h
    elseif h.kind == 'option' then
      parts[#parts + 1] = '  ' .. pad(h.key, width) .. (h.help and (' ' .. h.help) or '')
        .. ' [' .. tostring(h.default) .. ']'
    else
      parts[#parts + 1] = '  ' .. pad('<' .. strip(h.key) .. '>', width) .. (h.help and (' ' .. h.help) or '')
    end
    parts[#parts + 1] = '\n'
  end
  out:write(table.concat(parts))
  out:flush()
end

--- Reports a command-line error: the usage goes to stderr and the error is raised at the
--- caller's line. (Torch7 printed and called os.exit(1); raising lets scripts and tests catch it,
--- and an uncaught one still ends the script with a non-zero status.)
function CmdLine:error(msg)
  self:help(self._arg, io.stderr)
  fail('CmdLine', tostring(msg))
end

local booleans = { ['true'] = true, t = true, ['1'] = true, yes = true,
                   ['false'] = false, f = false, ['0'] = false, no = false }

-- Converts a command-line string to the option's type (nil when it does not parse).
local function convert(value, type_)
  if type_ == 'string' or type_ == nil then return value end
  if type_ == 'number' then return tonumber(value) end
  if type_ == 'boolean' then return booleans[value:lower()] end
  return nil
end

-- Reads the option at arg[i] into params; returns how many tokens it used.
function CmdLine:_read_option(params, arg, i)
  local token = arg[i]
  local name, inline = token, nil
  local opt = self.options[token]
  if not opt then
    -- `--key=value` is accepted too (Torch7 did not; it cannot clash with its syntax).
    local k, v = token:match('^(%-+[^=]+)=(.*)$')
    if k then name, inline = k, v end
    opt = self._names[strip(name)]
  end
  if not opt then self:error('unknown option ' .. token) end
  local key = strip(opt.key)
  if opt.type ~= 'number' and opt.type ~= 'string' and opt.type ~= 'boolean' then
    self:error('option ' .. name .. ' has type ' .. opt.type .. ', which the command line cannot give')
  end
  if opt.type == 'boolean' and inline == nil then
    -- A flag takes no value: it flips the default (so `-cuda` turns on a default-false option).
    params[key] = not opt.default
    return 1
  end
  local value = inline or arg[i + 1]
  if value == nil then self:error('missing argument for option ' .. name) end
  local converted = convert(value, opt.type)
  if converted == nil then
    self:error(string.format("invalid type for option %s (should be %s, got '%s')", name, opt.type, value))
  end
  params[key] = converted
  return inline and 1 or 2
end

-- Reads the n-th positional argument.
function CmdLine:_read_argument(params, value, n)
  local a = self.arguments[n]
  if not a then self:error('invalid argument: ' .. value .. ' (expected ' .. #self.arguments .. ' argument'
    .. (#self.arguments == 1 and '' or 's') .. ')') end
  local converted = convert(value, a.type)
  if converted == nil then
    self:error(string.format("invalid type for argument <%s> (should be %s, got '%s')", strip(a.key), a.type, value))
  end
  params[strip(a.key)] = converted
end

-- A token is an option when it was declared as such or starts with '-' and is not a number
-- (so `-5` can be a positional argument).
local function looks_like_option(self, s)
  return self.options[s] ~= nil or (s:sub(1, 1) == '-' and #s > 1 and tonumber(s) == nil)
end

--- Parses arg[1..#arg] (default: the global arg) into a table of option and argument values.
--- -h, -help and --help print the usage and exit, as in Torch7; `--` ends the options.
function CmdLine:parse(arg)
  arg = arg or _G.arg or {}
  self._arg = arg
  local params = self:default()
  local nargs, i, options_done = 0, 1, false
  while i <= #arg do
    local a = tostring(arg[i])
    if options_done then
      nargs = nargs + 1
      self:_read_argument(params, a, nargs)
      i = i + 1
    elseif a == '-h' or a == '-help' or a == '--help' then
      self:help(arg)
      os.exit(0)
    elseif a == '--' then
      options_done, i = true, i + 1
    elseif looks_like_option(self, a) then
      i = i + self:_read_option(params, arg, i)
    else
      nargs = nargs + 1
      self:_read_argument(params, a, nargs)
      i = i + 1
    end
  end
  if nargs < #self.arguments then
    self:error('not enough arguments: missing <' .. strip(self.arguments[nargs + 1].key) .. '>')
  end
  return params
end

--- Torch7's run-name builder: prefix, then the arguments, then the options that differ from their
--- defaults (sorted), as key=value joined by the separator; booleans are t/f. ignore[k] = true
--- leaves k out, ignore[k] = false keeps it even at its default.
--- (Torch7 also printed debug lines, and left a stray separator when the prefix or the options
--- were empty; neither is reproduced.)
function CmdLine:string(prefix, params, ignore)
  prefix, ignore = prefix or '', ignore or {}
  local kv = self.keyseparator
  local by_position, options = {}, {}
  for k, v in pairs(params) do
    local opt = self._names[k]
    if ignore[k] then
      -- left out on purpose
    elseif opt then
      if v ~= opt.default or ignore[k] == false then
        if type(v) == 'boolean' then v = v and 't' or 'f' end
        options[#options + 1] = k .. kv .. tostring(v)
      end
    else
      for n, a in ipairs(self.arguments) do
        if strip(a.key) == k then by_position[n] = k .. kv .. tostring(v) end
      end
    end
  end
  table.sort(options)
  local parts = {}
  if prefix ~= '' then parts[1] = prefix end
  for n = 1, #self.arguments do
    if by_position[n] then parts[#parts + 1] = by_position[n] end
  end
  for _, o in ipairs(options) do parts[#parts + 1] = o end
  return table.concat(parts, self.argseparator)
end

--- Prefixes each logged line with os.date(format) and `[name]: ` (Torch7's addTime).
function CmdLine:addTime(name, format)
  format = format or '%Y-%m-%d %H:%M:%S'
  if type(format) ~= 'string' then fail('CmdLine', 'addTime: format has to be a string, got %s', type(format)) end
  self.dateformat = format .. (name ~= nil and ('[' .. tostring(name) .. ']: ') or '')
  return self
end

--- After log(), print writes only to the log file, not to stdout.
function CmdLine:silent()
  self.silentio = true
  return self
end

-- print functions installed by log(), mapped to the print they wrap: a second log() tees from
-- the original print rather than into the first log file.
local tees = setmetatable({}, { __mode = 'k' })

--- Replaces the global print by one that also writes to `file` (Torch7's format: fields joined by
--- spaces, optional date prefix), then logs the start time and the params.
function CmdLine:log(file, params)
  local f, err = io.open(file, 'w')
  if not f then fail('CmdLine', 'cannot open log file %s: %s', tostring(file), tostring(err)) end
  local out = tees[_G.print] or _G.print
  local cmd = self
  local function tee(...)
    if not cmd.silentio then out(...) end
    local fields = {}
    if cmd.dateformat then fields[1] = os.date(cmd.dateformat) end
    for i = 1, select('#', ...) do fields[#fields + 1] = tostring((select(i, ...))) end
    fields[#fields + 1] = '\n'
    f:write(table.concat(fields, ' '))
    f:flush()
  end
  tees[tee] = out
  _G.print = tee
  tee('[program started on ' .. os.date() .. ']')
  tee('[command line arguments]')
  if params then
    local keys = {}
    for k in pairs(params) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do tee(k, params[k]) end
  end
  tee('[----------------------]')
end

return CmdLine
