-- A cjson instance: lua-cjson 2.1's module table (encode, decode, null, the configuration
-- functions, new) over its own settings. require 'cjson' and require 'cjson.safe' each return one.
local E = require 'cjson.encode'
local D = require 'cjson.decode'

local floor, ceil, format = math.floor, math.ceil, string.format

-- Note [cjson.null]: lua-cjson decodes JSON null to a NULL lightuserdata, which plain Lua cannot
-- make. A userdata from newproxy keeps what programs rely on: type() is 'userdata', it is not nil
-- (so arrays keep their length), it is true in a condition, and every instance shares it, so
-- `v == cjson.null` works; tostring gives LuaJIT's text for the NULL lightuserdata.
local null = newproxy(true)
getmetatable(null).__tostring = function() return 'userdata: NULL' end

local INT_MAX = 2147483647

-- An enumerated setting (lua-cjson's json_enum_option): a boolean, or one of the option names.
-- Returns the index of the new setting (0-based), or nil and a message.
local function enum_option(name, i, v, options)
  if type(v) == 'boolean' then return v and 1 or 0 end
  if type(v) ~= 'string' and type(v) ~= 'number' then
    return nil, format("bad argument #%d to '%s' (string expected, got %s)", i, name, type(v))
  end
  for k = 1, #options do
    if options[k] == tostring(v) then return k - 1 end
  end
  return nil, format("bad argument #%d to '%s' (invalid option '%s')", i, name, tostring(v))
end

-- An integer setting in [min, max] (lua-cjson's json_integer_option); nil and a message when bad.
local function integer_option(name, i, v, min, max)
  local x = (type(v) == 'number' or type(v) == 'string') and tonumber(v) or nil
  if x == nil then return nil, format("bad argument #%d to '%s' (number expected, got %s)", i, name, type(v)) end
  x = x >= 0 and floor(x) or ceil(x)  -- luaL_checkinteger truncates
  if x < min or x > max then
    return nil, format("bad argument #%d to '%s' (expected integer between %d and %d)", i, name, min, max)
  end
  return x
end

local function check_count(name, max, ...)
  if select('#', ...) > max then
    error(format("bad argument #%d to '%s' (found too many arguments)", max + 1, name), 3)
  end
end

local new_instance

-- The error-returning variant of an instance's encode or decode (lua-cjson's json_protect_conversion).
local function protect(f, name)
  return function(...)
    if select('#', ...) ~= 1 then error(format("bad argument #1 to '%s' (expected 1 argument)", name), 2) end
    local ok, r = pcall(f, ...)
    if ok then return r end
    return nil, r
  end
end

--- new_instance(safe): a cjson module table with default settings; safe: encode and decode
--- return nil and the message instead of raising.
--- Example: local cjson = require('cjson.instance')(false)
new_instance = function(safe)
  local cfg = {
    sparse_convert = false, sparse_ratio = 2, sparse_safe = 10,
    encode_max_depth = 1000, decode_max_depth = 1000,
    encode_invalid_numbers = false, decode_invalid_numbers = true,
    keep_buffer = true, precision = 14, number_format = '%.14g',
  }
  local cjson = { _NAME = 'cjson', _VERSION = '2.1.0', null = null }
  cjson.encode = E.encoder(cfg, null)
  cjson.decode = D.decoder(cfg, null)
  if safe then
    cjson.encode = protect(cjson.encode, 'encode')
    cjson.decode = protect(cjson.decode, 'decode')
  end

  --- cjson.encode_sparse_array([convert[, ratio[, safe]]]): how arrays with missing entries encode.
  --- An array is excessively sparse when ratio > 0, its largest index > safe and > ratio * its
  --- number of entries: an error (convert false, the default) or a JSON object (convert true).
  --- Defaults false, 2, 10. Returns the settings.
  --- Example: local cjson = require('cjson').new(); cjson.encode_sparse_array(true); print(cjson.encode({[1000] = 'x'}))  -- {"1000":"x"}
  function cjson.encode_sparse_array(...)
    check_count('encode_sparse_array', 3, ...)
    local convert, ratio, safe_ = ...
    local err
    if convert ~= nil then
      convert, err = enum_option('encode_sparse_array', 1, convert, { 'off', 'on' })
      if err then error(err, 2) end
    end
    if ratio ~= nil then
      ratio, err = integer_option('encode_sparse_array', 2, ratio, 0, INT_MAX)
      if err then error(err, 2) end
    end
    if safe_ ~= nil then
      safe_, err = integer_option('encode_sparse_array', 3, safe_, 0, INT_MAX)
      if err then error(err, 2) end
    end
    if convert ~= nil then cfg.sparse_convert = convert == 1 end
    cfg.sparse_ratio = ratio or cfg.sparse_ratio
    cfg.sparse_safe = safe_ or cfg.sparse_safe
    return cfg.sparse_convert, cfg.sparse_ratio, cfg.sparse_safe
  end

  local function integer_setting(name, key, min, max, after)
    return function(...)
      check_count(name, 1, ...)
      local v = ...
      if v ~= nil then
        local x, err = integer_option(name, 1, v, min, max)
        if err then error(err, 2) end
        cfg[key] = x
        if after then after(x) end
      end
      return cfg[key]
    end
  end
  --- cjson.encode_max_depth([depth]): tables nested deeper than depth (default 1000) are an error.
  --- Example: require('cjson').new().encode_max_depth(100)
  cjson.encode_max_depth = integer_setting('encode_max_depth', 'encode_max_depth', 1, INT_MAX)
  --- cjson.decode_max_depth([depth]): arrays/objects nested deeper than depth (default 1000) are an error.
  --- Example: require('cjson').new().decode_max_depth(100)
  cjson.decode_max_depth = integer_setting('decode_max_depth', 'decode_max_depth', 1, INT_MAX)
  --- cjson.encode_number_precision([precision]): significant digits of encoded numbers, 1 to 14
  --- (default 14: numbers print as '%.14g').
  --- Example: local cjson = require('cjson').new(); cjson.encode_number_precision(3); print(cjson.encode(math.pi))  -- 3.14
  cjson.encode_number_precision = integer_setting('encode_number_precision', 'precision', 1, 14,
    function(p) cfg.number_format = '%.' .. p .. 'g' end)

  local function enum_setting(name, key, options, to_value)
    return function(...)
      check_count(name, 1, ...)
      local v = ...
      if v ~= nil then
        local x, err = enum_option(name, 1, v, options)
        if err then error(err, 2) end
        cfg[key] = to_value[x]
      end
      return cfg[key]
    end
  end
  local BOOL = { [0] = false, [1] = true }
  --- cjson.encode_keep_buffer([keep]): accepted for compatibility (Tocha builds each result afresh).
  --- Example: require('cjson').new().encode_keep_buffer(false)
  cjson.encode_keep_buffer = enum_setting('encode_keep_buffer', 'keep_buffer', { 'off', 'on' }, BOOL)
  --- cjson.encode_invalid_numbers([setting]): false (default) refuses NaN and infinities, true
  --- writes NaN/Infinity/-Infinity (not standard JSON), "null" writes null.
  --- Example: local cjson = require('cjson').new(); cjson.encode_invalid_numbers('null'); print(cjson.encode({0/0}))  -- [null]
  cjson.encode_invalid_numbers = enum_setting('encode_invalid_numbers', 'encode_invalid_numbers',
    { 'off', 'on', 'null' }, { [0] = false, [1] = true, [2] = 'null' })
  --- cjson.decode_invalid_numbers([setting]): true (default) reads what strtod reads (Infinity,
  --- NaN, hexadecimal, leading zeros or '+'); false makes them errors.
  --- Example: require('cjson').new().decode_invalid_numbers(false)
  cjson.decode_invalid_numbers = enum_setting('decode_invalid_numbers', 'decode_invalid_numbers', { 'off', 'on' },
    BOOL)

  --- cjson.new(): an independent instance with default settings.
  --- Example: local strict = require('cjson').new(); strict.decode_invalid_numbers(false)
  function cjson.new() return new_instance(safe) end
  return cjson
end

return new_instance
