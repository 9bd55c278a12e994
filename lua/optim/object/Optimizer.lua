-- optim.Optimizer: the base of the PyTorch-style optimizer objects (optim.SGD, optim.Adam...):
-- parameter groups with their own options, step(closure), zeroGrad, and checkpoints through
-- state()/loadState(). Subclasses give their option kinds and defaults and one _update.
local lib = require 'torch.lib'
local cfg = require 'optim.config'
local fused = require 'optim.fused'

local Optimizer = torch.class('optim.Optimizer')

local function is_float_tensor(t)
  -- dtypes 0-3 are f32, f64, f16 and bf16 on any device (the name torch.CudaTensor says no 'Float')
  return torch.isTensor(t) and t.p.dtype <= 3
end

-- The parameter groups of params: a module, a tensor, a list of tensors, or a list of groups
-- ({params = ..., option = value...}).
-- A module's parameters are linked to their gradients first (p.grad = gradWeight...): a user
-- module written Torch7's way sets weight/gradWeight without nn.utils.linkGradients, and step()
-- would otherwise skip its parameters, which have no .grad.
local function groups_of(owner, params)
  if type(params) == 'table' and type(params.parameters) == 'function' then
    if rawget(_G, 'nn') and nn.utils and nn.utils.linkGradients then nn.utils.linkGradients(params) end
    -- a tensor listed twice (a weight tied between two modules: a decoder holding the embedding's
    -- weight) is one parameter, as PyTorch's model.parameters() gives it: twice, it was stepped twice
    local list, seen = {}, {}
    for _, p in ipairs(params:parameters() or {}) do
      if not seen[p] then seen[p] = true list[#list + 1] = p end
    end
    params = list
  end
  if torch.isTensor(params) then params = { params } end
  if type(params) ~= 'table' then lib.fail(owner, 'params must be a module, a tensor, a list of tensors or a list of groups, got %s', type(params)) end
  if #params == 0 then lib.fail(owner, 'got an empty parameter list') end
  if torch.isTensor(params[1]) then return { { params = params } } end
  return params
end

--- Optimizer.__init(self, name, params, options, kinds, defaults): shared constructor of the
--- subclasses: name ('SGD'), the option kinds (see optim/config.lua) and their defaults.
function Optimizer:__init(name, params, options, kinds, defaults)
  -- optim.Optimizer is abstract: called directly, name was the user's params table
  if type(name) ~= 'string' or type(defaults) ~= 'table' then
    lib.fail('optim.Optimizer', 'is the base class of the optimizers (optim.SGD, optim.Adam...), not one itself; got %s',
      torch.typename(name) or type(name))
  end
  self._name = 'optim.' .. name
  self._kinds = kinds
  options = options or {}
  if type(options) ~= 'table' then lib.fail(self._name, 'options must be a table, got %s', type(options)) end
  self:_checkOptions(options)
  self.defaults = {}
  for k, v in pairs(defaults) do self.defaults[k] = v end
  for k, v in pairs(options) do self.defaults[k] = v end
  self.paramGroups = {}
  self._state = {}  -- param tensor -> its state table
  for _, group in ipairs(groups_of(self._name, params)) do self:addParamGroup(group) end
end

-- Unknown options name the closest known one (PyTorch's name when given Torch7's).
local torch7_names = { learningRate = 'lr', learningRateDecay = 'lrDecay', epsilon = 'eps', beta1 = 'betas',
                       beta2 = 'betas', weight_decay = 'weightDecay' }
function Optimizer:_checkOptions(options)
  for k, v in pairs(options) do
    local kind = self._kinds[k]
    if k ~= 'params' then
      if not kind then
        local hint = type(k) == 'string' and (torch7_names[k] and self._kinds[torch7_names[k]] and torch7_names[k]
                                              or cfg.closest(k, self._kinds))
        lib.fail(self._name, 'unknown option %s%s', type(k) == 'string' and "'" .. k .. "'" or tostring(k),
                 hint and " (did you mean '" .. hint .. "'?)" or '')
      end
      cfg.validate(self._name, k, kind, v)
    end
  end
  self:_checkCombination(options)
end

--- Subclasses refuse option combinations here (e.g. SGD's Nesterov without momentum).
function Optimizer:_checkCombination(group) end

--- opt:addParamGroup(group): adds {params = tensors, option = value...}; missing options take the
--- optimizer's defaults.
function Optimizer:addParamGroup(group)
  if type(group) ~= 'table' then lib.fail(self._name, 'a parameter group must be a table, got %s', type(group)) end
  local params = group.params
  if torch.isTensor(params) then params = { params } end
  if type(params) ~= 'table' or #params == 0 then lib.fail(self._name, 'a parameter group needs a non-empty params list') end
  local g = { params = {} }
  for k, v in pairs(group) do if k ~= 'params' then g[k] = v end end
  self:_checkOptions(g)
  for k, v in pairs(self.defaults) do if g[k] == nil then g[k] = v end end
  self:_checkCombination(g)
  for i, p in ipairs(params) do
    if not is_float_tensor(p) then
      lib.fail(self._name, 'parameter %d must be a floating-point tensor, got %s', i, torch.typename(p) or type(p))
    end
    for _, other in ipairs(self.paramGroups) do
      for _, q in ipairs(other.params) do
        if rawequal(q, p) then lib.fail(self._name, 'parameter %d appears in more than one parameter group', i) end
      end
    end
    -- twice in one group it was stepped twice per step() (PyTorch 1.13 only warns about it)
    for j = 1, i - 1 do
      if rawequal(g.params[j], p) then lib.fail(self._name, 'parameter %d is parameter %d again in the same group', i, j) end
    end
    g.params[i] = p
  end
  self.paramGroups[#self.paramGroups + 1] = g
end

--- opt:step([closure]): one update of every parameter that has a .grad; closure (optional)
--- re-evaluates the model (zeroGrad, forward, backward) and returns the loss, which step returns.
function Optimizer:step(closure)
  local loss
  if closure ~= nil then
    if type(closure) ~= 'function' then lib.fail(self._name, 'step(closure): closure must be a function, got %s', type(closure)) end
    loss = torch.enableGrad(closure)
  end
  fused.batch(self._updateAll, self)  -- one launch for many CUDA parameters
  return loss
end

local function sparse_optim() return require 'torch.sparse_grad_optim' end
Optimizer._sparseOptim = sparse_optim

-- Runs inside fused.batch (Note [Multi-tensor optimizer steps]): a subclass's _update(p, g, s,
-- group) may create state and call optim.fused updates; any other op on p, g or the state must
-- come before its fused call, since the fused CUDA updates launch when the batch ends.
function Optimizer:_updateAll()
  for _, group in ipairs(self.paramGroups) do
    self:_checkOptions(group)  -- schedules and users may have changed the options
    for _, p in ipairs(group.params) do
      local g = p.grad
      if g then
        local s = self._state[p]
        if not s then s = {} self._state[p] = s end
        if torch.isSparse(g) then
          -- Note [Sparse embedding gradients] (nn/LookupTable.lua): only optimizers with an
          -- _updateSparse take one; the row updates are plain ops, after the queued fused ones
          if not self._updateSparse then sparse_optim().refuse(self._name) end
          fused.flush()
          torch.noGrad(self._updateSparse, self, p, g, s, group)
        else
          self:_update(p, g, s, group)
        end
      end
    end
  end
end

--- opt:zeroGrad([setToNone]): zeroes every parameter's .grad in place (nn's gradWeight tensors
--- are those .grad tensors), or drops them when setToNone is true.
function Optimizer:zeroGrad(setToNone)
  for _, group in ipairs(self.paramGroups) do
    for _, p in ipairs(group.params) do
      local g = p.grad
      if g then
        if setToNone then p.grad = nil else g:zero() end
      end
    end
  end
end

-- Checkpoints: parameters are numbered in group order, as PyTorch's state_dict does.
local function copy_value(v)
  if torch.isTensor(v) then return v:clone() end
  if type(v) == 'table' then
    local r = {}
    for k, x in pairs(v) do r[k] = copy_value(x) end
    return r
  end
  return v
end

--- opt:state(): a snapshot {type, paramGroups = {options and params = {indices}}, state = {[index]
--- = {...}}} with cloned tensors, for torch.save; loadState restores it.
function Optimizer:state()
  local groups, state, k = {}, {}, 0
  for gi, group in ipairs(self.paramGroups) do
    local g = { params = {} }
    for key, v in pairs(group) do if key ~= 'params' then g[key] = copy_value(v) end end
    for _, p in ipairs(group.params) do
      k = k + 1
      g.params[#g.params + 1] = k
      if self._state[p] then state[k] = copy_value(self._state[p]) end
    end
    groups[gi] = g
  end
  return { type = self._name, paramGroups = groups, state = state }
end

-- Checks a snapshot's type and groups, restores the groups' options, and returns the
-- parameters by index.
function Optimizer:_loadGroups(s)
  if type(s) ~= 'table' or type(s.paramGroups) ~= 'table' or type(s.state) ~= 'table' then
    lib.fail(self._name, 'loadState expects a table from state(), got %s', type(s))
  end
  if s.type ~= self._name then lib.fail(self._name, 'loadState got the state of %s', tostring(s.type)) end
  if #s.paramGroups ~= #self.paramGroups then
    lib.fail(self._name, 'loadState got %d parameter groups, this optimizer has %d', #s.paramGroups, #self.paramGroups)
  end
  local by_index, k = {}, 0
  for gi, group in ipairs(self.paramGroups) do
    local saved = s.paramGroups[gi]
    if type(saved.params) ~= 'table' or #saved.params ~= #group.params then
      lib.fail(self._name, 'loadState: group %d has %d parameters, the saved one %s', gi, #group.params,
               tostring(type(saved.params) == 'table' and #saved.params or 'none'))
    end
    local options = {}
    for key, v in pairs(saved) do if key ~= 'params' then options[key] = copy_value(v) end end
    self:_checkOptions(options)
    for _, p in ipairs(group.params) do k = k + 1 by_index[k] = p end
    for key, v in pairs(options) do group[key] = v end
  end
  return by_index
end
Optimizer._copyValue = copy_value

--- opt:loadState(s): restores a snapshot from state() taken from an optimizer of the same type
--- over parameters of the same sizes; training then continues exactly as it would have.
function Optimizer:loadState(s)
  local by_index = self:_loadGroups(s)
  local new_state = {}
  for index, st in pairs(s.state) do
    local p = by_index[index]
    if not p then lib.fail(self._name, 'loadState: state for parameter %s, which does not exist', tostring(index)) end
    local r = {}
    for key, v in pairs(st) do
      if torch.isTensor(v) and not is_float_tensor(v) then
        r[key] = v:clone():to(p:device())  -- integer state (the rows of a sparse momentum buffer)
      elseif torch.isTensor(v) then
        if v:nElement() ~= p:nElement() then
          lib.fail(self._name, 'loadState: %s of parameter %d has %d elements, the parameter %d', key, index,
                   v:nElement(), p:nElement())
        end
        r[key] = fused.buffer(p):copy(v)
      else
        r[key] = copy_value(v)
      end
    end
    new_state[p] = r
  end
  self._state = new_state
end

--- opt:__tostring__(): the optimizer's name and its groups' options.
function Optimizer:__tostring__()
  local lines = { self._name .. ' (' }
  for gi, group in ipairs(self.paramGroups) do
    local keys = {}
    for k in pairs(group) do if k ~= 'params' then keys[#keys + 1] = k end end
    table.sort(keys)
    local parts = {}
    for _, k in ipairs(keys) do
      local v = group[k]
      if type(v) == 'table' then v = '{' .. table.concat(v, ', ') .. '}' end
      parts[#parts + 1] = k .. ' = ' .. tostring(v)
    end
    lines[#lines + 1] = string.format('  group %d (%d tensors): %s', gi, #group.params, table.concat(parts, ', '))
  end
  lines[#lines + 1] = ')'
  return table.concat(lines, '\n')
end
