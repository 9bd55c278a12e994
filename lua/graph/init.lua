-- Torch7's graph package (graph.Graph, graph.Node, graph.dot), which nngraph brought along: the
-- implementation lives with nngraph (lua/nngraph/graph.lua).
return require 'nngraph.graph'
