-- State snapshots for a module applied at several nodes of one nn.gModule (Note [A module
-- applied twice in a graph]).
--
-- Note [A module applied twice in a graph]: Torch7's nngraph lets one module instance appear at
-- several nodes (y = m(m(x)), a shared encoder applied to two inputs). A Torch7-style module
-- computes into buffers it owns (output, gradInput, pooling indices, dropout noise) and its
-- backward reads them, so the later application overwrote what the earlier one's backward needs:
-- Torch7 gave silently wrong gradients for nn.Tanh, nn.Sigmoid, max pooling... (nn.Linear
-- happened to be right). gModule now snapshots the module (and the modules inside it) before
-- each further application in a forward: the output object stays with the earlier node's
-- consumers, the module gets a fresh one, the other tensor buffers are copied (parameters,
-- their gradients and tensors sharing their memory excepted: gradients accumulate in place),
-- and the earlier node's backward runs with its snapshot swapped in. Autograd's own entries
-- (nn/module_reuse.lua, for loss:backward()) are protected first, so both paths stay right.
-- A gModule inside keeps its nodes' inputs and gradients per application too. Only modules used
-- more than once pay for this; plain-table buffers other than output and gradInput are not copied.
local reuse = require 'nn.module_reuse'
local M = {}

local function fresh_like(v)
  if torch.isTensor(v) then return v.new() end
  return {}
end

local function storage_key(t)
  if t:nElement() == 0 then return nil end
  local s = t:storage()
  return s and torch.pointer(s) or nil
end

local function param_storages(m)
  local keys = {}
  local ok, params, grads = pcall(m.parameters, m)
  if ok then
    for _, list in ipairs({ params or {}, grads or {} }) do
      for _, t in ipairs(list) do
        if torch.isTensor(t) then
          local k = storage_key(t)
          if k then keys[k] = true end
        end
      end
    end
  end
  return keys
end

local kept = { weight = true, bias = true, gradWeight = true, gradBias = true, modules = true }

local function take_one(m)
  local shared, snap = param_storages(m), {}
  for k, v in pairs(m) do
    if type(k) == 'string' and not kept[k] then
      if k == 'output' then snap.output = v
      elseif k == 'gradInput' then snap.gradInput = fresh_like(v)
      elseif torch.isTensor(v) then
        local key = storage_key(v)
        if not (key and shared[key]) then snap[k] = v:clone() end
      end
    end
  end
  return snap
end

--- reuse.take(module): a snapshot of module's state (and of the modules inside it); the module
--- gets fresh output buffers for its next application.
function M.take(module)
  local mods = module:listModules()
  return torch.noGrad(function()
    local snaps = {}
    for i, m in ipairs(mods) do
      -- a gModule inside also keeps its nodes' inputs and gradients per application
      snaps[i] = { module = m, state = take_one(m), graph = m._takeGraphState and m:_takeGraphState() or nil }
    end
    -- autograd's pending entries keep their own copies (nn/module_reuse.lua)
    for _, m in ipairs(mods) do if reuse.has_pending(m) then reuse.protect(m) end end
    for _, s in ipairs(snaps) do
      local out = s.state.output
      if out ~= nil and rawequal(s.module.output, out) then s.module.output = fresh_like(out) end
    end
    return snaps
  end)
end

local function swap(snaps)
  for _, s in ipairs(snaps) do
    local m, st = s.module, s.state
    for k, v in pairs(st) do st[k], m[k] = m[k], v end
    if s.graph then s.graph = m:_swapGraphState(s.graph) end
  end
end

--- reuse.with(snaps, fn, ...): runs fn(...) with the snapshot in place, then puts the live state
--- back (what fn left, its gradInput, stays with the snapshot).
function M.with(snaps, fn, ...)
  if not snaps then return fn(...) end
  swap(snaps)
  local res = { pcall(fn, ...) }
  swap(snaps)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

return M
