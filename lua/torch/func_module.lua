-- torch.func.functionalCall and stackModuleState: a module run with parameters and buffers given
-- by name instead of its own (PyTorch's torch.func.functional_call), and the parameters of
-- several copies of a model stacked for vmap (model ensembling). Loaded by lua/torch/func.lua.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local Fn = torch.func
local is_tensor, describe, fail = types.is_tensor, types.describe, lib.fail
local options = Fn._options

local function is_tree(x) return type(x) == 'table' and not is_tensor(x) end

local function check_module(op, m)
  require 'nn'
  if not torch.isTypeOf(m, 'nn.Module') then fail(op, 'expected an nn.Module as argument 1, got %s', describe(m)) end
end

-- The module and field behind each state-dict name ('2.weight' -> (child 2, 'weight')).
local function locations(m)
  local named = require('nn.field_children').named
  local out = {}
  local function walk(mod, prefix)
    for _, n in ipairs(mod._stateParams or { 'weight', 'bias' }) do
      if is_tensor(mod[n]) then out[prefix .. n] = { mod, n } end
    end
    for _, n in ipairs(mod._stateBuffers or {}) do
      if is_tensor(mod[n]) then out[prefix .. n] = { mod, n } end
    end
    for _, c in ipairs(named(mod)) do walk(c[2], prefix .. c[1] .. '.') end
  end
  walk(m, '')
  return out
end

-- One name -> tensor table from a table or a list of tables (names unique across them).
local function merge_dicts(op, dicts)
  if not is_tree(dicts) then fail(op, 'parameters must be a table name = tensor or a list of such tables, got %s', describe(dicts)) end
  local list = (#dicts > 0 and is_tree(dicts[1])) and dicts or { dicts }
  local merged = {}
  for i, d in ipairs(list) do
    if not is_tree(d) then fail(op, 'parameter table %d must be a table name = tensor, got %s', i, describe(d)) end
    for k, v in pairs(d) do
      if type(k) ~= 'string' then fail(op, 'parameters must be keyed by names such as "0.weight", got key %s', describe(k)) end
      if not is_tensor(v) then fail(op, 'parameter %s must be a tensor, got %s', k, describe(v)) end
      if merged[k] then fail(op, 'parameter %s is given twice', k) end
      merged[k] = v
    end
  end
  return merged
end

--- torch.func.functionalCall(module, parameters, input[, {strict = false, tieWeights = true}]):
--- module:forward(input) with the tensors of parameters (a table name = tensor with state-dict
--- names such as '0.weight', or a list of such tables) in place of the module's own; the module
--- is left as it was. Gradients reach the given tensors. tieWeights: a tensor the module holds
--- under several names is replaced under all of them; strict: every parameter and buffer must
--- be given.
--- Example: local m = nn.Linear(2, 1); torch.func.functionalCall(m, {weight = torch.ones(1, 2), bias = torch.zeros(1)}, torch.Tensor({{1, 2}}))
function Fn.functionalCall(module, parameters, input, opts)
  local op = 'func.functionalCall'
  check_module(op, module)
  opts = options(op, opts, { 'strict', 'tieWeights' })
  local given = merge_dicts(op, parameters)
  local where = locations(module)
  local tie = opts.tieWeights ~= false
  -- names holding the same tensor object are tied
  local names_of = {}
  for name, loc in pairs(where) do
    local t = loc[1][loc[2]]
    names_of[t] = names_of[t] or {}
    table.insert(names_of[t], name)
  end
  local plan = {}  -- name -> tensor to install
  for name, v in pairs(given) do
    local loc = where[name]
    if not loc then
      local known = {}
      for n in pairs(where) do known[#known + 1] = n end
      table.sort(known)
      fail(op, 'the module has no parameter or buffer named %s (it has: %s)', name, table.concat(known, ', '))
    end
    local own = loc[1][loc[2]]
    if not v:isSameSizeAs(own) then fail(op, '%s must have the size of the module\'s, %s, got %s', name, describe(own), describe(v)) end
    for _, n in ipairs(tie and names_of[own] or { name }) do
      if plan[n] and plan[n] ~= v then
        fail(op, '%s and %s are one tied tensor in the module but were given different tensors', name, n)
      end
      plan[n] = v
    end
  end
  if opts.strict then
    local missing = {}
    for n in pairs(where) do if not plan[n] then missing[#missing + 1] = n end end
    table.sort(missing)
    if #missing > 0 then fail(op, 'strict: missing %s', table.concat(missing, ', ')) end
  end
  local saved, marks = {}, {}
  for name, v in pairs(plan) do
    local mod, field = where[name][1], where[name][2]
    saved[#saved + 1] = { mod, field, mod[field] }
    if marks[mod] == nil then marks[mod] = mod._substitutedParams or false end
    mod[field] = v  -- Note [Parameter gradients under torch.autograd.grad]: the node routes its gradient
    mod._substitutedParams = true
  end
  local ok, res = pcall(module.forward, module, input)
  for i = #saved, 1, -1 do
    local s = saved[i]
    s[1][s[2]] = s[3]
  end
  for mod, prev in pairs(marks) do mod._substitutedParams = prev or nil end
  if not ok then error(res, 0) end
  return res
end

--- torch.func.stackModuleState(models): the parameters and the buffers of a list of models of
--- one architecture, each as a table name = tensor stacked along a new first dim; the stacked
--- parameters are new leaves that require grad. With vmap and functionalCall they run the models
--- as one (model ensembling).
--- Example: local p, b = torch.func.stackModuleState({nn.Linear(2, 3), nn.Linear(2, 3)})
function Fn.stackModuleState(models)
  local op = 'func.stackModuleState'
  if not is_tree(models) or #models == 0 then fail(op, 'expected a non-empty list of modules, got %s', describe(models)) end
  for i, m in ipairs(models) do
    check_module(op, m)
    if torch.type(m) ~= torch.type(models[1]) then
      fail(op, 'the models must be of one class: model %d is %s, model 1 %s', i, torch.type(m), torch.type(models[1]))
    end
  end
  local function stack(kind, iter)
    local names, lists = {}, {}
    for i, m in ipairs(models) do
      local count = 0
      for name, t in iter(m) do
        count = count + 1
        if i == 1 then names[#names + 1] = name lists[name] = {} end
        if not lists[name] then fail(op, 'model %d has a %s %s that model 1 lacks', i, kind, name) end
        lists[name][i] = t:detach()
      end
      if count ~= #names then fail(op, 'model %d has %d %ss where model 1 has %d', i, count, kind, #names) end
    end
    local out = {}
    for _, name in ipairs(names) do
      local ok, s = pcall(torch.stack, lists[name], 1)
      if not ok then fail(op, 'the %ss %s of the models differ in size or type', kind, name) end
      out[name] = s
    end
    return out
  end
  local params = stack('parameter', function(m) return m:namedParameters() end)
  for _, p in pairs(params) do p:requiresGrad() end
  return params, stack('buffer', function(m) return m:namedBuffers() end)
end

return Fn
