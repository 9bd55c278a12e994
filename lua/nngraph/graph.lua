-- The `graph` package of Torch7 (torch/graph) that nngraph builds on: graph.Node (children,
-- dfs/bfs walks), graph.Edge, graph.Graph (nodes, edges, reverse, topsort, roots, leaves, todot)
-- and graph.dot, which writes a Graphviz .dot file (and an .svg when the `dot` program exists).
-- Loading nngraph sets the global `graph` and package.loaded.graph, as Torch7's require 'graph'.
require 'torch'
graph = rawget(_G, 'graph') or {}
local graph = graph
if graph._tocha then return graph end
graph._tocha = true

-- Note [Graph nodes list]: Torch7 keeps a graph's nodes and edges in the fields g.nodes and
-- g.edges (lists that also map each node to its index); Torch7 code reads them as fields
-- (#g.nodes, ipairs(g.nodes), g.nodes[node]), PyTorch habits call g:nodes(). Both work: the lists
-- get a metatable whose __call returns the list itself, so g:nodes() is g.nodes. Checkpoints hold
-- plain lists (Torch7's layout); Graph:afterLoad puts the metatable back.
local callable_list = { __call = function(list) return list end }
local function callable(t) return setmetatable(t or {}, callable_list) end

-- A new object of obj's class (Torch7's obj.new(...)): reverse() and clone() keep the node and
-- edge classes (nngraph.Node stays nngraph.Node).
local function new_like(obj, ...)
  return torch.getconstructortable(torch.typename(obj))(...)
end

local Node = torch.class('graph.Node')

--- graph.Node(data): a node holding data (a table nngraph fills) with an ordered children list.
--- Example: require 'nngraph'; local a, b = graph.Node({}), graph.Node({}); a:add(b); print(#a.children)
function Node:__init(data)
  self.data = data
  self.id = 0
  self.children = {}
  self.visited = false
  self.marked = false
end

--- node:add(child): appends child (or each node of a plain list) to the children, once.
--- Example: require 'nngraph'; local a, b = graph.Node({}), graph.Node({}); a:add(b)
function Node:add(child)
  local children = self.children
  if type(child) == 'table' and not torch.typename(child) then
    for _, c in ipairs(child) do self:add(c) end
  elseif not children[child] then
    children[#children + 1] = child
    children[child] = #children
  end
end

--- node:visit(pre, post): depth-first walk calling pre(node) before and post(node) after the
--- children; nodes whose `visited` flag is set are skipped (dfs sets and clears it).
--- Example: require 'nngraph'; graph.Node({}):visit(print)
function Node:visit(pre, post)
  if self.visited then return end
  if pre then pre(self) end
  for _, c in ipairs(self.children) do c:visit(pre, post) end
  if post then post(self) end
end

--- node:label(): the text shown for the node in a .dot file.
--- Example: require 'nngraph'; print(graph.Node({}):label())
function Node:label() return tostring(self.data) end

--- node:graph(): a graph.Graph of the edges reachable from node (breadth first).
--- Example: require 'nngraph'; local a, b = graph.Node({}), graph.Node({}); a:add(b); print(#a:graph().nodes)
function Node:graph()
  local g = graph.Graph()
  self:bfs(function(n)
    for _, c in ipairs(n.children) do g:add(graph.Edge(n, c)) end
  end)
  return g
end

--- node:dfs(func): calls func on every reachable node in depth-first post-order (children first).
--- Example: require 'nngraph'; local a, b = graph.Node({}), graph.Node({}); a:add(b); a:dfs(function(n) print(n.id) end)
function Node:dfs(func)
  local seen = {}
  self:visit(function(n) n.visited = true end, function(n) func(n); seen[#seen + 1] = n end)
  for _, n in ipairs(seen) do n.visited = false end
end

--- node:bfs(func): calls func on every reachable node, breadth first.
--- Example: require 'nngraph'; local a, b = graph.Node({}), graph.Node({}); a:add(b); a:bfs(function(n) print(n.id) end)
function Node:bfs(func)
  local queue, seen, head = { self }, { [self] = true }, 1
  while queue[head] do
    local n = queue[head]
    head = head + 1
    func(n)
    for _, c in ipairs(n.children) do
      if not seen[c] then seen[c] = true; queue[#queue + 1] = c end
    end
  end
end

local Edge = torch.class('graph.Edge')
--- graph.Edge(from, to): a directed edge (fields from and to).
--- Example: require 'nngraph'; local e = graph.Edge(graph.Node({}), graph.Node({}))
function Edge:__init(from, to)
  self.from, self.to = from, to
end

local Graph = torch.class('graph.Graph')
--- graph.Graph(): an empty graph; g.nodes and g.edges list its nodes and edges (Note [Graph
--- nodes list]: g:nodes() and g:edges() return the same lists).
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); print(#g:nodes())
function Graph:__init()
  self.nodes = callable()
  self.edges = callable()
end

--- g:afterLoad(): called by torch.load; makes g:nodes() and g:edges() work again.
--- Example: require 'nngraph'; local g = torch.deserialize(torch.serialize(graph.Graph())); print(#g:nodes())
function Graph:afterLoad()
  callable(self.nodes)
  callable(self.edges)
end

--- g:add(edge or {edges}): adds the edge and its end nodes; node ids are their indices in g.nodes.
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({})))
function Graph:add(edge)
  if type(edge) ~= 'table' then
    error(string.format('[graph.Graph] add expects a graph.Edge or a list of them, got %s', torch.type(edge)), 2)
  end
  if not torch.typename(edge) then
    for _, e in ipairs(edge) do self:add(e) end
    return
  end
  local nodes, edges = self.nodes, self.edges
  if not edges[edge] then edges[#edges + 1] = edge; edges[edge] = #edges end
  for _, n in ipairs({ edge.from, edge.to }) do
    if not nodes[n] then nodes[#nodes + 1] = n; nodes[n] = #nodes end
  end
  edge.from:add(edge.to)
  edge.from.id = nodes[edge.from]
  edge.to.id = nodes[edge.to]
end

--- g:reverse(): a new graph with every edge reversed; its nodes are new graph.Node objects sharing
--- the data tables. Also returns the map from g's nodes to the new ones.
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); local r = g:reverse()
function Graph:reverse()
  local rg, map = graph.Graph(), {}
  for _, e in ipairs(self.edges) do
    map[e.from] = map[e.from] or new_like(e.from, e.from.data)
    map[e.to] = map[e.to] or new_like(e.to, e.to.data)
    rg:add(new_like(e, map[e.to], map[e.from]))
  end
  return rg, map
end

--- g:clone(): a new graph with new nodes sharing the data tables.
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); local c = g:clone()
function Graph:clone()
  local c, map = graph.Graph(), {}
  for _, n in ipairs(self.nodes) do map[n] = new_like(n, n.data) end
  for _, e in ipairs(self.edges) do c:add(new_like(e, map[e.from], map[e.to])) end
  return c
end

-- Nodes no edge points to (from = true) or leaves nothing leaves (from = false), in node order.
local function ends(self, from)
  local candidate, hit = {}, {}
  for _, e in ipairs(self.edges) do
    candidate[from and e.from or e.to] = true
    hit[from and e.to or e.from] = true
  end
  local out = {}
  for _, n in ipairs(self.nodes) do
    if candidate[n] and not hit[n] then out[#out + 1] = n end
  end
  return out
end

--- g:roots(): the nodes with no incoming edge, in node order.
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); print(#g:roots())
function Graph:roots() return ends(self, true) end
--- g:leaves(): the nodes with no outgoing edge, in node order.
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); print(#g:leaves())
function Graph:leaves() return ends(self, false) end

--- g:topsort(): g's nodes ordered so that every edge goes from an earlier node to a later one
--- (Torch7's order: depth-first from the leaves); an error names a node on a cycle.
--- Example: require 'nngraph'; local a, b = graph.Node({}), graph.Node({}); local g = graph.Graph(); g:add(graph.Edge(a, b)); print(g:topsort()[1] == a)
function Graph:topsort()
  local parents = {}  -- node -> nodes with an edge into it
  for _, e in ipairs(self.edges) do
    parents[e.to] = parents[e.to] or {}
    table.insert(parents[e.to], e.from)
  end
  local state, sorted = {}, {}  -- state: 1 while on the walk's stack, 2 when done
  local function walk(n)
    if state[n] == 2 then return end
    if state[n] == 1 then
      local what = n.where and ('made at ' .. n:where()) or (n:label():gsub('\\l', ', '))
      error(string.format('[graph.Graph] topsort: the graph has a cycle through node %s (%s)', tostring(n.id), what), 0)
    end
    state[n] = 1
    for _, p in ipairs(parents[n] or {}) do walk(p) end
    state[n] = 2
    sorted[#sorted + 1] = n
  end
  local leaves = ends(self, false)
  if #leaves == 0 and #self.nodes > 0 then walk(self.nodes[1]) end  -- all on cycles: report one
  for _, l in ipairs(leaves) do walk(l) end
  if #sorted ~= #self.nodes then
    for _, n in ipairs(self.nodes) do if not state[n] then walk(n) end end
  end
  return sorted
end

local function dot_escape(s)
  if s:find('[^a-zA-Z]') then s = '"' .. s:gsub('\n', '\\n'):gsub('"', '\\"') .. '"' end
  return s
end

--- g:todot([title]): the graph in Graphviz's dot language; nodes with graphNodeName and
--- graphNodeAttributes (nngraph's) give their name, annotations and attributes.
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); print(g:todot('t'))
function Graph:todot(title)
  local out = { 'digraph G {\n' }
  if title then out[#out + 1] = 'labelloc="t";\nlabel="' .. title .. '";\n' end
  out[#out + 1] = 'node [shape = oval]; '
  local names = {}
  for _, n in ipairs(self.nodes) do
    local name = n.graphNodeName and n:graphNodeName() or ('Node' .. n.id)
    local attrs = ''
    if n.graphNodeAttributes then
      local keys, parts = {}, {}
      for k in pairs(n:graphNodeAttributes()) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      local a = n:graphNodeAttributes()
      for _, k in ipairs(keys) do parts[#parts + 1] = k .. '=' .. dot_escape(tostring(a[k])) end
      if #parts > 0 then attrs = ' ' .. table.concat(parts, ' ') end
    end
    names[n] = 'n' .. n.id
    out[#out + 1] = '\n' .. names[n] .. '[label=' .. dot_escape(name .. '\n' .. n:label()) .. attrs .. '];'
  end
  out[#out + 1] = '\n'
  for _, e in ipairs(self.edges) do out[#out + 1] = names[e.from] .. ' -> ' .. names[e.to] .. ';\n' end
  out[#out + 1] = '}'
  return table.concat(out)
end

-- Whether Graphviz's `dot` program is on the PATH (checked once).
local has_dot
function graph._hasDot()
  if has_dot == nil then
    has_dot = os.execute('command -v dot >/dev/null 2>&1')
    has_dot = has_dot == 0 or has_dot == true
  end
  return has_dot
end

--- graph.dot(g, title, filename): writes filename.dot (and filename.svg when Graphviz's `dot` is
--- installed). Without a filename it returns the dot text (Torch7 opened a Qt window instead).
--- Example: require 'nngraph'; local g = graph.Graph(); g:add(graph.Edge(graph.Node({}), graph.Node({}))); graph.dot(g, 'tiny', 'tiny')
function graph.dot(g, title, filename)
  if type(g) ~= 'table' or not g.todot then
    error(string.format('[graph.dot] expects a graph.Graph, got %s', torch.type(g)), 2)
  end
  local text = g:todot(title)
  if filename == nil then return text end
  local f, err = io.open(filename .. '.dot', 'w')
  if not f then error(string.format('[graph.dot] cannot write %s.dot: %s', filename, tostring(err)), 2) end
  f:write(text)
  f:close()
  if graph._hasDot() then
    os.execute(string.format("dot -Tsvg -o '%s.svg' '%s.dot'", filename, filename))
  end
  return text
end

package.loaded.graph = graph
return graph
