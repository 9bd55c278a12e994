-- A Torch7-style module run again before the backward of its recorded forward (used by
-- lua/nn/Module.lua's forward, forward_as_node and coarse_backward).
--
-- Note [A module used again before its backward]: a Torch7-style module computes into buffers it
-- owns (self.output, pooling indices, dropout noise, batch-norm statistics) and its backward reads
-- them. PyTorch code reuses one module instance within one graph (self.relu applied twice, a
-- shared Linear in a siamese net, one cell over time steps), and each forward overwrote the
-- buffers the earlier forward's coarse node would read: the earlier output changed under the
-- caller (a = act(x1); b = act(x2) left a == b), and the gradients of ReLU, Sigmoid, Tanh, ELU,
-- GELU, the soft-maxes, max pooling, batch and layer norm came out silently wrong. Now a forward
-- that finds an earlier recorded forward of the same module whose backward has not run (its
-- coarse node is "pending") first hands that node a snapshot of the module's state: the output
-- and gradInput objects themselves (the module gets fresh ones, so the earlier output keeps its
-- values) and copies of the other tensor fields (indices, noise, statistics: small). The node's
-- backward runs with the snapshot put in place, then the live state is put back. Parameters,
-- their gradients, tensors sharing their memory and the _stateBuffers (running statistics, meant
-- to be updated by every forward) are never in a snapshot.
-- A node stops being pending when its backward runs (autograd, or Torch7's m:backward for the
-- module), so a training loop (forward, backward, forward...) takes no snapshot and keeps reusing
-- its buffers as Torch7 does. Forwards with no backward between them (evaluation with gradients
-- on, or reuse within one graph) give the module a fresh output per call, as PyTorch allocates.
-- Not covered: a graph kept with retainGraph whose module ran forward again before the second
-- backward, and buffers held in nested tables.
local M = {}

-- module -> the entry of its latest recorded forward whose backward has not run. Weak both ways:
-- the entry refers to its module, and only the node (from C++) may keep an entry alive.
local pending_of = setmetatable({}, { __mode = 'kv' })

function M.record(module, entry) pending_of[module] = entry end

-- Whether a forward of module must first protect a pending entry.
function M.has_pending(module) return pending_of[module] ~= nil end

-- A key identifying the memory a tensor views (its storage's first byte).
local ffi = require 'ffi'
local C = require('torch.lib').C
local function storage_key(t)
  if t:nElement() == 0 then return nil end
  return tostring(ffi.cast('intptr_t', C.tocha_tensor_data(t.p)) - t.p.storage_offset * t.p.elsize)
end

-- The fields a snapshot leaves alone: parameters, their gradients, registered tensors and their
-- gradients, state buffers, and any tensor sharing memory with a parameter or a gradient.
local function kept_fields(module)
  local keep = { weight = true, bias = true, gradWeight = true, gradBias = true }
  for _, n in ipairs(module._registeredParams or {}) do
    keep[n], keep[nn.Module.gradName(n)] = true, true
  end
  for _, n in ipairs(module._stateBuffers or {}) do
    if type(n) == 'string' then keep[n] = true end
  end
  local shared = {}
  local ok, params, grads = pcall(module.parameters, module)
  if ok then
    for _, list in ipairs({ params or {}, grads or {} }) do
      for _, t in ipairs(list) do
        if torch.isTensor(t) then
          local k = storage_key(t)
          if k then shared[k] = true end
        end
      end
    end
  end
  return keep, shared
end

local function fresh_like(v)
  if torch.isTensor(v) then return v.new() end
  return {}
end

-- The values of v without v itself: an alias of its memory with no autograd history (the earlier
-- output carries the node, which holds this entry: keeping the output object in the entry was the
-- cycle Note [Coarse nodes hold no outputs] removed), or a table of such aliases.
local function alias(v)
  if torch.isTensor(v) then return v.new(v) end
  local t = {}
  for i, x in pairs(v) do t[i] = torch.isTensor(x) and x.new(x) or x end
  return t
end

-- Gives the pending entry of module a snapshot of the module's current state (see the Note).
function M.protect(module)
  local entry = pending_of[module]
  pending_of[module] = nil
  if not entry or entry.snapshot then return end
  local keep, shared = kept_fields(module)
  -- a buffer the output views (nn.LookupTable's rows) moves with it: the earlier output keeps its values
  local out = module.output
  local out_key = torch.isTensor(out) and storage_key(out)
  local snap = {}
  torch.noGrad(function()
    for k, v in pairs(module) do
      if type(k) == 'string' and not keep[k] then
        local plain = torch.isTensor(v) or (type(v) == 'table' and getmetatable(v) == nil)
        if k == 'output' and plain then
          snap[k] = alias(v)  -- the earlier output keeps its memory; the module computes into a new one
          module[k] = fresh_like(v)
        elseif k == 'gradInput' and plain then
          snap[k] = fresh_like(v)  -- the backward writes it: nothing to keep
        elseif torch.isTensor(v) then
          local key = storage_key(v)
          if key and key == out_key and not shared[key] then
            snap[k] = alias(v)
            module[k] = v.new()
          elseif not (key and shared[key]) then
            snap[k] = v:clone()
          end
        end
      end
    end
  end)
  entry.snapshot = snap
end

-- The backward of entry: runs body() with the entry's snapshot in place (when it has one).
function M.with_state(entry, body, ...)
  local module = entry.module
  if pending_of[module] == entry then pending_of[module] = nil end
  local snap = entry.snapshot
  if not snap then return body(...) end
  local live = {}
  for k, v in pairs(snap) do
    live[k] = module[k]
    module[k] = v
  end
  local res = { pcall(body, ...) }
  for k, v in pairs(live) do
    snap[k] = module[k]  -- what the backward left (its gradInput) stays the snapshot's
    module[k] = v
  end
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

-- Torch7's m:backward consumed the module's latest forward: nothing of it is pending any more.
function M.consumed(module) pending_of[module] = nil end

return M
