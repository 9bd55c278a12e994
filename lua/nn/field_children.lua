-- The children of a module as PyTorch sees them: self.modules, the wrapped modules a class lists
-- in _stateChildren, and, for PyTorch-style classes, the nn.Module instances held in plain
-- fields (self.fc1 = nn.Linear(3, 4)). nn.Module's walks (parameters, training/evaluate, apply,
-- clearState, share, stateDict, namedModules...) all take their children from here.
--
-- Note [Submodules in fields]: PyTorch registers every nn.Module assigned to an attribute; Torch7
-- finds parameters only in weight/bias and children only in self.modules, so a PyTorch-style
-- class (fields fc1, fc2 and an updateOutput) trained nothing. A module's field children are its
-- fields with a string name not starting with '_' (nor output, gradInput, modules) whose value is
-- an nn.Module instance, in sorted name order (Lua tables keep no insertion order, so PyTorch's
-- registration order cannot be kept), and for nn.ModuleList its array part ('0', '1'...).
-- Criterions are not children (they have no parameters or modes; m:type() converts them anyway),
-- and neither are plain Lua tables of modules: as in PyTorch, a list needs nn.ModuleList.
-- Which modules get this, so that no existing class changes:
--  * not a class from lua/nn (Torch7's classes keep helper modules in fields with their own
--    rules: nn.SpatialContrastiveNormalization's normalizer, MultiHeadAttention's outProj...),
--    except classes that ask for it with _fieldChildren = true (nn.ModuleList, nn.ModuleDict);
--    nn.Module itself counts as a user class (nn.Module() with fields set by hand);
--  * and the class does not define parameters() itself (a Torch7-style user class collecting its
--    own parameters keeps doing so), and the module has no self.modules (a container) and no
--    _stateChildren (it names its children itself).
-- tests/lua/test_nn_field_children_survey.lua checks every buildable nn class against the walk
-- with this switched off (F.enabled = false), and lists the classes the exemption of lua/nn's
-- classes protects (F.exemptBuiltins = false).
local F = { enabled = true, exemptBuiltins = true }

local reserved = { output = true, gradInput = true, modules = true }
local EMPTY = setmetatable({}, { __newindex = function() error('nn.field_children: EMPTY is read-only', 2) end })

-- Whether class metatable mt (or a parent) is defined in lua/nn, cached per class.
local builtin_cache = setmetatable({}, { __mode = 'k' })
local function defined_in_nn(mt)
  local c = builtin_cache[mt]
  if c ~= nil then return c end
  local dir = '@' .. nn._dir .. '/'
  local found = false
  for _, v in pairs(mt) do
    if type(v) == 'function' then
      local src = debug.getinfo(v, 'S').source
      if src:sub(1, #dir) == dir then found = true break end
    end
  end
  builtin_cache[mt] = found
  return found
end

-- F.eligible(m): whether m's plain fields holding modules count as its children (Note
-- [Submodules in fields]).
function F.eligible(m)
  if not F.enabled or m.modules ~= nil or m._stateChildren ~= nil then return false end
  local Module = nn.Module
  if m.parameters ~= Module.parameters then return false end
  local mt = getmetatable(m)
  if mt == nil or m._fieldChildren then return true end
  if mt == torch.getmetatable('nn.Module') then return true end
  return not (F.exemptBuiltins and defined_in_nn(mt))
end

local function is_module(v)
  return type(v) == 'table' and not torch.isTensor(v) and torch.isTypeOf(v, 'nn.Module')
end
F.isModule = is_module

-- F.fields(m): the field children of m as a list of {name, module} (a shared empty list when
-- m has none or is not eligible).
function F.fields(m)
  if not F.eligible(m) then return EMPTY end
  local list
  for k, v in pairs(m) do
    if type(k) == 'string' and type(v) == 'table' and not rawequal(v, m) and not reserved[k] and k:byte(1) ~= 95
       and is_module(v) then
      list = list or {}
      list[#list + 1] = { k, v }
    end
  end
  if list then table.sort(list, function(a, b) return a[1] < b[1] end) end
  if m._listChildren then  -- nn.ModuleList: its array part, named from '0' like PyTorch's
    local items = {}
    for i, v in ipairs(m) do items[i] = { tostring(i - 1), v } end
    if list then for _, e in ipairs(list) do items[#items + 1] = e end end
    list = items
  end
  return list or EMPTY
end

-- F.named(m): every direct child of m with its state-dict name: self.modules ('0', '1'...), then
-- the _stateChildren by sorted name, then the field children (Note [State dict names]).
function F.named(m)
  local list = {}
  if m.modules then
    for i, c in ipairs(m.modules) do list[#list + 1] = { tostring(i - 1), c } end
  end
  local sc = m._stateChildren
  if sc then
    local keys = {}
    for name in pairs(sc) do keys[#keys + 1] = name end
    table.sort(keys)
    for _, name in ipairs(keys) do
      local c = m[sc[name]]
      if c ~= nil then list[#list + 1] = { name, c } end
    end
  end
  for _, e in ipairs(F.fields(m)) do list[#list + 1] = e end
  return list
end

return F
