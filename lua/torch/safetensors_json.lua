-- A strict JSON reader, string quoting and a UTF-8 check for safetensors headers (the check also
-- serves TensorBoard tags). Input is untrusted: nesting is bounded, duplicate keys and trailing
-- garbage are errors, and every error names the offset.
local J = {}

J.null = setmetatable({}, { __tostring = function() return 'null' end })
local arrays = setmetatable({}, { __mode = 'k' })

--- Whether a decoded table came from a JSON array (objects and arrays are both Lua tables).
function J.is_array(t) return arrays[t] == true end

local MAX_DEPTH = 64
local escapes = { ['"'] = '"', ['\\'] = '\\', ['/'] = '/', b = '\b', f = '\f', n = '\n', r = '\r', t = '\t' }

local function utf8(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
                     0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
end

--- Decodes JSON text; raises "bad JSON at offset N: ..." on anything invalid.
function J.decode(s)
  local i = 1
  local function fail(msg) error(string.format('bad JSON at offset %d: %s', i - 1, msg), 0) end
  local function skip() i = s:find('[^ \t\n\r]', i) or #s + 1 end

  local function str()
    i = i + 1  -- opening quote
    local parts = {}
    while true do
      local j = s:find('["\\%z\1-\31]', i)
      if not j then fail('unterminated string') end
      parts[#parts + 1] = s:sub(i, j - 1)
      local c = s:sub(j, j)
      if c == '"' then i = j + 1 return table.concat(parts) end
      if c ~= '\\' then i = j fail('control character in a string') end
      local e = s:sub(j + 1, j + 1)
      if escapes[e] then
        parts[#parts + 1] = escapes[e]
        i = j + 2
      elseif e == 'u' then
        local hex = s:match('^%x%x%x%x', j + 2)
        if not hex then i = j fail('bad \\u escape') end
        local cp = tonumber(hex, 16)
        i = j + 6
        if cp >= 0xD800 and cp <= 0xDBFF then  -- a surrogate pair
          local lo = s:match('^\\u(%x%x%x%x)', i)
          lo = lo and tonumber(lo, 16)
          if not lo or lo < 0xDC00 or lo > 0xDFFF then fail('unpaired surrogate') end
          cp = 0x10000 + (cp - 0xD800) * 1024 + (lo - 0xDC00)
          i = i + 6
        elseif cp >= 0xDC00 and cp <= 0xDFFF then  -- a low surrogate with no high one before it
          fail('unpaired surrogate')
        end
        parts[#parts + 1] = utf8(cp)
      else
        i = j
        fail('bad escape')
      end
    end
  end

  local value
  local function container(depth, close, item)
    if depth > MAX_DEPTH then fail('nested too deeply') end
    i = i + 1
    skip()
    if s:sub(i, i) == close then i = i + 1 return end
    while true do
      item()
      skip()
      local c = s:sub(i, i)
      if c == close then i = i + 1 return end
      if c ~= ',' then fail("expected ',' or '" .. close .. "'") end
      i = i + 1
      skip()
    end
  end

  value = function(depth)
    skip()
    local c = s:sub(i, i)
    if c == '{' then
      local t = {}
      container(depth + 1, '}', function()
        if s:sub(i, i) ~= '"' then fail('expected a key') end
        local k = str()
        skip()
        if s:sub(i, i) ~= ':' then fail("expected ':'") end
        i = i + 1
        if t[k] ~= nil then fail('duplicate key "' .. k .. '"') end
        t[k] = value(depth + 1)
      end)
      return t
    elseif c == '[' then
      local t = {}
      arrays[t] = true
      container(depth + 1, ']', function() t[#t + 1] = value(depth + 1) end)
      return t
    elseif c == '"' then
      return str()
    end
    -- JSON's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?: the reference reader rejects
    -- 01, 1. and .5, so a header holding them is corrupt, not a variant to accept
    local int = s:match('^-?%d+', i)
    if int then
      local j = i + #int
      if int:match('^-?0%d') then fail('bad number (leading zero)') end
      local frac = s:match('^%.%d+', j)
      if not frac and s:sub(j, j) == '.' then fail('bad number') end
      j = j + (frac and #frac or 0)
      local exp = s:match('^[eE][-+]?%d+', j)
      if not exp and s:match('^[eE]', j) then fail('bad number') end
      j = j + (exp and #exp or 0)
      local v = tonumber(s:sub(i, j - 1))
      if not v then fail('bad number') end
      i = j
      return v
    end
    for word, v in pairs({ ['true'] = true, ['false'] = false, null = J.null }) do
      if s:sub(i, i + #word - 1) == word then i = i + #word return v end
    end
    fail('unexpected ' .. (c == '' and 'end of text' or string.format('character %q', c)))
  end

  local v = value(0)
  skip()
  if i <= #s then fail('trailing characters') end
  return v
end

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
