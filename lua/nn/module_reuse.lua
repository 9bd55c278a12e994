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
-- their gradients and tensors sharing their memory are never in a snapshot; the _stateBuffers
-- (running statistics, meant to be updated by every forward) stay the module's, their copies put
-- in place only for the backward (Note [State buffers in a snapshot]).
-- A node stops being pending when its backward runs (autograd, or Torch7's m:backward for the
-- module), so a training loop (forward, backward, forward...) takes no snapshot and keeps reusing
-- its buffers as Torch7 does. Forwards with no backward between them (evaluation with gradients
-- on, or reuse within one graph) give the module a fresh output per call, as PyTorch allocates.
-- Not covered: a graph kept with retainGraph whose module ran forward again before the second
-- backward; boolean fields set by a forward; a child module of a coarse one that also ran
-- forward on its own, pending.
local M = {}

-- module -> the entry of its latest recorded forward whose backward has not run. Weak both ways:
-- the entry refers to its module, and only the node (from C++) may keep an entry alive.
local pending_of = setmetatable({}, { __mode = 'kv' })

-- Note [Torch7's backward lets go of the module]: a node's entry holds its module, the module its
-- output, the output the node: a cycle through C++. Autograd's backward drops the entry (autograd.lua);
-- m:backward does not run the node, so after it the node holds m weakly (autograd through it works
-- while m lives). A forward no backward ever reaches still keeps m (test_leak_regressions.lua).
local latest_entry = setmetatable({}, { __mode = 'kv' })  -- module -> entry of its latest recorded forward
local weak_module = setmetatable({}, { __mode = 'kv' })  -- entry -> module, once let go
local let_go_mt = { __index = function(e, k) if k == 'module' then return weak_module[e] end end }
function M.let_go(module)
  local entry = latest_entry[module]
  if not (entry and rawget(entry, 'module') == module and getmetatable(entry) == nil) then return end
  latest_entry[module], weak_module[entry], entry.module = nil, module, nil
  setmetatable(entry, let_go_mt)
end

-- Notes a module's latest recorded forward: pending until its backward, and let go by m:backward.
function M.record(module, entry)
  pending_of[module] = entry
  latest_entry[module] = entry
end

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
-- gradients, and any tensor sharing memory with a parameter or a gradient.
-- Note [State buffers in a snapshot]: the _stateBuffers (running statistics, a spectral norm's
-- power-iteration vectors) stay the module's: every forward updates them in place. The snapshot
-- holds copies put in place only while the earlier call's backward runs, as PyTorch saves what
-- the backward reads: nn.SpectralNorm's backward reads u and v, which the second forward had moved.
-- A child of a coarse module (top_shared given) keeps only its gradients and the tensors sharing
-- the top module's parameters: its other weights are derived per call (nn.SpectralNorm writes
-- weight_orig / sigma into its child's weight) and go into the snapshot.
local function kept_fields(module, top_shared)
  local keep = { gradWeight = true, gradBias = true }
  if not top_shared then keep.weight, keep.bias = true, true end
  for _, n in ipairs(module._registeredParams or {}) do
    if not top_shared then keep[n] = true end
    keep[nn.Module.gradName(n)] = true
  end
  if top_shared then return keep, top_shared end
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

local function is_module(v) return type(v) == 'table' and torch.isTypeOf(v, 'nn.Module') end

-- A snapshot of module's state (see the Note). Note [Snapshots reach nested modules]: a coarse
-- module that runs children with updateOutput (nn.WeightNorm, nn.SpectralNorm, DataParallelTable)
-- returns a child's output buffer and its backward reads the children's buffers: the children's
-- state is in the snapshot too (under snap[CHILDREN]), else the second forward overwrote the
-- earlier output and the earlier gradients came out silently wrong.
local CHILDREN = {}

-- A copy of a plain table holding tensors or numbers (DataParallelTable's input slices and their
-- bounds, a list of saved buffers), its tensors cloned unless they share a parameter's memory;
-- nil when it holds neither.
-- Note [Snapshots reach nested modules] too: before, the earlier call's backward read the later
-- call's slices (DataParallelTable's weight gradients were silently wrong).
local function copy_plain(v, shared, depth)
  if depth > 4 then return nil end
  local c, any = {}, false
  for i, x in pairs(v) do
    if torch.isTensor(x) then
      local key = storage_key(x)
      c[i] = (key and shared[key]) and x or x:clone()
      any = true
    elseif type(x) == 'table' and getmetatable(x) == nil then
      local sub = copy_plain(x, shared, depth + 1)
      if sub then any = true end
      c[i] = sub or x
    else
      c[i] = x
      if type(x) == 'number' then any = true end  -- DataParallelTable's slice bounds
    end
  end
  return any and c or nil
end
local take
local function take_children(v, seen, top_shared)
  local kids
  if is_module(v) then
    if not seen[v] then seen[v] = true; kids = take(v, seen, top_shared) end
  elseif type(v) == 'table' and getmetatable(v) == nil then
    for i, c in pairs(v) do
      if is_module(c) and not seen[c] then
        seen[c] = true
        kids = kids or {}
        kids[i] = take(c, seen, top_shared)
      end
    end
  end
  return kids
end
take = function(module, seen, top_shared)
  local keep, shared = kept_fields(module, top_shared)
  -- a buffer the output views (nn.LookupTable's rows) moves with it: the earlier output keeps its values
  local out = module.output
  local out_key = torch.isTensor(out) and storage_key(out)
  local snap, children = {}, {}
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
      elseif type(v) == 'number' then
        snap[k] = v  -- a count set by the forward (DataParallelTable's _used); flags stay live
      elseif type(v) == 'table' then
        local kids = take_children(v, seen, shared)
        if kids then children[k] = kids
        elseif getmetatable(v) == nil then
          local c = copy_plain(v, shared, 1)
          if c then snap[k] = c end
        end
      end
    end
  end
  if next(children) then snap[CHILDREN] = children end
  return snap
end

-- Gives the pending entry of module a snapshot of the module's current state (see the Note).
function M.protect(module)
  local entry = pending_of[module]
  pending_of[module] = nil
  if not entry or entry.snapshot then return end
  entry.snapshot = torch.noGrad(take, module, { [module] = true })
end

-- Puts snap in place in module; returns what it replaced (to give to swap again).
local function swap(module, snap)
  local live = {}
  for k, v in pairs(snap) do
    if k == CHILDREN then
      local lc = {}
      for f, kids in pairs(v) do
        local holder = module[f]
        if is_module(holder) then lc[f] = swap(holder, kids)
        elseif type(holder) == 'table' then
          lc[f] = {}
          for i, ks in pairs(kids) do if is_module(holder[i]) then lc[f][i] = swap(holder[i], ks) end end
        end
      end
      live[CHILDREN] = lc
    else
      live[k] = module[k]
      module[k] = v
    end
  end
  return live
end

-- The backward of entry: runs body() with the entry's snapshot in place (when it has one).
function M.with_state(entry, body, ...)
  local module = entry.module
  if pending_of[module] == entry then pending_of[module] = nil end
  local snap = entry.snapshot
  if not snap then return body(...) end
  local live = swap(module, snap)
  local res = { pcall(body, ...) }
  -- what the backward left (its gradInput) stays the snapshot's
  entry.snapshot = swap(module, live)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

-- Note [Table outputs of containers]: a container (nn.ConcatTable, nn.ParallelTable) fills the
-- same output table each call; a caller holding the table of an earlier recorded call saw its
-- elements replaced (a = ct(x1); b = ct(x2) left a[1] == b[1]). A table whose tensors carry a
-- graph is left to its holder and the container gets a new one; Torch7's loop (no graph, or
-- children computing in place) keeps its table.
local function carries_graph(t)
  for _, x in pairs(t) do
    if torch.isTensor(x) then
      if not x:isLeaf() then return true end
    elseif type(x) == 'table' and getmetatable(x) == nil and carries_graph(x) then return true end
  end
  return false
end
function M.fresh_table(module)
  local out = module.output
  if type(out) == 'table' and getmetatable(out) == nil and carries_graph(out) then
    module.output = {}
  end
end

-- Torch7's m:backward consumed the module's latest forward: nothing of it is pending any more.
function M.consumed(module) pending_of[module] = nil end

return M
