-- Looking into graphs: nngraph.setDebug (on an error, write the graph with the failing node in
-- red), nngraph.annotateNodes (name nodes after the local variables holding them) and
-- nngraph.display (write the forward graph's .dot/.svg).

-- Note [Debugging a graph]: errors inside a gModule always name the node (module type, annotation
-- name, file:line where the node was made: Note [Where a node was made]). Torch7's setDebug(true)
-- also saved the graph with the failing node filled red, as <g.name or nngraph_<n>in_<m>out>.svg;
-- Tocha writes the .dot file there (and the .svg only when Graphviz's `dot` is installed).

local function failed_dot(g, title, failed)
  local text = g:todot(title)
  for _, node in ipairs(g.nodes) do
    if node.data == failed.data then
      return (text:gsub('}%s*$', '')) .. string.format('n%s[style=filled, fillcolor=red];\n}', node.id)
    end
  end
  return text
end

local function on_error(gmod, node)
  local prefix = gmod.name or string.format('nngraph_%sin_%sout', gmod.nInputs or 1, #gmod.outnode.children)
  local ok, err = pcall(function()
    local text = failed_dot(gmod.fg, prefix, node)
    local f = assert(io.open(prefix .. '.dot', 'w'))
    f:write(text)
    f:close()
    io.stderr:write(string.format('[nngraph] saving %s.dot\n', prefix))
    if graph._hasDot() then os.execute(string.format("dot -Tsvg -o '%s.svg' '%s.dot'", prefix, prefix)) end
  end)
  if not ok then io.stderr:write('[nngraph] could not save the failing graph: ' .. tostring(err) .. '\n') end
end

--- nngraph.setDebug(enable): when enabled, an error inside a gModule also writes its forward graph
--- with the failing node in red to <g.name or nngraph_<n>in_<m>out>.dot (Note [Debugging a graph]).
--- Example: require 'nngraph'; nngraph.setDebug(true); nngraph.setDebug(false)
function nngraph.setDebug(enable)
  nngraph._onError = enable and on_error or nil
end

--- nngraph.annotateNodes([level]): names every nngraph.Node held in a local variable of the calling
--- function after that variable (nodes already named keep their name).
--- Example: require 'nngraph'; local function build() local input = nn.Identity()(); local hidden = nn.Tanh()(input); nngraph.annotateNodes(); return hidden end print(build().data.annotations.name)
function nngraph.annotateNodes(level)
  level = (level or 1) + 1
  for i = 1, math.huge do
    local name, value = debug.getlocal(level, i)
    if not name then break end
    if torch.typename(value) == 'nngraph.Node' and not value.data.annotations.name then
      value:annotate({ name = name })
    end
  end
end

--- nngraph.display(g[, filename]): writes g's forward graph to filename.dot (a temporary name
--- by default; .svg too when Graphviz is installed) and returns the path without extension
--- (Torch7 opened a browser window).
--- Example: require 'nngraph'; local x = nn.Identity()(); nngraph.display(nn.gModule({x}, {nn.Tanh()(x)}), 'net')
function nngraph.display(g, filename)
  if torch.typename(g) ~= 'nn.gModule' then
    error(string.format('[nngraph.display] expects an nn.gModule, got %s', torch.type(g)), 2)
  end
  filename = filename or os.tmpname()
  graph.dot(g.fg, g.name or 'nn.gModule', filename)
  return filename
end
