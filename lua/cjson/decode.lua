-- cjson.decode: lua-cjson's dialect of the JSON parser shared with the safetensors reader
-- (lua/torch/safetensors_json.lua, Note [One JSON parser, two dialects]): numbers go through the C
-- library's strtod as in lua-cjson, and errors read "Expected <what> but found <token> at character <n>".
local ffi = require 'ffi'
local J = require 'torch.safetensors_json'

local byte, sub, lower = string.byte, string.sub, string.lower
local bor = bit.bor

pcall(ffi.cdef, 'double strtod(const char *nptr, char **endptr);')
local C = ffi.C
local endp = ffi.new('char *[1]')
local charp = ffi.typeof('const char *')

local M = {}

-- lua-cjson's json_is_invalid_number: what strtod accepts but JSON does not (a leading '+',
-- hexadecimal, leading zeros, inf and nan).
local function is_invalid_number(s, i)
  local c = byte(s, i)
  if c == 43 then return true end  -- +
  local p = c == 45 and i + 1 or i
  c = byte(s, p)
  if c == 48 then  -- 0x.. or 0 followed by a digit
    local c2 = byte(s, p + 1)
    return c2 ~= nil and (bor(c2, 0x20) == 120 or (c2 >= 48 and c2 <= 57))
  end
  if c == nil or c <= 57 then return false end
  local w = lower(sub(s, p, p + 2))
  return w == 'inf' or w == 'nan'
end

-- Note [strtod numbers]: lua-cjson hands every number to strtod, so by default it reads what
-- strtod reads (00123, 0x6, +1, Infinity, NaN, 1e999 = inf) and stops where strtod stops ('0.4e'
-- reads 0.4 and leaves 'e' as the next token). decode_invalid_numbers(false) refuses the forms
-- is_invalid_number lists. The text is a Lua string, NUL-terminated, so strtod cannot run past it.
local function number_reader(cfg)
  return function(s, i)
    local c = byte(s, i)
    if c == nil then return nil end
    if c == 45 or (c >= 48 and c <= 57) then  -- - or a digit
      if not cfg.decode_invalid_numbers and is_invalid_number(s, i) then return nil, 'invalid number' end
    elseif not (cfg.decode_invalid_numbers and (c == 43 or c == 73 or c == 105 or c == 78 or c == 110)
                and is_invalid_number(s, i)) then
      return nil  -- not a number at all: "invalid token"
    end
    local p = ffi.cast(charp, s) + (i - 1)
    local v = C.strtod(p, endp)
    local used = tonumber(endp[0] - p)
    if used == 0 then return nil, 'invalid number' end
    return v, i + used
  end
end

local token_names = { [123] = 'T_OBJ_BEGIN', [125] = 'T_OBJ_END', [91] = 'T_ARR_BEGIN', [93] = 'T_ARR_END',
                      [44] = 'T_COMMA', [58] = 'T_COLON', [34] = 'T_STRING', [0] = 'T_END' }

-- The name lua-cjson gives the token at pos (its json_token_type_name or the token's error).
local function found_at(s, pos, number)
  local c = byte(s, pos)
  if c == nil then return 'T_END' end
  if token_names[c] then return token_names[c] end
  if sub(s, pos, pos + 3) == 'true' or sub(s, pos, pos + 4) == 'false' then return 'T_BOOLEAN' end
  if sub(s, pos, pos + 3) == 'null' then return 'T_NULL' end
  local v, err = number(s, pos)
  if v ~= nil then return 'T_NUMBER' end
  return err or 'invalid token'
end

local found_for = { string = 'unexpected end of string', control = 'invalid token', escape = 'invalid escape code',
                    unicode = 'invalid unicode escape code', number = 'invalid number' }

--- The decode function of a cjson instance whose settings are the table cfg (read at each call).
function M.decoder(cfg, null)
  local number = number_reader(cfg)
  local function fail(code, pos, expected, detail, s)
    if code == 'depth' then
      error(string.format('Found too many nested data structures (%d) at character %d', detail, pos), 0)
    end
    local found = found_for[code] or found_at(s, pos, number)
    error(string.format('Expected %s but found %s at character %d', expected, found, pos), 0)
  end
  local dialect = { null = null, unique = false, control = true, nulEnds = true, number = number, fail = fail }
  return function(...)
    if select('#', ...) ~= 1 then error("bad argument #1 to 'decode' (expected 1 argument)", 2) end
    local s = ...
    local ts = type(s)
    if ts == 'number' then
      s = tostring(s)
    elseif ts ~= 'string' then
      error(string.format("bad argument #1 to 'decode' (string expected, got %s)", ts), 2)
    end
    -- RFC 4627: UTF-16 and UTF-32 text has a NUL among its first two bytes
    if #s >= 2 and (byte(s, 1) == 0 or byte(s, 2) == 0) then
      error('JSON parser does not support UTF-16 or UTF-32', 0)
    end
    dialect.maxDepth = cfg.decode_max_depth
    return (J.parse(s, dialect))
  end
end

return M
