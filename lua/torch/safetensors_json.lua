-- A strict JSON reader and string quoting for safetensors headers. Input is untrusted: nesting
-- is bounded, duplicate keys and trailing garbage are errors, and every error names the offset.
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
    local num = s:match('^-?%d+%.?%d*[eE]?[-+]?%d*', i)
    if num then
      local v = tonumber(num)
      if not v then fail('bad number') end
      i = i + #num
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

--- A JSON string literal for s (control characters escaped; other bytes kept as UTF-8).
function J.quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local e = ({ ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' })[c]
    return e or string.format('\\u%04x', c:byte())
  end) .. '"'
end

return J
