-- require 'json': the Torch7 package of that name (clementfarabet/lua---json, JSON4Lua wrapped for
-- torch-rocks), whose scripts call json.load(path), json.save(path, t), json.encode and
-- json.decode through the global `json` it set. Here it runs on lua/cjson's encoder and decoder.
local cjson = require('cjson').new()

-- Note [json on cjson]: JSON4Lua's own reader and writer had quirks this module does not copy: it
-- decoded null to nil (array entries vanished), wrote {} as [] and escaped only \ " \n \t. Here
-- null decodes to json.null (cjson.null), {} encodes as {}, strings are escaped as lua-cjson does,
-- and arrays with holes are written with nulls whatever their sparseness (JSON4Lua did so too).
cjson.encode_sparse_array(false, 0)

local json = { null = cjson.null }

--- json.encode(value): the JSON text of a Lua value (tables, strings, numbers, booleans, json.null).
--- Example: print(require('json').encode({1, 2, {a = 'b'}}))  -- [1,2,{"a":"b"}]
function json.encode(value) return cjson.encode(value) end

--- json.decode(text): the Lua value of JSON text; null becomes json.null.
--- Example: print(require('json').decode('{"a": [1, 2]}').a[2])  -- 2
function json.decode(text)
  if type(text) ~= 'string' then
    error(string.format('[json.decode] expected a string of JSON text, got %s', type(text)), 2)
  end
  return cjson.decode(text)
end

local function expand(path, op)
  if type(path) ~= 'string' then error(string.format('[%s] expected a path (string), got %s', op, type(path)), 3) end
  local home = os.getenv('HOME')
  if home then path = path:gsub('^~', home) end
  return path
end

--- json.load(path): the value the JSON file at path holds (~ is the home folder).
--- Example: local json = require 'json'; local p = os.tmpname(); json.save(p, {x = 1}); print(json.load(p).x); os.remove(p)
function json.load(path)
  path = expand(path, 'json.load')
  local f, err = io.open(path, 'r')
  if not f then error(string.format('[json.load] cannot open %s: %s', path, tostring(err)), 2) end
  local text = f:read('*a')
  f:close()
  local ok, v = pcall(cjson.decode, text)
  if not ok then error(string.format('[json.load] %s is not valid JSON: %s', path, v), 2) end
  return v
end

--- json.save(path, value): writes value as JSON to the file at path (~ is the home folder).
--- Example: local json = require 'json'; local p = os.tmpname(); json.save(p, {1, 2}); os.remove(p)
function json.save(path, value)
  path = expand(path, 'json.save')
  local text = cjson.encode(value)
  local f, err = io.open(path, 'w')
  if not f then error(string.format('[json.save] cannot open %s: %s', path, tostring(err)), 2) end
  f:write(text)
  f:close()
end

_G.json = json  -- the Torch7 package set its global, and scripts use it after require 'json'
return json
