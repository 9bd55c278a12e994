-- A Torch7-style module's coarse autograd node and its parameters (used by lua/nn/Module.lua's
-- forward_as_node and coarse_backward): which parameters are inputs of the node, the capture of
-- their gradients (Note [Parameters with a history], Note [Parameter gradients under
-- torch.autograd.grad]) and the refusal of second order where a backward builds no graph (Note
-- [Coarse nodes under createGraph]).
local lib = require 'torch.lib'
local M = {}

-- Note [Parameters with a history]: a parameter that requires grad but is not a leaf (m.weight =
-- torch.cmul(w, s), or the tensors torch.func.functionalCall puts in place) is an input of the
-- coarse node, and its gradient for this call goes back through the graph: accGradParameters
-- accumulates into a zeroed buffer put in place of its gradient field (the capture nn.WeightNorm
-- uses), so the tensors it was computed from get their gradients and gradWeight is left alone.
-- Before, accGradParameters filled gradWeight only and the graph above the parameter got nothing.
-- Leaf parameters keep accumulating into gradWeight, which is their .grad (linkGradients).
-- Such parameters, and those torch.func.functionalCall put in place (it marks the module with
-- _substitutedParams), are also captured at the forward and put back for the backward: by then
-- the caller may have restored the module's own (functionalCall does), and updateGradInput
-- must use the weight the forward used.
-- Note [Parameter gradients under torch.autograd.grad]: every parameter of a coarse node that
-- requires grad is an input of the node, so torch.autograd.grad(loss, {m.weight}) finds it.
-- Under loss:backward() a leaf parameter's gradient still goes straight into gradWeight (its
-- .grad, linkGradients) and the node returns none for it; a leaf whose .grad is not gradWeight
-- (put in place by torch.func.functionalCall) is captured. While torch.autograd.grad runs (outside
-- a replay, which accumulates its own way: Note [Replays reaching Torch7-style children]) every
-- parameter is captured like one with a history: the gradients go back through the graph and
-- gradWeight is left alone, since torch.autograd.grad must not touch any .grad. Before, it could
-- not differentiate with respect to a parameter and it accumulated into gradWeight.
-- Runs on every forward that records a coarse node: one small table when parameters need grad.
local function add_param(self, n, list)
  local p = self[n]
  if torch.isTensor(p) and p:needsGrad() then
    list = list or {}
    list[#list + 1] = { name = n, gradName = nn.Module.gradName(n), param = p, leaf = p:isLeaf() }
  end
  return list
end

-- Note [Gradients held in children]: the gradient fields of a module's parameters() that are not
-- its own weight/bias/registered ones are found among the tables reachable from it (nn.PartialLinear's
-- inner LookupTable, nn.DataParallelTable's first replica). One breadth-first pass (each table once,
-- at its smallest depth, at most `depth` tables down) finds every field holding one of the wanted
-- tensors: cost O(tables) per forward for all of them (a search per parameter was O(parameters x
-- tables): 29 ms of a 44 ms step for a DataParallelTable over 200 Linear layers). Every holder is
-- returned: a gradient held under two fields (two children sharing one gradWeight tensor, or a
-- list caching it) is swapped in all of them by acc_grad_capturing, so the capture cannot miss
-- the accumulation of the holder a first-found search would have skipped.
local function find_holders(t, wanted, depth)
  local found, seen, level = {}, { [t] = true }, { t }
  for d = 0, depth do
    local nxt = {}
    for _, tbl in ipairs(level) do
      for k, v in pairs(tbl) do
        if wanted[v] then
          local l = found[v]
          if not l then l = {} found[v] = l end
          l[#l + 1] = { tbl, k }
        elseif d < depth and type(v) == 'table' and not seen[v] and not torch.isTensor(v) then
          seen[v] = true
          nxt[#nxt + 1] = v
        end
      end
    end
    if #nxt == 0 then break end
    level = nxt
  end
  return found
end

-- The module's own parameters that require grad, and whether one of them has a history.
function M.node_params(self)
  local list
  if self.weight then list = add_param(self, 'weight', list) end
  if self.bias then list = add_param(self, 'bias', list) end
  local reg = self._registeredParams
  if reg then for _, n in ipairs(reg) do list = add_param(self, n, list) end end
  -- A class with its own parameters() may list tensors held under other names (nn.WeightedEuclidean's
  -- diagCov, nn.LinearWeightNorm's v and g): those are inputs too when the module holds their
  -- gradient (the tensor parameters() pairs them with) in a field, which is swapped: a field of its
  -- own, or of a module it holds (nn.PartialLinear's weight is its inner LookupTable's, whose
  -- gradWeight accGradParameters fills).
  if self.parameters ~= nn.Module.parameters then
    local params, grads = self:parameters()
    local wanted, order  -- Note [Gradients held in children]
    -- the own parameters' gradient fields too: one may be a child's (nn.WeightNorm's gradBias is
    -- its module's, which the module's accGradParameters fills)
    for _, h in ipairs(list or {}) do
      local g = self[h.gradName]
      if torch.isTensor(g) then wanted = wanted or {} wanted[g] = true end
    end
    for i, p in ipairs(params or {}) do
      local g = grads and grads[i]
      if torch.isTensor(g) and p:needsGrad() then
        local known = false
        for _, h in ipairs(list or {}) do if rawequal(h.param, p) then known = true end end
        if not known then
          wanted, order = wanted or {}, order or {}
          wanted[g] = true
          order[#order + 1] = { p, g }
        end
      end
    end
    local found = wanted and find_holders(self, wanted, 6) or {}
    for _, h in ipairs(list or {}) do
      local g = self[h.gradName]
      local holders = torch.isTensor(g) and found[g]
      if holders and #holders > 1 then h.holders = holders end
    end
    for _, pg in ipairs(order or {}) do
      local holders = found[pg[2]]
      if holders then
        local first = holders[1]
        list = list or {}
        list[#list + 1] = { gradName = first[2], holder = not rawequal(first[1], self) and first[1] or nil,
                            holders = #holders > 1 and holders or nil, param = pg[1], leaf = pg[1]:isLeaf() }
      end
    end
  end
  local hist = false
  for _, h in ipairs(list or {}) do if not h.leaf then hist = true end end
  return list, hist
end

-- Whether the leaf parameter's .grad is the module's gradient field (nn.utils.linkGradients), so
-- accGradParameters can accumulate into it directly. A leaf that torch.func.functionalCall put in
-- place is not: its gradient goes back through the graph to its own .grad.
function M.linked(module, h)
  local g, field = h.param.grad, (h.holder or module)[h.gradName]
  if g == nil or field == nil then return false end
  -- a sparse gradient (Note [Sparse embedding gradients]) has no .p: it is linked when it is the
  -- field itself (any two SparseTensors would compare nil == nil)
  if torch.isSparse(g) or torch.isSparse(field) then return rawequal(g, field) end
  return g.p == field.p
end

local function own_names(self)
  local names = { 'weight', 'bias' }
  for _, n in ipairs(self._registeredParams or {}) do names[#names + 1] = n end
  return names
end

-- accGradParameters with each parameter of the list accumulating into its own zeroed buffer.
-- untouched: the gradient fields of the module's other own parameters (one that needs no
-- gradient: m.bias:requiresGrad(false)) accumulate into scratch buffers that are dropped, as
-- torch.autograd.grad changes no gradient (before, gradBias filled under it).
function M.acc_grad_capturing(module, hist, input, gradOutput, scale, untouched)
  local saved, swapped = {}, {}
  for k, h in ipairs(hist) do
    h.grad = h.param.new(h.param:size()):zero()
    -- every field holding the gradient (Note [Gradients held in children]), restored in reverse
    local at = h.holders or { { h.holder or module, h.gradName } }
    saved[k] = {}
    for j, e in ipairs(at) do
      saved[k][j] = { e[1], e[2], e[1][e[2]] }
      e[1][e[2]] = h.grad
      if rawequal(e[1], module) then swapped[e[2]] = true end
    end
  end
  local others
  if untouched then
    for _, n in ipairs(own_names(module)) do
      local gn = nn.Module.gradName(n)
      local g = module[gn]
      if torch.isTensor(g) and not swapped[gn] then
        others = others or {}
        others[#others + 1] = { gn, g }
        module[gn] = g.new(g:size()):zero()
      end
    end
  end
  local ok, err = pcall(module.accGradParameters, module, input, gradOutput, scale)
  for k = #hist, 1, -1 do
    local sv = saved[k]
    for j = #sv, 1, -1 do sv[j][1][sv[j][2]] = sv[j][3] end
  end
  for _, o in ipairs(others or {}) do module[o[1]] = o[2] end
  if not ok then error(err, 0) end
end

-- The module's own parameter fields, as {name = tensor or false}.
function M.capture(self)
  local saved = {}
  for _, n in ipairs(own_names(self)) do saved[n] = self[n] or false end
  return saved
end

-- Puts the saved fields in place; returns the ones it replaced.
function M.install(self, saved)
  local current = {}
  for n, t in pairs(saved) do
    current[n] = self[n] or false
    self[n] = t or nil
  end
  return current
end

-- Note [Coarse nodes under createGraph]: a coarse node's backward runs with recording on under
-- createGraph=true; many Torch7 backwards (Linear, Tanh...) then build the graph of their gradients,
-- but others compute them in kernels autograd cannot follow (ReLU, the convolutions' parameter
-- gradients, Narrow...). A gradient is linear in gradOutput, so when gradOutput carries a graph
-- every gradient the node returns must too; one that does not would be a constant to the next
-- differentiation (a Hessian-vector product or torch.autograd.functional.jvp through nn.ReLU came
-- out silently wrong, jvp as zero). Such a gradient is returned through a node whose backward
-- raises, naming the module: as in PyTorch, createGraph itself works and only differentiating
-- that gradient again is an error (a penalty on the input gradient that never differentiates a
-- parameter gradient without a graph still runs).
function M.no_second_order(entry, flat, grads, n)
  local dep
  for i = 1, n do
    local g = grads[i]
    if torch.isTensor(g) and g:needsGrad() then dep = g break end
  end
  if not dep then return end
  local inputs = nn.Module._collect_tensors(entry.input, {})
  local name = torch.typename(entry.module) or 'nn.Module'
  for k, g in pairs(flat) do
    local wanted = (inputs[k] == nil or inputs[k]:needsGrad())  -- beyond the inputs: a parameter
    if wanted and torch.isTensor(g) and not g:needsGrad() then
      local what = inputs[k] ~= nil and 'the gradient of input ' .. k or 'a parameter gradient'
      local out = g.new(g)
      torch.autograd._record_lua_node({ label = name .. ' (gradient)', backward = function()
        lib.fail(name, 'differentiating twice (createGraph=true, then a gradient of that gradient) through this '
          .. 'Torch7-style module is not supported: its backward computes %s without a graph; use the PyTorch-style '
          .. 'module or the functional op instead', what)
      end }, { dep }, { out })
      flat[k] = out
    end
  end
end

return M
