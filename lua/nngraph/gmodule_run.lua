-- Running an nn.gModule: forward through the nodes in topological order, backward through the
-- reversed graph summing the gradients that reach a node from several consumers, Torch7's
-- updateGradInput/accGradParameters pair and Tocha's one-pass backward.
local gModule = torch.getmetatable('nn.gModule')
local nesting = require 'nngraph.nesting'
local snapshot = require 'nngraph.reuse'

-- gModule -> {[node data] = snapshot}: the state of a module applied at several nodes, for the
-- nodes other than its last application in the latest forward (Note [A module applied twice in a
-- graph]). Kept out of the module so that checkpoints do not hold it.
local states = setmetatable({}, { __mode = 'k' })
local ran = setmetatable({}, { __mode = 'k' })  -- gModules whose nodes hold a forward's inputs

local function fail(fmt, ...) error('[nn.gModule] ' .. string.format(fmt, ...), 0) end

local function node_name(node)
  local d = node.data
  local what = d.module and torch.typename(d.module) or (d.selectindex and 'split output ' .. d.selectindex) or 'graph node'
  return string.format('%s, node made at %s', what, nngraph.Node.where(node))
end

-- An error raised at node: names the node (its annotation name and where it was made) and, with
-- nngraph.setDebug(true), writes the graph with the node in red (nngraph/inspect.lua).
local function node_failed(self, node, what, res)
  if nngraph._onError then nngraph._onError(self, node) end
  error(string.format('%s\n  (in %s (%s) of %s)', tostring(res), what, node_name(node), self.name or 'nn.gModule'), 0)
end

-- Note [Fixed-argument node calls]: the walks run once per node per call (a char-rnn step: 50
-- clones x 54 nodes, forward and backward), so the calls into the modules take fixed arguments
-- and no closure is made per call (LuaJIT's traces aborted on the backward's closure, "NYI:
-- bytecode 51"), and a node with no snapshot calls the module's method without reuse.with. The
-- walk itself was already small next to the modules: bench/torch7_nngraph.lua measures it (the
-- numbers are in bench/README.md, 2026-11-28).
local function call_forward(self, node, call, m, x)
  local ok, res = pcall(call, m, x)
  if ok then return res end
  return node_failed(self, node, 'forward', res)
end

local function call_backward(self, node, what, snaps, fn, m, x, go, scale)
  local ok, res
  if snaps then ok, res = pcall(snapshot.with, snaps, fn, m, x, go, scale)
  else ok, res = pcall(fn, m, x, go, scale) end
  if ok then return res end
  return node_failed(self, node, what, res)
end

local function forward_call(m, x) return m:forward(x) end

--- g:runForwardFunction(func, input): runs func(module, moduleInput) at every node in order
--- (func a function, or the name of a module method) and returns the graph's output (Torch7).
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Tanh()(x)}); print(g:runForwardFunction('updateOutput', torch.zeros(2)))
function gModule:runForwardFunction(func, input)
  local call = func
  if type(func) == 'string' then
    call = function(m, x) return m[func](m, x) end
  elseif type(func) ~= 'function' then
    fail('runForwardFunction expects a function or a method name, got %s', torch.type(func))
  end
  local nIn = self.nInputs or #self.innode.children
  if nIn <= 1 then
    input = { input }
  else
    if type(input) ~= 'table' or torch.typename(input) then
      fail('forward expects a table of %d inputs, got %s', nIn, torch.type(input))
    end
    if #input ~= nIn then fail('forward expects %d inputs, got a table of %d', nIn, #input) end
  end
  -- fresh input lists each call: an autograd entry of the previous call may still hold the old ones
  for _, node in ipairs(self.forwardnodes) do node.data.input = {} end
  local into = self.innode.data.input
  for i = 1, nIn do into[i] = input[i] end
  local reused = self._uses and #self._uses > 0
  local st, last, multi
  if reused then
    st, last, multi = {}, {}, {}
    for _, m in ipairs(self._uses) do multi[m] = true end
  end
  states[self], ran[self] = st, true
  for _, node in ipairs(self.forwardnodes) do
    local d = node.data
    local out
    if d.selectindex then
      out = d.input[1][d.selectindex]
    else
      local x = d.input
      if #x == 1 then x = x[1] end
      local m = d.module
      if not m then
        out = x
      else
        if multi and multi[m] then
          if last[m] then st[last[m]] = snapshot.take(m) end
          last[m] = d
        end
        out = call_forward(self, node, call, m, x)
      end
      local n = d.nSplitOutputs
      if n and (type(out) ~= 'table' or torch.typename(out) or #out ~= n) then
        fail('split(%d) of the node made at %s needs a table of %d outputs, got %s', n, d.annotations._debugLabel or '?',
          n, (type(out) == 'table' and not torch.typename(out)) and ('a table of ' .. #out) or torch.type(out))
      end
    end
    for _, child in ipairs(node.children) do
      local cd = child.data
      cd.input[cd.mapindex[d]] = out
    end
    if self.verbose then print(' V : ' .. node:label()) end
  end
  local outs = self.outnode.data.input
  self.output = #self.outnode.children == 1 and outs[1] or outs
  return self.output
end

--- g:updateOutput(input): forward through the graph (each module's forward, so autograd records
--- the modules as in nn.Sequential).
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Tanh()(x)}); print(g:updateOutput(torch.zeros(2)))
function gModule:updateOutput(input)
  return self:runForwardFunction(forward_call, input)
end

-- The sum of the gradients that reached node d (a buffer reused across calls when there are several).
local function total_grad(d)
  local list = d.gradOutput
  if #list == 1 then return list[1] end
  local first, buf = list[1], d.gradOutputBuffer
  if buf == nil or torch.isTensor(buf) ~= torch.isTensor(first) or (torch.isTensor(buf) and buf:type() ~= first:type()) then
    buf = nesting.clone(first)
  else
    nesting.resizeAs(buf, first)
    nesting.copy(buf, first)
  end
  for i = 2, #list do nesting.add(buf, list[i]) end
  d.gradOutputBuffer = buf
  return buf
end

local function module_input(d)
  local x = d.input
  if #x == 1 then return x[1] end
  return x
end

-- The walk of run_backward, under torch.noGrad (Note [Fixed-argument node calls]).
local function backward_walk(self, method, scale, st)
  local nodes = self.backwardnodes
  for k = 1, #nodes do
    local node = nodes[k]
    local d = node.data
    local go = total_grad(d)
    if d.selectindex then
      local cg = node.children[1].data.gradOutput
      cg[1] = cg[1] or {}
      cg[1][d.selectindex] = go
    else
      local gi = go
      local m = d.module
      if m then
        gi = call_backward(self, node, method, st and st[d], m[method], m, module_input(d), go, scale)
      end
      local children = node.children
      local n = #children
      for c = 1, n do
        local cd = children[c].data
        local g = gi
        if n > 1 then g = type(gi) == 'table' and gi[d.mapindex[cd]] or nil end
        if g == nil then
          fail('%s of %s gave no gradient for its input %d (got %s)', method, node_name(node),
            d.mapindex[cd], torch.type(gi))
        end
        local list = cd.gradOutput
        list[#list + 1] = g
      end
    end
    if self.verbose then print(' V : ' .. node:label()) end
  end
end

-- The backward walk: method is 'updateGradInput' (Torch7's first half) or 'backward' (both halves
-- in one pass, as nn.Sequential's backward does).
local function run_backward(self, gradOutput, method, scale)
  local nOut = #self.outnode.children
  if nOut > 1 and (type(gradOutput) ~= 'table' or torch.typename(gradOutput) or #gradOutput ~= nOut) then
    fail('%s expects a table of %d gradOutputs (one per output), got %s', method, nOut,
      (type(gradOutput) == 'table' and not torch.typename(gradOutput)) and ('a table of ' .. #gradOutput) or torch.type(gradOutput))
  end
  if not ran[self] then fail('%s called before forward (or after clearState/type)', method) end
  local nodes = self.backwardnodes
  for k = 1, #nodes do nodes[k].data.gradOutput = {} end
  self.outnode.data.gradOutput[1] = gradOutput
  torch.noGrad(backward_walk, self, method, scale, states[self])
  self.gradInput = self.innode.data.gradOutput[1]
  return self.gradInput
end

--- g:updateGradInput(input, gradOutput): the gradient with respect to the input(s).
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Tanh()(x)}); g:forward(torch.zeros(2)); print(g:updateGradInput(torch.zeros(2), torch.ones(2)))
function gModule:updateGradInput(input, gradOutput)
  return run_backward(self, gradOutput, 'updateGradInput')
end

--- g:backward(input, gradOutput[, scale]): gradInput, and accumulates the parameter gradients
--- (times scale), in one walk.
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Linear(2, 1)(x)}); g:forward(torch.ones(2)); g:backward(torch.ones(2), torch.ones(1))
function gModule:backward(input, gradOutput, scale)
  return run_backward(self, gradOutput, 'backward', scale or 1)
end

-- The walk of accGradParameters (under torch.noGrad) and accUpdateGradParameters: method at each
-- module node, with the gradients the last updateGradInput left there.
local function acc_walk(self, method, scale, st)
  local nodes = self.backwardnodes
  for k = 1, #nodes do
    local node = nodes[k]
    local d, m = node.data, node.data.module
    if m then
      local list = d.gradOutput
      if not list or #list == 0 then fail('%s called before updateGradInput', method) end
      local go = #list > 1 and d.gradOutputBuffer or list[1]
      call_backward(self, node, method, st and st[d], m[method], m, module_input(d), go, scale)
    end
  end
end

--- g:accGradParameters(input, gradOutput[, scale]): accumulates the parameter gradients, from
--- the gradients the last updateGradInput left at each node.
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Linear(2, 1)(x)}); g:forward(torch.ones(2)); g:updateGradInput(torch.ones(2), torch.ones(1)); g:accGradParameters(torch.ones(2), torch.ones(1))
function gModule:accGradParameters(input, gradOutput, scale)
  torch.noGrad(acc_walk, self, 'accGradParameters', scale or 1, states[self])
end

--- g:accUpdateGradParameters(input, gradOutput, lr): Torch7's in-place update, node by node.
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Linear(2, 1)(x)}); g:forward(torch.ones(2)); g:updateGradInput(torch.ones(2), torch.ones(1)); g:accUpdateGradParameters(torch.ones(2), torch.ones(1), 0.1)
function gModule:accUpdateGradParameters(input, gradOutput, lr)
  acc_walk(self, 'accUpdateGradParameters', lr, states[self])
end

-- The per-application state of a gModule applied at several nodes of an enclosing gModule
-- (nngraph/reuse.lua, Note [A module applied twice in a graph]): its nodes' input lists, gradient
-- lists and sum buffers, and its own snapshots. Taking it leaves the live graph fresh buffers.
function gModule:_takeGraphState()
  local s = { states = states[self], ran = ran[self], nodes = {} }
  for i, node in ipairs(self.forwardnodes) do
    local d = node.data
    s.nodes[i] = { d.input, d.gradOutput, d.gradOutputBuffer }
    d.gradOutputBuffer = nil
  end
  return s
end

-- Puts state s in place and returns the state it replaced.
function gModule:_swapGraphState(s)
  local live = { states = states[self], ran = ran[self], nodes = {} }
  for i, node in ipairs(self.forwardnodes) do
    local d, saved = node.data, s.nodes[i]
    live.nodes[i] = { d.input, d.gradOutput, d.gradOutputBuffer }
    d.input, d.gradOutput, d.gradOutputBuffer = saved[1], saved[2], saved[3]
  end
  states[self], ran[self] = s.states, s.ran
  return live
end

-- type() and clearState() drop the snapshots along with the node buffers.
local clear_nodes = gModule._clearNodes
function gModule:_clearNodes()
  states[self], ran[self] = nil, nil
  return clear_nodes(self)
end
