-- What lua/tds's classes share: class set-up (torch.class without operator forwarders, with a
-- constructor that fills the new object), torch/tds's printing, and reading a saved entry count.
local torch = require 'torch'

local U = {}

-- U.class(name, init): a class `name` ('tds.Hash'...) with its metatable's operator forwarders removed
-- (two tds objects compare by identity) and a constructor calling init(newObject, ...); returns
-- the metatable and the constructor.
function U.class(name, init)
  local mt = torch.getmetatable(name) or torch.class(name, {})
  for _, op in ipairs({ 'eq', 'lt', 'le', 'concat', 'add', 'sub', 'mul', 'div', 'mod', 'pow', 'unm', 'call' }) do
    mt['__' .. op] = nil
  end
  mt.__version = 0  -- torch/tds writes version 0 ("V 0" in .t7 files)
  local ctor = setmetatable({}, {
    __index = mt,
    __call = function(_, ...) return init(setmetatable({}, mt), ...) end,
    __tostring = function() return name end,
  })
  torch._register_metatable(name, mt, ctor)
  return mt, ctor
end

-- torch/tds's printing: "tds.Hash[n]{", one "key : value" line per entry (multi-line values
-- indented), at most 20 entries then "...", and "}". An object met again while it is being printed
-- (h.self = h) shows as its type, where torch/tds recursed without end.
local printing = setmetatable({}, { __mode = 'k' })
function U.format(obj, header, entries)
  local out = { header }
  printing[obj] = true
  local ok, err = pcall(function()
    for i, e in ipairs(entries) do
      if i > 20 then out[#out + 1] = '...' break end
      local pad = string.rep(' ', #e[1])
      local first = true
      local v = e[2]
      local text = printing[v] and torch.type(v) .. ' (a cycle)' or tostring(v)
      out[#out + 1] = text:gsub('([^\n]+)', function(line)
        if first then first = false return e[1] .. line end
        return pad .. line
      end)
    end
  end)
  printing[obj] = nil
  if not ok then error(err, 0) end
  out[#out + 1] = '}'
  return table.concat(out, '\n')
end

-- Reads the entry count a write method stored; a corrupt file fails here, not in a long loop.
function U.read_count(file, what)
  local n = file:readLong()
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) then
    error(string.format('[%s] the file holds %s entries: it is corrupt', what, tostring(n)), 0)
  end
  return n
end

return U
