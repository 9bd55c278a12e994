-- nngraph.Node: a graph.Node holding one module application (data.module) and the order of its
-- inputs (data.mapindex); split() for the parts of a table output, annotate() and the labels
-- used by .dot files. Field layout as in Torch7's nngraph, so Torch7 checkpoints load.
require 'nngraph.graph'
local Node, parent = torch.class('nngraph.Node', 'graph.Node')

-- Note [Where a node was made]: each node remembers the file:line that created it (the first
-- stack frame outside nngraph's, nn's and the class system's files) as data.annotations._debugLabel,
-- in Torch7's format '[file]:line_function'. Errors during forward/backward and .dot tooltips
-- name the node by it, so "node made at model.lua:12" points at the line that built it.
local skip = { '/lua/nngraph/', '/lua/nn/', '/lua/torch/class.lua' }
local function creation_site()
  for level = 3, 40 do
    local info = debug.getinfo(level, 'Sln')
    if not info then return nil end
    local src, internal = info.source or '', false
    for _, s in ipairs(skip) do if src:find(s, 1, true) then internal = true break end end
    if not internal and info.what ~= 'C' then
      return string.format('[%s]:%d_%s', info.short_src, info.currentline or 0, info.name or '')
    end
  end
end

--- nngraph.Node(data): a graph node; data.module is the module applied there (nil for the
--- nodes nngraph adds: graph inputs and outputs, split points). Built by m(...) calls.
--- Example: require 'nngraph'; local n = nn.Identity()(); print(torch.type(n))
function Node:__init(data)
  parent.__init(self, data)
  data.annotations = data.annotations or {}
  data.mapindex = data.mapindex or {}
  data.reverseMap = data.reverseMap or {}
  if not data.annotations._debugLabel then data.annotations._debugLabel = creation_site() end
end

--- node:add(input, domap): records input as one of node's inputs (a child in the graph that runs
--- backwards); with domap, its position among the inputs too. The same input twice is an error.
--- Example: require 'nngraph'; local a = nn.Identity()(); local b = nngraph.Node({}); b:add(a, true)
function Node:add(child, domap)
  if domap then
    local mapindex, data = self.data.mapindex, child.data
    if mapindex[data] then
      error(string.format('[nngraph.Node] the node made at %s is given the same input twice (made at %s): pass each node '
        .. 'once, or apply nn.Identity() to get a second node', self:where(), child:where()), 3)
    end
    parent.add(self, child)
    mapindex[#mapindex + 1] = data
    mapindex[data] = #mapindex
    -- the input knows its consumers, so gModule finds nodes that feed nothing it computes
    child.data.reverseMap[self] = true
  else
    parent.add(self, child)
  end
end

--- node:where(): the annotation name, or the place the node was made (Note [Where a node was made]).
--- Example: require 'nngraph'; print(nn.Identity()():annotate{name = 'x'}:where())
function Node:where()
  local a = self.data.annotations
  local site = (a._debugLabel or '?'):gsub('_$', '')  -- Torch7's label ends with the function name
  if a.name then return string.format("'%s' (%s)", a.name, site) end
  return site
end

--- node:split(n): n new nodes, the i-th giving element i of this node's table output
--- (local h, c = nn.SplitTable(1)(x):split(2)); split(1) gives the single element.
--- Example: require 'nngraph'; local x = nn.Identity()(); local a, b = nn.SplitTable(1)(x):split(2)
function Node:split(n)
  if type(n) ~= 'number' or n < 1 or n % 1 ~= 0 then
    error(string.format('[nngraph.Node] split expects a positive whole number of outputs, got %s', tostring(n)), 2)
  end
  if n == 1 then return nngraph.JustElement()(self) end
  local label = self.data.annotations._debugLabel or '?'
  local info = debug.getinfo(2, 'Sl')
  local at = info and string.format(' split at [%s]:%d', info.short_src, info.currentline) or ''
  local mnode = nngraph.Node({ nSplitOutputs = n, annotations = { _debugLabel = label .. at .. '-mnode' } })
  mnode:add(self, true)
  local outs = {}
  for i = 1, n do
    outs[i] = nngraph.Node({ selectindex = i, input = {}, annotations = { _debugLabel = label .. '-' .. i } })
    outs[i]:add(mnode, true)
  end
  return unpack(outs)
end

--- node:annotate{name=, description=, graphAttributes=}: sets annotations (shown in .dot files,
--- used in error messages; Torch7 scripts find nodes by name); returns node.
--- Example: require 'nngraph'; local x = nn.Identity()():annotate{name = 'input', graphAttributes = {color = 'red'}}
function Node:annotate(annotations)
  if type(annotations) ~= 'table' then
    error(string.format('[nngraph.Node] annotate expects a table, got %s', torch.type(annotations)), 2)
  end
  for k, v in pairs(annotations) do self.data.annotations[k] = v end
  return self
end

--- node:graphNodeName(): the name in .dot files: the annotation name with the node id, or NodeN.
--- Example: require 'nngraph'; print(nn.Identity()():graphNodeName())
function Node:graphNodeName()
  local name = self.data.annotations.name
  if name then return name .. ' (' .. self.id .. ')' end
  return 'Node' .. self.id
end

--- node:graphNodeAttributes(): the Graphviz attributes of the node (graphAttributes annotation,
--- with the creation site as tooltip by default).
--- Example: require 'nngraph'; print(nn.Identity()():graphNodeAttributes().tooltip)
function Node:graphNodeAttributes()
  local a = self.data.annotations
  a.graphAttributes = a.graphAttributes or {}
  if not a.graphAttributes.tooltip then a.graphAttributes.tooltip = a._debugLabel end
  return a.graphAttributes
end

local function describe(v)
  if v == nil then return '' end
  if torch.isTensor(v) then
    local t = v:type() == torch.Tensor():type() and 'Tensor' or v:type()
    local flag = ''
    if v:nElement() > 0 and (v:type():find('Float') or v:type():find('Double')) then
      local d = v:detach()
      if d:ne(d):sum() > 0 then flag = 'NaN'
      elseif d:max() == math.huge then flag = 'inf'
      elseif d:min() == -math.huge then flag = '-inf' end
    end
    return t .. '[' .. table.concat(v:size():totable(), 'x') .. ']' .. flag
  elseif type(v) == 'table' and not torch.typename(v) then
    local parts = {}
    for _, x in ipairs(v) do parts[#parts + 1] = describe(x) end
    return '{' .. table.concat(parts, ',') .. '}'
  end
  return (tostring(v):gsub('\n', '\\l'))
end

--- node:label(): the node's description for .dot files (module, inputs seen, description annotation).
--- Example: require 'nngraph'; print(nn.Linear(2, 3)():label())
function Node:label()
  local lines, keys = {}, {}
  for k in pairs(self.data) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local v = self.data[k]
    if k == 'mapindex' then
      if #v > 1 then
        local ids = {}
        for i, d in ipairs(v) do ids[i] = 'Node' .. (d.forwardNodeId or '') end
        lines[#lines + 1] = 'mapindex = {' .. table.concat(ids, ',') .. '}'
      end
    elseif k ~= 'forwardNodeId' and k ~= 'annotations' and k ~= 'reverseMap' and k ~= 'gradOutputBuffer' then
      lines[#lines + 1] = tostring(k) .. ' = ' .. describe(v)
    end
  end
  local desc = self.data.annotations.description
  return (desc and ('desc = ' .. desc .. '\\n') or '') .. table.concat(lines, '\\l')
end

return Node
