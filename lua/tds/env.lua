-- The tds module table, shared by lua/tds/*.lua (hash.lua and vec.lua each convert nested Lua
-- tables into the other's class through it), and tds.size.
local torch = require 'torch'

local tds = {}

-- Note [tds on Lua tables]: torch/tds kept its data outside the Lua heap (C containers behind FFI
-- handles) because LuaJIT without GC64 manages at most 1-2 GB of Lua objects. Tocha runs on a
-- LuaJIT built with GC64 (ffi.abi('gc64') is true, jit.arch x64; a 3 GB Lua heap was measured to
-- work), which has no such limit, so tds.Hash and tds.Vec here are torch.class objects whose
-- entries are the object's own table entries: h[k], v[i], pairs, ipairs and #v are plain Lua, and
-- torch.save writes them in every format, with torch/tds's record layout in .t7 files (Torch7's
-- tds files load). What a table cannot do is run a __len metamethod: LuaJIT honours __len and
-- __pairs on tables only when built with Lua 5.2 compatibility, and Tocha's is not (on cdata it
-- always does, which is how torch/tds had them). So #h on a tds.Hash is Lua's border of its
-- integer keys (right for keys 1..n, 0 for string keys), not its entry count: tds.size(h) counts.
-- A Vec is a Lua sequence: nil entries leave holes, after which #v follows Lua's border rule.

--- tds.size(obj): the number of entries of a tds.Hash (what torch/tds's #h gave) or tds.Vec.
--- Example: local tds = require 'tds'; print(tds.size(tds.Hash({a = 1, b = 2})))  -- 2
function tds.size(obj)
  local mt = getmetatable(obj)
  if mt == torch.getmetatable('tds.Vec') then return #obj end
  if mt ~= torch.getmetatable('tds.Hash') then
    error(string.format('[tds.size] expected a tds.Hash or tds.Vec, got %s', torch.type(obj)), 2)
  end
  local n = 0
  for _ in next, obj do n = n + 1 end
  return n
end

return tds
