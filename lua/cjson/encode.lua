-- cjson.encode: lua-cjson's serialiser. Tables whose keys are all positive integers are arrays
-- (sparse ones padded with null, excessively sparse ones an error or an object), other tables are
-- objects; metatables are ignored (rawget, next); '/' and DEL are escaped as lua-cjson does.
local M = {}

local floor, huge = math.floor, math.huge
local format, gsub, concat = string.format, string.gsub, table.concat

-- lua-cjson's char2escape table: control characters, '"', '/', '\' and DEL.
local escape = {}
for c = 0, 31 do escape[string.char(c)] = format('\\u%04x', c) end
escape['\b'], escape['\t'], escape['\n'], escape['\f'], escape['\r'] = '\\b', '\\t', '\\n', '\\f', '\\r'
escape['"'], escape['\\'], escape['/'], escape['\127'] = '\\"', '\\\\', '\\/', '\\u007f'
local ESCAPED = '[%z\1-\31"/\\\127]'

local function quote(s) return '"' .. gsub(s, ESCAPED, escape) .. '"' end

local function fail(v, reason) error(format('Cannot serialise %s: %s', type(v), reason), 0) end

--- The encode function of a cjson instance whose settings are the table cfg (read at each call).
function M.encoder(cfg, null)
  local function number(v)
    if v ~= v or v == huge or v == -huge then
      local mode = cfg.encode_invalid_numbers
      if mode == false then fail(v, 'must not be NaN or Infinity') end
      if mode == 'null' then return 'null' end
      if v ~= v then return 'NaN' end
      return v > 0 and 'Infinity' or '-Infinity'
    end
    return format(cfg.number_format, v)
  end

  -- lua-cjson's lua_array_length: the array length, or -1 for an object (also for an excessively
  -- sparse array when encode_sparse_array's convert is on; an error when it is off).
  local function array_length(t)
    local max, items = 0, 0
    for k in next, t do
      if type(k) == 'number' and k >= 1 and k < huge and floor(k) == k then
        if k > max then max = k end
        items = items + 1
      else
        return -1
      end
    end
    local ratio = cfg.sparse_ratio
    if ratio > 0 and max > items * ratio and max > cfg.sparse_safe then
      if not cfg.sparse_convert then fail(t, 'excessively sparse array') end
      return -1
    end
    return max
  end

  local buf, n
  local append
  append = function(v, depth)
    local tv = type(v)
    if tv == 'string' then
      n = n + 1 buf[n] = quote(v)
    elseif tv == 'number' then
      n = n + 1 buf[n] = number(v)
    elseif tv == 'boolean' then
      n = n + 1 buf[n] = v and 'true' or 'false'
    elseif tv == 'nil' or rawequal(v, null) then
      n = n + 1 buf[n] = 'null'
    elseif tv == 'table' then
      depth = depth + 1
      if depth > cfg.encode_max_depth then error(format('Cannot serialise, excessive nesting (%d)', depth), 0) end
      local len = array_length(v)
      if len > 0 then
        n = n + 1 buf[n] = '['
        for i = 1, len do
          if i > 1 then n = n + 1 buf[n] = ',' end
          append(rawget(v, i), depth)
        end
        n = n + 1 buf[n] = ']'
      else
        n = n + 1 buf[n] = '{'
        local first = true
        for k, x in next, v do
          local tk = type(k)
          local key
          if tk == 'string' then key = quote(k)
          elseif tk == 'number' then key = '"' .. number(k) .. '"'
          else fail(k, 'table key must be a number or string') end
          n = n + 1 buf[n] = first and key .. ':' or ',' .. key .. ':'
          first = false
          append(x, depth)
        end
        n = n + 1 buf[n] = '}'
      end
    else
      fail(v, 'type not supported')
    end
  end

  return function(...)
    if select('#', ...) ~= 1 then error("bad argument #1 to 'encode' (expected 1 argument)", 2) end
    buf, n = {}, 0
    append((...), 0)
    local s = concat(buf, '', 1, n)
    buf = nil
    return s
  end
end

return M
