-- A strict JSON reader, string quoting and a UTF-8 check for safetensors headers (the check also
-- serves TensorBoard tags). Input is untrusted: nesting is bounded, duplicate keys and trailing
-- garbage are errors, and every error names the offset. The parsing core (J.parse) takes its
-- dialect as options, so lua/cjson's decoder runs the same code with lua-cjson's rules.
local J = {}

local byte, sub, find, match, concat = string.byte, string.sub, string.find, string.match, table.concat

J.null = setmetatable({}, { __tostring = function() return 'null' end })
local arrays = setmetatable({}, { __mode = 'k' })

--- Whether a decoded table came from a JSON array (objects and arrays are both Lua tables).
function J.is_array(t) return arrays[t] == true end

local escapes = { [34] = '"', [92] = '\\', [47] = '/', [98] = '\b', [102] = '\f', [110] = '\n', [114] = '\r',
                  [116] = '\t' }

local function utf8(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
                     0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

-- Note [One JSON parser, two dialects]: safetensors headers want a strict reader (duplicate keys,
-- raw control characters and non-grammar numbers are errors); lua-cjson's decoder is lenient in
-- set ways (the last duplicate wins, raw control bytes pass, strtod numbers, NUL ends the text)
-- and words its errors as "Expected <what> but found <token> at character <n>". The grammar walk
-- is the same, so it lives here once and each dialect passes options o:
--   null      the value JSON null decodes to
--   array     nil, or a function called on every decoded array
--   unique    duplicate object keys are an error (otherwise the last one wins)
--   maxDepth  arrays and objects nested deeper than this are an error
--   control   raw control characters (bytes 1-31) may appear in strings
--   nulEnds   a NUL byte ends the text, as in a C string
--   number    function(s, i) -> value, next index; or nil (not a number) / nil, detail (a bad one)
--   fail      function(code, pos, expected, detail, s) raising the error. code: 'string' (no
--             closing quote), 'control', 'escape', 'unicode', 'number', 'depth', 'duplicate',
--             'token' (something else where `expected` was: 'value', 'object key string',
--             'colon', 'comma or object end', 'comma or array end' or 'the end'); pos is the
--             1-based position of the offending byte (the backslash of a bad escape).

--- J.parse(s, o): the value the JSON text s holds, read with the dialect o (see the Note above).
--- Example: local J = require 'torch.safetensors_json'; print(J.decode('[1, 2]')[2])  -- J.decode is J.parse, strict dialect
function J.parse(s, o)
  local i = 1
  local null, on_array, unique, max_depth, number, fail = o.null, o.array, o.unique, o.maxDepth, o.number, o.fail
  local stop = o.control and '["\\%z]' or '["\\%z\1-\31]'
  local nul_ends = o.nulEnds

  local function skip() i = find(s, '[^ \t\n\r]', i) or #s + 1 end

  local function escape_u(j, expected)  -- the code point of the \u escape at j, and the escape's length
    local hex = match(s, '^%x%x%x%x', j + 2)
    if not hex then fail('unicode', j, expected, 'bad \\u escape', s) end
    local cp = tonumber(hex, 16)
    if cp >= 0xD800 and cp <= 0xDBFF then  -- a surrogate pair
      local lo = match(s, '^\\u(%x%x%x%x)', j + 6)
      lo = lo and tonumber(lo, 16)
      if not lo or lo < 0xDC00 or lo > 0xDFFF then fail('unicode', j, expected, 'unpaired surrogate', s) end
      return 0x10000 + (cp - 0xD800) * 1024 + (lo - 0xDC00), 12
    elseif cp >= 0xDC00 and cp <= 0xDFFF then  -- a low surrogate with no high one before it
      fail('unicode', j, expected, 'unpaired surrogate', s)
    end
    return cp, 6
  end

  local function str(expected)  -- i is at the opening quote
    local p = i + 1
    local j = find(s, stop, p)
    if j and byte(s, j) == 34 then i = j + 1 return sub(s, p, j - 1) end  -- no escapes
    local parts, n = {}, 0
    while true do
      if not j then fail('string', #s + 1, expected, nil, s) end
      if j > p then n = n + 1 parts[n] = sub(s, p, j - 1) end
      local c = byte(s, j)
      if c == 34 then i = j + 1 return concat(parts, '', 1, n) end
      if c ~= 92 then fail((c == 0 and nul_ends) and 'string' or 'control', j, expected, nil, s) end
      local e = byte(s, j + 1)
      n = n + 1
      if escapes[e] then
        parts[n] = escapes[e]
        p = j + 2
      elseif e == 117 then
        local cp, len = escape_u(j, expected)
        parts[n] = utf8(cp)
        p = j + len
      else
        fail('escape', j, expected, nil, s)
      end
      j = find(s, stop, p)
    end
  end

  local value
  value = function(depth, expected)  -- i is at the value's first byte
    local c = byte(s, i)
    if c == 123 or c == 91 then  -- { or [
      depth = depth + 1
      if depth > max_depth then fail('depth', i, expected, depth, s) end
      local t, n = {}, 0
      local close = c + 2  -- } or ]
      local sep = c == 123 and 'comma or object end' or 'comma or array end'
      if c == 91 and on_array then on_array(t) end
      i = i + 1
      skip()
      if byte(s, i) == close then i = i + 1 return t end
      while true do
        if c == 123 then
          if byte(s, i) ~= 34 then fail('token', i, 'object key string', nil, s) end
          local k = str('object key string')
          skip()
          if byte(s, i) ~= 58 then fail('token', i, 'colon', nil, s) end
          i = i + 1
          skip()
          if unique and t[k] ~= nil then fail('duplicate', i, 'value', k, s) end
          t[k] = value(depth, 'value')
        else
          n = n + 1
          t[n] = value(depth, 'value')
        end
        skip()
        local d = byte(s, i)
        if d == close then i = i + 1 return t end
        if d ~= 44 then fail('token', i, sep, nil, s) end
        i = i + 1
        skip()
      end
    elseif c == 34 then
      return str(expected)
    elseif c == 116 and sub(s, i, i + 3) == 'true' then i = i + 4 return true
    elseif c == 102 and sub(s, i, i + 4) == 'false' then i = i + 5 return false
    elseif c == 110 and sub(s, i, i + 3) == 'null' then i = i + 4 return null
    end
    local v, j = number(s, i)
    if v == nil then fail(j and 'number' or 'token', i, expected, j, s) end
    i = j
    return v
  end

  skip()
  local v = value(0, 'value')
  skip()
  if i <= #s and not (nul_ends and byte(s, i) == 0) then fail('token', i, 'the end', nil, s) end
  return v
end

-- ---- the safetensors dialect ------------------------------------------------------------------------

-- JSON's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?: the reference reader rejects 01,
-- 1. and .5, so a header holding them is corrupt, not a variant to accept
local function strict_number(s, i)
  local int = match(s, '^-?%d+', i)
  if not int then return nil end
  if match(int, '^-?0%d') then return nil, 'bad number (leading zero)' end
  local j = i + #int
  local frac = match(s, '^%.%d+', j)
  if not frac and byte(s, j) == 46 then return nil, 'bad number' end
  j = j + (frac and #frac or 0)
  local exp = match(s, '^[eE][-+]?%d+', j)
  if not exp and match(s, '^[eE]', j) then return nil, 'bad number' end
  j = j + (exp and #exp or 0)
  local v = tonumber(sub(s, i, j - 1))
  if not v then return nil, 'bad number' end
  return v, j
end

local strict_messages = { string = 'unterminated string', control = 'control character in a string',
                          escape = 'bad escape', depth = 'nested too deeply' }
local strict_expected = { ['object key string'] = 'expected a key', colon = "expected ':'",
                          ['comma or object end'] = "expected ',' or '}'",
                          ['comma or array end'] = "expected ',' or ']'", ['the end'] = 'trailing characters' }

local function strict_fail(code, pos, expected, detail, s)
  local msg = strict_messages[code]
  if code == 'unicode' or code == 'number' then
    msg = detail
  elseif code == 'duplicate' then
    msg = 'duplicate key "' .. detail .. '"'
  elseif code == 'token' then
    local c = sub(s, pos, pos)
    msg = strict_expected[expected] or ('unexpected ' .. (c == '' and 'end of text' or string.format('character %q', c)))
  end
  error(string.format('bad JSON at offset %d: %s', pos - 1, msg), 0)
end

local STRICT = { null = J.null, array = function(t) arrays[t] = true end, unique = true, maxDepth = 64,
                 control = false, nulEnds = false, number = strict_number, fail = strict_fail }

--- Decodes JSON text; raises "bad JSON at offset N: ..." on anything invalid.
function J.decode(s) return J.parse(s, STRICT) end

--- Whether s is valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF), as JSON text must be.
function J.is_utf8(s)
  if not s:find('[\128-\255]') then return true end
  local i, n = 1, #s
  while i <= n do
    local c = s:byte(i)
    if c < 0x80 then
      i = i + 1
    else
      local len, cp, min
      if c >= 0xC2 and c <= 0xDF then len, cp, min = 2, c - 0xC0, 0x80
      elseif c >= 0xE0 and c <= 0xEF then len, cp, min = 3, c - 0xE0, 0x800
      elseif c >= 0xF0 and c <= 0xF4 then len, cp, min = 4, c - 0xF0, 0x10000
      else return false end
      for k = 1, len - 1 do
        local b = s:byte(i + k)
        if not b or b < 0x80 or b > 0xBF then return false end
        cp = cp * 64 + (b - 0x80)
      end
      if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then return false end
      i = i + len
    end
  end
  return true
end

--- A JSON string literal for s (control characters escaped; other bytes kept as UTF-8).
function J.quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local e = ({ ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' })[c]
    return e or string.format('\\u%04x', c:byte())
  end) .. '"'
end

return J
