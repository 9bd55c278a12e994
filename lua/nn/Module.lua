-- nn.Module: Torch7's module API (forward/backward, updateOutput/updateGradInput/
-- accGradParameters, parameters/getParameters, type conversion, clone, share...) and how modules
-- meet autograd (Note [Modules and autograd]). The walks over children also reach the modules a
-- PyTorch-style module holds in fields (Note [Submodules in fields], nn/field_children.lua).
local Module = torch.class('nn.Module')
local utils -- nn.utils, loaded after this file
local fields -- nn.field_children: submodules held in fields (Note [Submodules in fields])

function Module:__init()
  self.gradInput = torch.Tensor()
  self.output = torch.Tensor()
  self._type = self.output:type()
  self.train = true
end

-- The module's own weight and bias with their gradients, then the tensors registered with
-- m:registerParameter (Note [Registered tensors], nn/module_register.lua).
local function own_parameters(self)
  local w, gw
  if self.weight and self.bias then
    w, gw = { self.weight, self.bias }, { self.gradWeight, self.gradBias }
  elseif self.weight then
    w, gw = { self.weight }, { self.gradWeight }
  elseif self.bias then
    w, gw = { self.bias }, { self.gradBias }
  end
  local reg = self._registeredParams
  if reg then
    for _, n in ipairs(reg) do
      if torch.isTensor(self[n]) then
        w, gw = w or {}, gw or {}
        local k = #w + 1
        w[k], gw[k] = self[n], self[Module.gradName(n)]
      end
    end
  end
  return w, gw
end

--- m:parameters(): the learnable tensors and their gradients, as two tables (nil when none):
--- weight and bias, the registered ones (m:registerParameter), then those of the modules held in
--- fields (Note [Submodules in fields]).
function Module:parameters()
  local w, gw = own_parameters(self)
  -- a class's own parameters() calling this one keeps Torch7's answer
  if self.parameters ~= Module.parameters then return w, gw end
  local kids = fields.fields(self)
  if #kids == 0 then return w, gw end
  w, gw = w or {}, gw or {}
  for _, e in ipairs(kids) do
    local cw, cgw = e[2]:parameters()
    if cw then
      for i = 1, #cw do
        local n = #w + 1
        w[n], gw[n] = cw[i], cgw and cgw[i]
      end
    end
  end
  if #w == 0 then return nil end
  return w, gw
end

function Module:updateOutput(input) return self.output end
-- Note [Torch7 calls on autograd modules]: a class that defines only updateOutput (from
-- differentiable ops) still answers Torch7's separate updateGradInput and accGradParameters (and so
-- accUpdateGradParameters), as containers, nn.Jacobian and Torch7 scripts call them: each re-runs
-- the forward with recording on and asks autograd (nn.utils.autogradBackward), one forward per
-- call; Module:backward does both in one. A class that defines updateGradInput but not
-- accGradParameters (a Torch7 module without parameters) keeps the no-op.
--
-- Note [Replays reaching Torch7-style children]: the replayed forward of such a module may run
-- Torch7-style children (a PyTorch-style class calling self.fc1:forward, Note [Submodules in
-- fields]); they record coarse nodes, which accumulate into their gradWeight when autograd runs
-- them, not through the gradients the replay asks for. So a replay tells the coarse nodes what it
-- wants (`replay` below): updateGradInput's leaves their parameters alone, backward's and
-- accGradParameters' accumulate times scale; in those two the parameters are inputs of the coarse
-- nodes recorded, as autograd runs a node only on a path to a tensor it differentiates (with
-- indices for input, no input is one).
local replay  -- {what =, scale =} while a replay runs
local function replay_backward(self, input, gradOutput, scale, what)
  local prev = replay
  replay = { what = what, scale = scale or 1 }
  local ok, err = pcall(utils.autogradBackward, self, input, gradOutput, scale, what)
  replay = prev
  if not ok then error(err, 0) end
end
function Module:updateGradInput(input, gradOutput)
  replay_backward(self, input, gradOutput, 1, 'input')
  return self.gradInput
end
function Module:accGradParameters(input, gradOutput, scale)
  if self.updateGradInput ~= Module.updateGradInput or not self:parameters() then return end
  replay_backward(self, input, gradOutput, scale, 'params')
end
--- m:sharedAccUpdateGradParameters(input, gradOutput, lr): Torch7's accUpdateGradParameters for
--- modules whose parameters are shared: accumulates into the (zeroed) gradients, then steps by lr.
--- Example: local m = nn.Linear(2, 1); m:forward(torch.ones(2)); m:sharedAccUpdateGradParameters(torch.ones(2), torch.ones(1), 0.1)
function Module:sharedAccUpdateGradParameters(input, gradOutput, lr)
  if self:parameters() then
    self:zeroGradParameters()
    self:accGradParameters(input, gradOutput, 1)
    self:updateParameters(lr)
  end
end

function Module:accUpdateGradParameters(input, gradOutput, lr)
  local gw, gb = self.gradWeight, self.gradBias
  self.gradWeight, self.gradBias = self.weight, self.bias
  -- restored on an error too: left pointing at the weights, a later zeroGradParameters() would
  -- zero them (Torch7 had the same trap)
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  self.gradWeight, self.gradBias = gw, gb
  if not ok then error(err, 0) end
end

-- Note [Modules and autograd] (DESIGN.md decision 6):
--  * A module whose class defines updateGradInput (Torch7 style) is one coarse autograd node:
--    forward runs updateOutput with recording off and records a node whose backward calls
--    updateGradInput and accGradParameters. Parameter gradients accumulate into gradWeight,
--    which is the parameter's .grad (nn.utils.linkGradients), so loss:backward() and
--    model:backward() fill the same tensors.
--  * A module that only defines updateOutput with differentiable ops is differentiated through
--    them. Its Torch7-style backward re-runs the forward on a detached input that requires
--    grad and asks autograd for the gradients.
--  * Containers are transparent: each child decides for itself.
-- Like Torch7, a module's backward uses the state of its last forward: a module applied twice
-- in one graph needs clones (clone('weight', 'bias', ...) shares the parameters).
local function defines_backward(self)
  return self.updateGradInput ~= Module.updateGradInput
end

local function each_tensor(x, fn)
  if torch.isTensor(x) then fn(x)
  elseif type(x) == 'table' then for _, v in ipairs(x) do each_tensor(v, fn) end end
end
Module._each_tensor = each_tensor

-- The per-forward helpers below recurse instead of passing closures to each_tensor: creating a
-- closure aborts LuaJIT traces, and these run on every forward of every module.
local function any_needs_grad(x)
  if torch.isTensor(x) then return x:needsGrad() end
  if type(x) == 'table' then
    for _, v in ipairs(x) do if any_needs_grad(v) then return true end end
  end
  return false
end
Module._any_needs_grad = any_needs_grad

local function collect_tensors(x, list)
  if torch.isTensor(x) then list[#list + 1] = x
  elseif type(x) == 'table' then for _, v in ipairs(x) do collect_tensors(v, list) end end
  return list
end
Module._collect_tensors = collect_tensors

-- Whether the forward must record a node, and whether any input needs a gradient.
local function needs_node(self, input)
  if self._transparent or not defines_backward(self) or not torch.isGradEnabled() then return false end
  if any_needs_grad(input) then return true, true end
  local params = self:parameters()
  if params then
    for _, p in ipairs(params) do if p:needsGrad() then return true, false end end
  end
  return false
end

local function flat_tensors(x) return collect_tensors(x, {}) end

-- The gradients of a table-shaped gradInput, in the order flat_tensors lists the inputs.
local function flat_grads(gi, input, out)
  if torch.isTensor(input) then out[#out + 1] = torch.isTensor(gi) and gi or false
  elseif type(input) == 'table' then
    for i, v in ipairs(input) do flat_grads(type(gi) == 'table' and gi[i] or nil, v, out) end
  end
  return out
end

-- The backward of a coarse node (shared by all of them; the entry holds the call's state).
local history = require 'nn.param_history'  -- Note [Parameters with a history]

local input_versions = require 'nn.input_versions'  -- Note [Inputs written after the forward]
local function coarse_backward_body(entry, grads, n)
  local module, input = entry.module, entry.input
  if entry.versions then input_versions.check(flat_tensors(input), entry.versions, entry.label) end
  local gradOutput = entry.single and grads[1] or utils.rebuild(entry.shape, grads, true)
  -- Note [Skipping gradInput]: under autograd nothing reads the gradInput of an input that needs
  -- no gradient (the data going into the first layer), so a module whose accGradParameters does
  -- not depend on updateGradInput having run (it sets _accGradWithoutGradInput, like nn.Linear)
  -- skips it: for the first Linear of an MLP that is a third of its backward GEMMs. Torch7's
  -- model:backward still computes every gradInput, as Torch7 does.
  local gi
  if entry.inputNeedsGrad or not module._accGradWithoutGradInput then gi = module:updateGradInput(input, gradOutput) end
  -- Note [Freezing]; Note [Replays reaching Torch7-style children]
  local flat = flat_grads(gi, input, {})
  -- Note [Parameter gradients under torch.autograd.grad]
  local all = replay == nil and torch.autograd._gradDepth > 0
  for k = 1, #flat do
    if flat[k] == false then flat[k] = nil
    -- gradInput is the module's buffer, which its next backward overwrites: torch.autograd.grad
    -- hands an input's gradient to the caller as it is, so it gets a copy (a result kept across
    -- calls, torch.func.grad's included, changed under the caller)
    elseif all then flat[k] = flat[k]:clone() end
  end
  if not module._frozen and not (replay and replay.what == 'input') then
    -- Note [Parameters with a history]; Note [Parameter gradients under torch.autograd.grad]
    local own, captured = entry.ownParams, nil
    for k, h in ipairs(own or {}) do
      if all or not h.leaf or not history.linked(module, h) then
        captured = captured or {}
        captured[#captured + 1] = h
        h.at = entry.ownFirst + k - 1
      end
    end
    if captured or all then
      history.acc_grad_capturing(module, captured or {}, input, gradOutput, replay and replay.scale or 1, all)
      for _, h in ipairs(captured or {}) do flat[h.at] = h.grad end
    else
      module:accGradParameters(input, gradOutput, replay and replay.scale or 1)
    end
  end
  if torch.isGradEnabled() then history.no_second_order(entry, flat, grads, n) end  -- createGraph=true
  return flat
end


local reuse = require 'nn.module_reuse'  -- Note [A module used again before its backward]
local function coarse_backward_at_forward(entry, grads, n)
  local at_forward = entry.paramsAtForward  -- Note [Parameters with a history]
  if not at_forward then return coarse_backward_body(entry, grads, n) end
  local current = history.install(entry.module, at_forward)
  local ok, res = pcall(coarse_backward_body, entry, grads, n)
  history.install(entry.module, current)
  if not ok then error(res, 0) end
  return res
end
local function coarse_backward(entry, grads, n)
  -- Note [Torch7's backward lets go of the module]
  if entry.module == nil then error('[backward] the module of this ' .. entry.label .. ' node was freed after its m:backward ran', 0) end
  return reuse.with_state(entry, coarse_backward_at_forward, entry, grads, n)
end


local function forward_as_node(self, input, inputNeedsGrad)
  local output = torch.noGrad(self.updateOutput, self, input)
  local inputs = flat_tensors(input)
  local outs = flat_tensors(output)
  local versions = input_versions.capture(inputs)  -- Note [Inputs written after the forward]
  -- Note [Replays reaching Torch7-style children]: in a replay that wants parameter gradients the
  -- parameters are inputs of the node too (they get no gradient from it: accGradParameters
  -- accumulates into gradWeight), so autograd runs it when no input needs a gradient (indices)
  -- Note [Parameter gradients under torch.autograd.grad]: the own parameters are inputs too
  local own, hist = history.node_params(self)
  if replay and replay.what ~= 'input' then
    local params = self:parameters()
    for _, p in ipairs(params or {}) do
      local mine = false
      for _, h in ipairs(own or {}) do if h.param == p then mine = true end end
      if p:needsGrad() and p:isLeaf() and not mine then inputs[#inputs + 1] = p end
    end
  end
  local ownFirst = #inputs + 1
  for _, h in ipairs(own or {}) do inputs[#inputs + 1] = h.param end
  -- An output that is an input (nn.Identity...) gets an alias so that it can carry the node.
  for k, o in ipairs(outs) do
    for _, i in ipairs(inputs) do
      if o == i then outs[k] = o.new(o) break end
    end
  end
  local single = torch.isTensor(output)
  if single then output = outs[1] elseif #outs > 0 then output = utils.rebuild(output, outs) end
  self.output = output
  -- Note [Coarse nodes hold no outputs]: the entry keeps only the shape of a table output (for
  -- rebuilding gradOutput), never the output tensors: those carry this node as their history, and
  -- the node keeps its entry alive from C++, so an entry holding them was a cycle no collector
  -- could see. Once m.output was replaced (m:clearState() after each forward, or a module that
  -- allocates a new output each call) and no backward ran, every step's output leaked.
  local entry = { label = torch.typename(self) or 'nn.Module', backward = coarse_backward,
                  module = self, input = input, shape = (not single) and utils.skeleton(output) or nil,
                  single = single, inputNeedsGrad = inputNeedsGrad, ownParams = own, ownFirst = ownFirst,
                  versions = versions,
                  paramsAtForward = (hist or self._substitutedParams) and history.capture(self) or nil }
  torch.autograd._record_lua_node(entry, inputs, outs)
  reuse.record(self, entry)
  return output
end

-- Note [Buffers are not differentiated]: a Torch7-style module's backward differentiates its
-- input and its parameters, never its buffers (a batch norm's running statistics). A buffer that
-- needs a gradient (torch.func.functionalCall(bn, {running_mean = t}) under torch.func.grad)
-- would silently get none, so it is an error while gradients are recorded, as PyTorch raises
-- ("the derivative for 'running_mean' is not implemented").
local function check_buffers(self, buffers)
  for _, b in ipairs(buffers) do
    local t = type(b) == 'string' and self[b] or b
    if torch.isTensor(t) and t:needsGrad() then
      error(string.format('[%s] buffer %s needs a gradient, but this module is not differentiable with respect to '
        .. 'its buffers (give it a tensor that does not need one, e.g. t:detach())',
        torch.typename(self) or 'nn.Module', type(b) == 'string' and b or '#' .. _), 3)
    end
  end
end

--- m:forward(input): computes the output (m.output) from input.
function Module:forward(input)
  if self._transparent then reuse.fresh_table(self) end  -- Note [Table outputs of containers]
  if self._transparent or not defines_backward(self) then return self:updateOutput(input) end
  if reuse.has_pending(self) then reuse.protect(self) end  -- Note [A module used again before its backward]
  local buffers = self._stateBuffers
  if buffers and torch.isGradEnabled() then check_buffers(self, buffers) end  -- Note [Buffers are not differentiated]
  local node, inputNeedsGrad = needs_node(self, input)
  if node then return forward_as_node(self, input, inputNeedsGrad) end
  -- Torch7-style modules compute with recording off: their buffers are reused in place.
  return torch.noGrad(self.updateOutput, self, input)
end

--- m:backward(input, gradOutput [, scale]): Torch7's backward: gradInput, and accumulates the
--- parameter gradients (times scale).
function Module:backward(input, gradOutput, scale)
  scale = scale or 1
  if not defines_backward(self) then
    replay_backward(self, input, gradOutput, scale, nil)
    return self.gradInput
  end
  -- a gradInput left with a graph by a createGraph = true backward would keep that graph, and report
  -- needsGrad(), after this backward's in-place writes: it starts anew
  local gi = self.gradInput
  if torch.isTensor(gi) and not gi:isLeaf() then self.gradInput = gi.new() end
  torch.noGrad(self.updateGradInput, self, input, gradOutput)
  if not self._frozen then torch.noGrad(self.accGradParameters, self, input, gradOutput, scale) end  -- Note [Freezing]
  reuse.consumed(self)  -- Note [A module used again before its backward]
  reuse.let_go(self)  -- Note [Torch7's backward lets go of the module]
  return self.gradInput
end

--- m:zeroGradParameters(): zeroes the accumulated parameter gradients in place.
function Module:zeroGradParameters()
  local _, grads = self:parameters()
  if grads then for _, g in ipairs(grads) do g:zero() end end
end

--- m:updateParameters(lr): parameters -= lr * gradients.
local fused  -- optim.fused, loaded on first use
local function update_each(params, grads, lr)
  for i = 1, #params do
    local p, g = params[i], grads[i]
    -- CUDA parameters go through the fused SGD update so that a batch launches them together
    -- (Note [Multi-tensor optimizer steps]); it takes lr >= 0 only, Torch7's call any lr.
    if lr >= 0 and p:isCuda() and torch.type(g) == torch.type(p) then fused.sgd(p, g, nil, lr, 0, 0, 0, false, false)
    elseif torch.isSparse(g) then  -- a sparse embedding's gradient: its rows only (Note [Sparse embedding gradients])
      fused.flush()
      local rows, vals = require('torch.sparse_grad').rows(g)
      if rows:nElement() > 0 then torch.noGrad(p.indexAdd, p, 1, rows, torch.mul(vals, -lr):typeAs(p)) end
    else
      fused.flush()  -- after the updates queued before it, as without a batch
      p:add(-lr, g)
    end
  end
end
function Module:updateParameters(lr)
  local params, grads = self:parameters()
  if not params then return end
  fused = fused or require 'optim.fused'
  if params[1] and params[1]:isCuda() then fused.batch(update_each, params, grads, lr)
  else update_each(params, grads, lr) end  -- CPU updates run at once anyway
end

--- m:training() / m:evaluate(): switch modes (Dropout, BatchNormalization...), with the modules
--- held in fields (Note [Submodules in fields]).
function Module:training()
  self.train = true
  for _, e in ipairs(fields.fields(self)) do e[2]:training() end
end
function Module:evaluate()
  self.train = false
  for _, e in ipairs(fields.fields(self)) do e[2]:evaluate() end
end

--- m:share(other, 'weight', 'bias', ...): m's named tensors view other's storage.
function Module:share(other, ...)
  for _, e in ipairs(fields.fields(self)) do
    local o = other[e[1]]
    if o == nil and other._listChildren then o = other[tonumber(e[1]) + 1] end
    if o ~= nil then e[2]:share(o, ...) end
  end
  for _, name in ipairs({ ... }) do
    -- only tensors are shared: a field of that name holding a flag (nn.MultiHeadAttention's bias =
    -- true) stays as it is (mine:set raised a raw Lua error)
    local m0 = self[name]
    if m0 ~= nil and (torch.isTensor(m0) or torch.isSparse(m0)) then
      local mine, theirs = m0, other[name]
      if torch.isSparse(mine) or torch.isSparse(theirs) then
        -- a sparse gradient (Note [Sparse embedding gradients]) has no storage to view: sharing it
        -- is holding the same accumulator, which both modules' backward append to
        if not (torch.isSparse(mine) and torch.isSparse(theirs)) then
          error(string.format('[%s] share: %s is sparse in one module and dense in the other (%s, %s); '
            .. 'make both sparse or both dense (setSparse)', torch.typename(self) or 'nn.Module', name,
            torch.typename(mine) or type(mine), torch.typename(theirs) or type(theirs)), 2)
        end
        self[name] = theirs
      else
        mine:set(theirs)
      end
      self[name .. '_shared'] = true
    end
  end
  utils.linkGradients(self)
  return self
end

--- m:clone(['weight', 'bias', ...]): a deep copy; the named tensors stay shared with m.
function Module:clone(...)
  local copy = utils.deepCopy(self)
  if select('#', ...) > 0 then copy:share(self, ...) end
  utils.linkGradients(copy)
  return copy
end

--- module:afterLoad(): called by torch.load (every format) once the module is read: parameters
--- require grad again and each one's .grad is its gradWeight (Note [After load]).
function Module:afterLoad()
  nn.utils.linkGradients(self)
end

--- m:type(name[, cache]): converts every tensor of the module (float(), double(), cuda()...).
function Module:type(name, cache)
  if not name then return self._type end
  cache = cache or {}
  utils.convertTensors(self, name, cache)
  self._type = name
  utils.linkGradients(self)
  return self
end
function Module:float(...) return self:type('torch.FloatTensor', ...) end
function Module:double(...) return self:type('torch.DoubleTensor', ...) end
function Module:cuda(...) return self:type('torch.CudaTensor', ...) end

function Module:reset(...)
  for _, e in ipairs(fields.fields(self)) do e[2]:reset(...) end
end

--- m:__call__(input, gradOutput): forward, or backward when a gradOutput is given (Torch7).
function Module:__call__(input, gradOutput)
  self:forward(input)
  if gradOutput then
    self:backward(input, gradOutput)
    return self.output, self.gradInput
  end
  return self.output
end

--- m:getParameters(): one flat parameter tensor and one flat gradient tensor that alias every
--- parameter and gradient of m; calling it again returns views of the same memory.
function Module:getParameters()
  local params, grads = self:parameters()
  local p = utils.flatten(params)
  local g = utils.flatten(grads)
  utils.linkGradients(self)
  return p, g
end

-- m:apply, m:replace, m:findModules, m:listModules: lua/nn/module_walk.lua
require('nn.module_walk')(Module)

--- m:clearState(): empties output, gradInput and buffers (smaller checkpoints).
function Module:clearState(...)
  local names = { 'output', 'gradInput', ... }
  for _, name in ipairs(names) do
    local v = self[name]
    if torch.isTensor(v) then self[name] = v.new()
    elseif type(v) == 'table' then self[name] = {} end
  end
  for k, v in pairs(self) do
    if type(k) == 'string' and k:sub(1, 1) == '_' and torch.isTensor(v) then self[k] = v.new() end
  end
  for _, e in ipairs(fields.fields(self)) do e[2]:clearState() end
  return self
end

function Module:__tostring__() return torch.typename(self) or 'nn.Module' end

--- m:summary([inputSize...]): prints each layer's output size and parameter count.
function Module:summary(...)
  return utils.summary(self, ...)
end

function Module._attach_utils(u)
  utils = u
  fields = require 'nn.field_children'
end
return Module
