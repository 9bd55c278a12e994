-- Module:stateDict() / loadStateDict(): a module's tensors as a flat table keyed by PyTorch-style
-- dotted names, so weights move between Tocha and PyTorch (through torch.saveSafetensors).
--
-- Note [State dict names]: a container's children are named by their 0-based position, as in
-- PyTorch's nn.Sequential ('0.weight', '2.1.bias'); parameter-free children keep their index,
-- so the same stack of layers gets the same names in both engines. A module's own entries are
-- its parameters (weight, bias, or the names its class lists in _stateParams) followed by its
-- buffers (_stateBuffers, e.g. running_mean); a module holding children outside self.modules
-- (a wrapper) lists them in _stateChildren as {name = field}; a PyTorch-style module's fields
-- holding modules are children under the field's name ('fc1.weight', Note [Submodules in
-- fields]), and nn.ModuleList's items are named '0', '1'... like a container's. PyTorch's batch norms also keep
-- num_batches_tracked, which only its momentum=None mode reads; loadStateDict skips such entries
-- where the model has none, so a PyTorch checkpoint loads strictly.
local Module = nn.Module

local function own_names(m)
  local names = {}
  for _, n in ipairs(m._stateParams or { 'weight', 'bias' }) do names[#names + 1] = n end
  for _, n in ipairs(m._stateBuffers or {}) do names[#names + 1] = n end
  return names
end

-- The direct children with their names (nn/field_children.lua: modules, _stateChildren, then
-- the modules held in fields, Note [Submodules in fields]).
local children = require('nn.field_children').named

local function collect(m, prefix, dest)
  for _, name in ipairs(own_names(m)) do
    local t = m[name]
    if torch.isTensor(t) then dest[prefix .. name] = t end
  end
  for _, c in ipairs(children(m)) do collect(c[2], prefix .. c[1] .. '.', dest) end
  return dest
end

--- m:stateDict([prefix]): a table name -> tensor of every parameter and buffer, with PyTorch's
--- dotted names ('0.weight', '3.running_mean'); the tensors are m's own (not copies).
function Module:stateDict(prefix)
  return collect(self, prefix or '', {})
end

local function describe_size(t) return table.concat(t:size():totable(), 'x') end

--- m:loadStateDict(tbl[, strict]): copies the tensors of tbl into m's parameters and buffers by
--- name (converting the type); strict (default true) refuses missing or unexpected names.
--- Returns the lists of missing and unexpected names.
function Module:loadStateDict(tbl, strict)
  if type(tbl) ~= 'table' then
    error('[nn.Module.loadStateDict] expected a table of tensors, got ' .. torch.type(tbl), torch._lib.user_level())
  end
  strict = strict ~= false
  local own = self:stateDict()
  local missing, unexpected = {}, {}
  for name in pairs(own) do if tbl[name] == nil then missing[#missing + 1] = name end end
  for name, v in pairs(tbl) do
    local skipped = own[name] == nil and type(name) == 'string' and name:match('num_batches_tracked$')
    if skipped then
      -- PyTorch's counter (Note [State dict names]): nothing to load it into
    elseif own[name] == nil then unexpected[#unexpected + 1] = tostring(name)
    elseif not torch.isTensor(v) then
      error(string.format('[nn.Module.loadStateDict] %s: expected a tensor, got %s', name, torch.type(v)), torch._lib.user_level())
    elseif not v:isSameSizeAs(own[name]) and not (v:nElement() == 1 and own[name]:nElement() == 1) then
      error(string.format('[nn.Module.loadStateDict] %s: size %s in the state dict, %s in the model', name,
        describe_size(v), describe_size(own[name])), torch._lib.user_level())
    end
  end
  table.sort(missing)
  table.sort(unexpected)
  if strict and (#missing > 0 or #unexpected > 0) then
    error(string.format('[nn.Module.loadStateDict] missing: {%s}; unexpected: {%s}', table.concat(missing, ', '),
      table.concat(unexpected, ', ')), torch._lib.user_level())
  end
  torch.noGrad(function()
    for name, v in pairs(tbl) do
      local dst = own[name]
      if dst then dst:copy(v:isSameSizeAs(dst) and v or v:reshape(dst:size())) end
    end
  end)
  return missing, unexpected
end

return Module
