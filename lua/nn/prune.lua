-- nn.utils.prune: PyTorch's torch.nn.utils.prune. Pruning `name` of a module keeps the original
-- tensor as module[name .. '_orig'] (the parameter that trains), a 0/1 mask as the buffer
-- module[name .. '_mask'], and module[name] = orig * mask, recomputed before each forward
-- (Note [Reparametrized modules], nn/parametrize_core.lua): gradients reach orig at the unpruned
-- entries only. Pruning again combines masks as PyTorch's PruningContainer (Note [Pruning amounts]
-- in nn/prune_methods.lua for amounts).
--
-- Note [Pruning names]: the fields and state-dict keys are PyTorch's 'weight_orig' and
-- 'weight_mask', as nn.SpectralNorm names its 'weight_orig' / 'weight_u'; the gradient of
-- weight_orig is gradWeight_orig (Torch7's gradName rule, as nn.SpectralNorm), and the module's
-- gradWeight stays the same tensor, so Torch7 code reading m.gradWeight sees the masked gradient.
local lib = require 'torch.lib'
local core = require 'nn.parametrize_core'
local methods = require 'nn.prune_methods'
local fail = lib.fail
local Module = nn.Module
nn.utils = nn.utils or {}
local prune = {}
nn.utils.prune = prune

local function orig_name(e) return e.name .. '_orig' end
local function mask_name(e) return e.name .. '_mask' end
local function grad_orig_name(e) return Module.gradName(e.name) .. '_orig' end

core.kinds.prune = {
  origs = function(m, e) return { { m[orig_name(e)], m[grad_orig_name(e)] } } end,
  compute = function(m, e, xs) return torch.cmul(xs[1], m[mask_name(e)]) end,
  vjp = function(m, e, G)
    torch.noGrad(function() m[grad_orig_name(e)]:add(torch.cmul(G, m[mask_name(e)])) end)
  end,
}

local function replace(list, old, new)
  for i, v in ipairs(list) do if v == old then list[i] = new return true end end
  return false
end
local function drop(list, name)
  for i, v in ipairs(list) do if v == name then table.remove(list, i) return end end
end

-- Prunes module[name] with method (a table from nn/prune_methods.lua).
-- Note [Default importance scores]: as PyTorch's apply (importance_scores = getattr(module, name)),
-- the scores default to the tensor as pruned so far, orig * mask, not to weight_orig: a structured
-- pruning after an earlier one ranks the channels by the norms of what is left of them. Before,
-- weight_orig's norms ranked them, so lnStructured along dim 2 after pruning rows along dim 1 kept
-- other channels than PyTorch's. (Unstructured methods only see unpruned entries: no difference.)
local function apply(op, module, name, method, importance)
  core.check(op, module, name)
  local e = core.entry(module, name)
  if e and e.kind ~= 'prune' then fail(op, "%s of %s is parametrized: it cannot be pruned too", name, torch.typename(module)) end
  local orig = e and module[orig_name(e)] or module[name]
  if importance ~= nil and not (torch.isTensor(importance) and importance:isSameSizeAs(orig)) then
    fail(op, 'importanceScores must be a tensor the size of %s', name)
  end
  -- masks are computed on the CPU in double (index ops with CPU indices), then take orig's type
  local default = e and module[mask_name(e)]:double() or torch.DoubleTensor(orig:size()):fill(1)
  local scores = importance or orig
  if importance == nil and e then scores = torch.noGrad(torch.cmul, orig, module[mask_name(e)]) end
  local mask = torch.noGrad(methods.combine, method, scores:detach():double(), default, e ~= nil)
  mask = mask:typeAs(orig)
  if e then
    torch.noGrad(function() module[mask_name(e)]:copy(mask) end)
    torch.noGrad(core.refresh, module)
    return module
  end
  e = { name = name, kind = 'prune' }
  local gname = Module.gradName(name)
  module[orig_name(e)] = orig
  module[grad_orig_name(e)] = torch.isTensor(module[gname]) and module[gname]:isSameSizeAs(orig) and module[gname]
    or orig.new(orig:size()):zero()
  module[gname] = module[grad_orig_name(e)]
  module[mask_name(e)] = mask
  module[name] = orig.new()
  replace(core.own_list(module, '_stateParams', { 'weight', 'bias' }), name, orig_name(e))
  local buffers = core.own_list(module, '_stateBuffers')
  buffers[#buffers + 1] = mask_name(e)
  core.add(module, e)
  return module
end

-- Note [Importance scores given positionally]: PyTorch's l1_unstructured(module, name, amount,
-- importance_scores) takes the scores as its fourth argument; a tensor there was silently ignored
-- (the options table was expected). A tensor is now taken as the scores and anything else but
-- nil or a plain table is an error. tensorOk is false for globalUnstructured (a list of scores).
local describe = require('torch.types').describe
local function opts(op, o, tensorOk)
  if o == nil then return {} end
  if tensorOk and torch.isTensor(o) then return { importanceScores = o } end
  if type(o) == 'table' and getmetatable(o) == nil then return o end
  fail(op, 'expected an options table {importanceScores=}%s, got %s', tensorOk and ' or a tensor of importance scores' or '',
    describe(o))
end

--- nn.utils.prune.identity(module, name): prunes nothing: module[name] becomes weight_orig times an
--- all-ones mask (PyTorch's prune.identity). Returns module.
--- Example: nn.utils.prune.identity(nn.Linear(3, 2), 'weight')
function prune.identity(module, name)
  return apply('nn.utils.prune.identity', module, name, methods.identity())
end

--- nn.utils.prune.randomUnstructured(module, name, amount): zeroes `amount` entries (a count, a
--- fraction in (0, 1), or {fraction=} / {count=}) drawn at random among the unpruned ones.
--- Example: nn.utils.prune.randomUnstructured(nn.Linear(3, 2), 'weight', 0.5)
function prune.randomUnstructured(module, name, amount)
  local op = 'nn.utils.prune.randomUnstructured'
  return apply(op, module, name, methods.randomUnstructured(op, amount))
end

--- nn.utils.prune.l1Unstructured(module, name, amount [, {importanceScores=} or scores]): zeroes the
--- `amount` unpruned entries of smallest absolute value (of importanceScores when given).
--- Example: nn.utils.prune.l1Unstructured(nn.Linear(3, 2), 'weight', 2)
function prune.l1Unstructured(module, name, amount, o)
  local op = 'nn.utils.prune.l1Unstructured'
  return apply(op, module, name, methods.l1Unstructured(op, amount), opts(op, o, true).importanceScores)
end

local function structured_dim(op, module, name, dim)
  core.check(op, module, name)
  if type(dim) ~= 'number' then fail(op, 'dim must be a number, got %s', type(dim)) end
  local e = core.entry(module, name)
  local t = e and e.kind == 'prune' and module[name .. '_orig'] or module[name]
  if torch.isTensor(t) and (dim == 0 or dim ~= math.floor(dim) or dim < -t:dim() or dim > t:dim()) then
    fail(op, 'dim must be between 1 and %d (or negative from the end), got %s', t:dim(), tostring(dim))
  end
  return dim
end

--- nn.utils.prune.randomStructured(module, name, amount, dim): zeroes `amount` whole channels
--- along dim (1-based), drawn at random among the unpruned channels.
--- Example: nn.utils.prune.randomStructured(nn.Linear(3, 4), 'weight', 2, 1)
function prune.randomStructured(module, name, amount, dim)
  local op = 'nn.utils.prune.randomStructured'
  return apply(op, module, name, methods.randomStructured(op, amount, structured_dim(op, module, name, dim)))
end

--- nn.utils.prune.lnStructured(module, name, amount, n, dim [, {importanceScores=} or scores]): zeroes the
--- `amount` unpruned channels along dim with the smallest n-norm (n a number, math.huge or 'fro').
--- Example: nn.utils.prune.lnStructured(nn.Linear(3, 4), 'weight', 0.5, 2, 1)
function prune.lnStructured(module, name, amount, n, dim, o)
  local op = 'nn.utils.prune.lnStructured'
  return apply(op, module, name, methods.lnStructured(op, amount, n, structured_dim(op, module, name, dim)),
    opts(op, o, true).importanceScores)
end

--- nn.utils.prune.customFromMask(module, name, mask): prunes where mask (module[name]'s size) is
--- zero, on top of any earlier mask.
--- Example: nn.utils.prune.customFromMask(nn.Linear(2, 1), 'weight', torch.Tensor({{1, 0}}))
function prune.customFromMask(module, name, mask)
  local op = 'nn.utils.prune.customFromMask'
  if not torch.isTensor(mask) then fail(op, 'mask must be a tensor, got %s', type(mask)) end
  return apply(op, module, name, methods.customFromMask(op, mask))
end

--- nn.utils.prune.L1Unstructured, nn.utils.prune.RandomUnstructured: the method names
--- globalUnstructured takes (PyTorch passes the classes).
prune.L1Unstructured, prune.RandomUnstructured = 'l1Unstructured', 'randomUnstructured'

--- nn.utils.prune.globalUnstructured(parameters, pruningMethod, amount [, {importanceScores=}]):
--- prunes `amount` entries over all the tensors of parameters ({{module, name}, ...}) at once,
--- ranked together by pruningMethod (prune.L1Unstructured or prune.RandomUnstructured, or the
--- functions l1Unstructured / randomUnstructured) on their current (pruned) values, or on
--- importanceScores[i] for the i-th pair; each tensor then gets its part of the mask.
--- Example: local a = nn.Linear(2, 2); nn.utils.prune.globalUnstructured({{a, 'weight'}}, nn.utils.prune.L1Unstructured, 1)
function prune.globalUnstructured(parameters, pruningMethod, amount, o)
  local op = 'nn.utils.prune.globalUnstructured'
  if type(parameters) ~= 'table' or #parameters == 0 then fail(op, 'parameters must be a non-empty table of {module, name} pairs') end
  local kind = pruningMethod
  if kind == prune.l1Unstructured then kind = 'l1Unstructured' elseif kind == prune.randomUnstructured then kind = 'randomUnstructured' end
  if kind ~= 'l1Unstructured' and kind ~= 'randomUnstructured' then
    fail(op, 'pruningMethod must be an unstructured method (prune.L1Unstructured or prune.RandomUnstructured), got %s', tostring(pruningMethod))
  end
  local scores_in = opts(op, o, false).importanceScores or {}
  local scores, masks = {}, {}
  for i, pair in ipairs(parameters) do
    if type(pair) ~= 'table' or #pair ~= 2 then fail(op, 'parameters[%d] must be a {module, name} pair', i) end
    local m, name = pair[1], pair[2]
    core.check(op, m, name)
    local e = core.entry(m, name)
    if e and e.kind ~= 'prune' then fail(op, '%s of %s is parametrized: it cannot be pruned too', name, torch.typename(m)) end
    local t = m[name]
    scores[i] = (scores_in[i] or t):detach():double():contiguous():view(-1)
    if scores[i]:nElement() ~= t:nElement() then fail(op, 'importanceScores[%d] must be the size of %s', i, name) end
    masks[i] = (e and m[name .. '_mask'] or t.new(t:size()):fill(1)):double():contiguous():view(-1)
  end
  local all, default = torch.cat(scores, 1), torch.cat(masks, 1)
  local final = torch.noGrad(methods.combine, methods[kind](op, amount), all, default, true)
  local at = 1
  for i, pair in ipairs(parameters) do
    local t = pair[1][pair[2]]
    local part = final:narrow(1, at, t:nElement()):contiguous():view(t:size()):typeAs(t)
    at = at + t:nElement()
    prune.customFromMask(pair[1], pair[2], part)
  end
end

--- nn.utils.prune.remove(module, name): makes the pruning permanent: module[name] becomes the
--- original tensor (the same parameter) holding orig * mask; weight_orig and weight_mask go.
--- Example: local m = nn.utils.prune.l1Unstructured(nn.Linear(3, 2), 'weight', 2); nn.utils.prune.remove(m, 'weight')
function prune.remove(module, name)
  local op = 'nn.utils.prune.remove'
  if not torch.isTypeOf(module, 'nn.Module') then fail(op, 'expected a module, got %s', type(module)) end
  local e = core.entry(module, name)
  if not e or e.kind ~= 'prune' then
    fail(op, "parameter '%s' of module %s has to be pruned before pruning can be removed", tostring(name), torch.typename(module))
  end
  local orig, mask = module[orig_name(e)], module[mask_name(e)]
  torch.noGrad(function() orig:cmul(mask) end)
  local gname = Module.gradName(name)
  module[name], module[gname] = orig, module[grad_orig_name(e)]
  module[orig_name(e)], module[mask_name(e)], module[grad_orig_name(e)] = nil, nil, nil
  replace(module._stateParams, orig_name(e), name)
  drop(module._stateBuffers, mask_name(e))
  core.remove(module, name)
  nn.utils.linkGradients(module)
  return module
end

--- nn.utils.prune.isPruned(module): whether module or a module inside it has a pruned tensor.
--- Example: print(nn.utils.prune.isPruned(nn.Linear(2, 2)))
function prune.isPruned(module)
  if not torch.isTypeOf(module, 'nn.Module') then fail('nn.utils.prune.isPruned', 'expected a module, got %s', type(module)) end
  local found = false
  module:apply(function(m)
    for _, e in ipairs(rawget(m, '_reparams') or {}) do found = found or e.kind == 'prune' end
  end)
  return found
end

return prune
