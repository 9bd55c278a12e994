-- The walks over a module tree (lua/nn/Module.lua installs them): m:apply, m:replace,
-- m:findModules and m:listModules, through self.modules and the modules held in fields
-- (lua/nn/field_children.lua).
return function(Module)
-- nn.field_children is attached after nn.Module loads (Module._attach_utils): looked up per call
local function fields() return package.loaded['nn.field_children'] or require('nn.field_children') end

--- m:apply(fn): calls fn(module) on m and every module inside it (its modules and the modules
--- held in its fields).
function Module:apply(fn)
  fn(self)
  if self.modules then for _, m in ipairs(self.modules) do m:apply(fn) end end
  for _, e in ipairs(fields().fields(self)) do e[2]:apply(fn) end
end

--- m:replace(fn): replaces every module by fn(module) (which may return it unchanged).
function Module:replace(fn)
  local out = fn(self)
  if self.modules then
    for i, m in ipairs(self.modules) do self.modules[i] = m:replace(fn) end
  end
  for _, e in ipairs(fields().fields(self)) do
    local key = e[1]
    if self._listChildren and key:match('^%d+$') then key = tonumber(key) + 1 end
    self[key] = e[2]:replace(fn)
  end
  return out
end

--- m:findModules(typename): the modules of that class inside m, and their containers.
function Module:findModules(typename, container)
  local nodes, containers = {}, {}
  if torch.typename(self) == typename then
    nodes[1] = self
    containers[1] = container
  end
  local kids = {}
  for _, child in ipairs(self.modules or {}) do kids[#kids + 1] = child end
  for _, e in ipairs(fields().fields(self)) do kids[#kids + 1] = e[2] end
  for _, child in ipairs(kids) do
    local n, c = child:findModules(typename, self)
    for i = 1, #n do
      nodes[#nodes + 1] = n[i]
      containers[#containers + 1] = c[i]
    end
  end
  return nodes, containers
end

--- m:listModules(): m and every module inside it, depth first.
function Module:listModules()
  local list = { self }
  local function add(child)
    for _, m in ipairs(child:listModules()) do list[#list + 1] = m end
  end
  if self.modules then for _, child in ipairs(self.modules) do add(child) end end
  for _, e in ipairs(fields().fields(self)) do add(e[2]) end
  return list
end

end
