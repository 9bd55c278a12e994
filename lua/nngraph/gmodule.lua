-- nn.gModule(inputs, outputs): a module made of a graph of nngraph nodes. This file builds and
-- checks the graph and holds the container housekeeping (type, clearState, printing, loading);
-- running it forward and backward is nngraph/gmodule_run.lua.
require 'nn'
local gModule, parent = torch.class('nn.gModule', 'nn.Container')

local function is_node(x) return torch.typename(x) == 'nngraph.Node' end

local function fail(fmt, ...) error('[nn.gModule] ' .. string.format(fmt, ...), 0) end

-- Torch7's explanation of a list entry that is not a node.
local function not_a_node(v, list, i)
  if v == nil then return string.format('%s[%d] is nil (typo / bad index?)', list, i) end
  if type(v) == 'table' and torch.isTypeOf(v, 'nn.Module') then
    return string.format('%s[%d] is an nn.Module (%s), not an nngraph.Node: did you forget the second set of '
      .. 'parentheses, m(...)(input), which makes a node from a module?', list, i, torch.typename(v))
  end
  return string.format('%s[%d] should be an nngraph.Node, got %s', list, i, torch.typename(v) or type(v))
end

local function check_list(list, what)
  if type(list) ~= 'table' or torch.typename(list) then
    fail('%s must be a table of nngraph.Node, got %s', what, torch.type(list))
  end
  local n = table.maxn(list)
  for i = 1, n do
    if not is_node(list[i]) then fail('%s', not_a_node(list[i], what, i)) end
  end
  return n
end

--- nn.gModule(inputs, outputs): the module computing the output nodes from the input nodes
--- (tables of nngraph.Node); several inputs or outputs make its input or output a table.
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Tanh()(nn.Linear(3, 2)(x))}); print(g:forward(torch.randn(3)))
function gModule:__init(inputs, outputs)
  parent.__init(self)
  local nIn, nOut = check_list(inputs, 'inputs'), check_list(outputs, 'outputs')
  if nIn == 0 then fail('needs at least one input node, got an empty inputs table') end
  if nOut == 0 then fail('needs at least one output node, got an empty outputs table') end
  local seen = {}
  for i = 1, nOut do
    if seen[outputs[i]] then fail('outputs[%d] repeats outputs[%d]: list each node once (apply nn.Identity() for a copy)', i, seen[outputs[i]]) end
    seen[outputs[i]] = i
  end
  seen = {}
  for i = 1, nIn do
    local x = inputs[i]
    if seen[x] then fail('inputs[%d] repeats inputs[%d]: list each node once', i, seen[x]) end
    seen[x] = i
    if #x.children > 0 then
      fail('inputs[%d] (made at %s) is not a graph input: it is computed from other nodes (inputs are nodes made '
        .. 'with no arguments, m()), or it is already the input of another nn.gModule', i, x:where())
    end
  end
  -- The graph is built backwards (each node's children are its inputs): a node gathering the
  -- outputs, and one giving the inputs (split when there are several).
  local outnode = nngraph.Node({ input = {}, annotations = { _debugLabel = '[nn.gModule]:outputs' } })
  for i = 1, nOut do outnode:add(outputs[i], true) end
  local innode = nngraph.Node({ input = {}, annotations = { _debugLabel = '[nn.gModule]:inputs' } })
  if nIn == 1 then
    inputs[1]:add(innode, true)
  else
    local splits = { innode:split(nIn) }
    for i = 1, nIn do inputs[i]:add(splits[i], true) end
  end
  self.bg = outnode:graph()
  self.fg = self.bg:reverse()
  self.outnode, self.nInputs, self.verbose = outnode, nIn, false
  -- every node must be computable from the inputs: the forward graph has one root, innode
  for _, r in ipairs(self.fg:roots()) do
    if r.data ~= innode.data then
      local n = nngraph.Node.where(r)
      fail('the node made at %s (%s) is not reachable from the inputs: it has no inputs and is not in the inputs '
        .. 'list (list it in inputs, or build it from them)', n, torch.typename(r.data.module) or 'no module')
    end
    self.innode = r
  end
  if not self.innode then fail('the graph has a cycle: no node is computed from the inputs alone') end
  local ok, sorted = pcall(self.fg.topsort, self.fg)
  if not ok then fail('%s', tostring(sorted):gsub('^%[graph.Graph%] topsort: ', '')) end
  self.forwardnodes = sorted
  self.backwardnodes = self.bg:topsort()
  local inGraph = {}
  for _, node in ipairs(self.forwardnodes) do inGraph[node.data] = true end
  for i = 1, nIn do
    if not inGraph[inputs[i].data] then
      fail('inputs[%d] (made at %s) does not lead to any output: remove it from inputs or use it', i, inputs[i]:where())
    end
  end
  for _, node in ipairs(self.forwardnodes) do
    local d = node.data
    if d.nSplitOutputs and d.nSplitOutputs ~= #node.children then
      fail('%d of the split(%d) outputs of the node made at %s are unused (each output of split must feed the graph)',
        d.nSplitOutputs - #node.children, d.nSplitOutputs, d.annotations._debugLabel or '?')
    end
    for consumer in pairs(d.reverseMap) do
      if not inGraph[consumer.data] then
        fail('the node made at %s takes the node made at %s as input but does not lead to any output of this '
          .. 'nn.gModule (remove it or list it in outputs)', consumer:where(), nngraph.Node.where(node))
      end
    end
    d.forwardNodeId = node.id
  end
  self:_collectModules()
  self.output = nOut > 1 and {} or torch.Tensor()
  self.gradInput = nIn > 1 and {} or torch.Tensor()
end

-- self.modules: each module of the graph once, in forward order (Note [A module applied twice in
-- a graph]: Torch7 listed it once per node, which made updateParameters step it twice); and how
-- many nodes apply each one.
function gModule:_collectModules()
  self.modules = {}
  local uses = {}
  for _, node in ipairs(self.forwardnodes) do
    local m = node.data.module
    if m then
      if not uses[m] then self.modules[#self.modules + 1] = m end
      uses[m] = (uses[m] or 0) + 1
    end
  end
  self._uses = {}
  for m, n in pairs(uses) do if n > 1 then self._uses[#self._uses + 1] = m end end
end

--- g:map(other, fn): calls fn(mine, theirs) for the modules at the same nodes of two gModules built
--- the same way (Torch7).
--- Example: require 'nngraph'; local function mk() local x = nn.Identity()() return nn.gModule({x}, {nn.Linear(2, 2)(x)}) end local a, b = mk(), mk() a:map(b, function(m1, m2) if m1.weight then m1.weight:copy(m2.weight) end end)
function gModule:map(other, fn)
  for i, node in ipairs(self.forwardnodes) do
    local o = other.forwardnodes[i]
    if not o or (node.data.module ~= nil) ~= (o.data.module ~= nil) then
      fail('map: the two gModules have different structures (node %d)', i)
    end
    if node.data.module then fn(node.data.module, o.data.module) end
  end
end

-- Forgets what forward and backward left in the nodes (inputs seen, gradients, sum buffers).
function gModule:_clearNodes()
  for _, node in ipairs(self.forwardnodes) do
    local d = node.data
    if d.input then for i = #d.input, 1, -1 do d.input[i] = nil end end
    d.gradOutput, d.gradOutputBuffer = nil, nil
  end
  if self.innode then self.innode.data.input = {} end
  if self.outnode then self.outnode.data.input = {} end
end

--- g:type(name[, cache]): converts the modules (shared tensors stay shared) and forgets the
--- per-node buffers of the last forward/backward.
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Linear(2, 2)(x)}):double()
function gModule:type(name, cache)
  if not name then return self._type end
  cache = cache or {}
  for _, m in ipairs(self.modules) do m:type(name, cache) end
  self:_clearNodes()
  self.output = #self.outnode.children > 1 and self.outnode.data.input or torch.Tensor():type(name)
  self.gradInput = (self.nInputs or 1) > 1 and {} or torch.Tensor():type(name)
  self._type = name
  return self
end

--- g:clearState(): empties outputs, gradients and buffers of the modules and of the nodes.
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = nn.gModule({x}, {nn.Linear(2, 2)(x)}); g:forward(torch.randn(2)); g:clearState()
function gModule:clearState()
  parent.clearState(self)
  self:_clearNodes()
  return self
end

--- g:afterLoad(): called by torch.load (Tocha and Torch7 .t7 files): rebuilds the module list of
--- older files and the graphs' g:nodes() (Note [Graph nodes list]).
--- Example: require 'nngraph'; local x = nn.Identity()(); local g = torch.deserialize(torch.serialize(nn.gModule({x}, {nn.Tanh()(x)})))
function gModule:afterLoad()
  for _, g in ipairs({ self.fg, self.bg }) do if g and g.afterLoad then g:afterLoad() end end
  self:_collectModules()
  self.nInputs = self.nInputs or #self.innode.children
  parent.afterLoad(self)
end

--- tostring(g): the gModule's name (g.name when set) with its inputs, outputs and modules.
--- Example: require 'nngraph'; local x = nn.Identity()(); print(nn.gModule({x}, {nn.Tanh()(x)}))
function gModule:__tostring__()
  if self.name then return self.name end
  local lines = { string.format('nn.gModule {%d input%s -> %d output%s', self.nInputs or 1,
    (self.nInputs or 1) == 1 and '' or 's', #self.outnode.children, #self.outnode.children == 1 and '' or 's') }
  for i, m in ipairs(self.modules) do
    lines[#lines + 1] = '  (' .. i .. '): ' .. tostring(m):gsub('\n', '\n  ')
  end
  return table.concat(lines, '\n') .. '\n}'
end

require 'nngraph.gmodule_run'
return gModule
