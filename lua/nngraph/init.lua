-- nngraph: Torch7's graphs of modules. require 'nngraph' sets the globals nngraph and graph and
-- makes node syntax work: nn.Identity()() is a graph input, nn.Linear(3, 4)(x) and
-- nn.CAddTable()({a, b}) are nodes, nn.gModule(inputs, outputs) the module they make.
require 'nn'
if rawget(_G, 'nngraph') and nngraph._loaded then return nngraph end
nngraph = rawget(_G, 'nngraph') or {}

require 'nngraph.graph'
require 'nngraph.node'
require 'nngraph.modules'
require 'nngraph.gmodule'
require 'nngraph.inspect'

-- Note [Node calls]: in Torch7, nngraph replaced nn.Module.__call__ outright: m(x) only built
-- nodes. In Tocha m(x) with a tensor already runs forward (and m(x, gradOutput) backward), and
-- PyTorch-style code relies on it, so loading nngraph keeps that and dispatches on the arguments:
-- m() (no argument), m(node) and m({node, ...}) build a node; anything else calls the class's own
-- __call__ as before. Plain `require 'nn'` is unchanged (nothing in lua/nn knows about nngraph).
-- The dispatch wraps nn.Module's __call__ and the __call__ of every Module or Criterion class
-- defined when nngraph loads that has its own (lua/nn's call parent.__call__ for other inputs,
-- a user's might not); constructors (the class table's __call) are untouched. A class defined
-- later with its own __call__ gets node syntax when that __call__ hands unknown inputs to
-- parent.__call__, or by calling nngraph.wrapCalls() again. A criterion called on nodes becomes
-- an nn.ModuleFromCriterion node (Torch7). Subclasses' wrappers forward m() as
-- parent.__call__(self, nil, nil), so several nil arguments count as m(); one explicit nil,
-- m(nil), is Torch7's error (usually a misspelt variable).
local function is_node(x) return torch.typename(x) == 'nngraph.Node' end

local function wants_node(n, a, ...)
  if n == 0 or is_node(a) then return true end
  if type(a) == 'table' and not torch.typename(a) then
    local first = a[1]
    if is_node(first) then return true end
    if torch.isTensor(first) then return false end  -- a table of tensors: forward, without a scan
    for i = 2, table.maxn(a) do if is_node(a[i]) then return true end end
    return false
  end
  if a == nil then
    if n == 1 then return true end  -- m(nil): build_node reports it
    for i = 1, select('#', ...) do if select(i, ...) ~= nil then return false end end
    return true
  end
  return false
end

local function node_error(fmt, ...) error(string.format(fmt, ...), torch._lib.user_level()) end

-- The node m(...) builds, for module m (Note [Node calls]).
local function build_node(m, n, a, ...)
  local name = torch.typename(m) or 'nn.Module'
  for i = 1, select('#', ...) do
    if select(i, ...) ~= nil then
      node_error('[%s] m(...) with nngraph nodes takes one argument: use {input1, input2} to pass several inputs', name)
    end
  end
  local inputs
  if n == 1 and a == nil then
    node_error('[%s] m(nil): inputs[1] is nil (typo / bad index?); use m() for a graph input', name)
  elseif a == nil then
    inputs = {}
  elseif is_node(a) then
    inputs = { a }
  else
    inputs = a
    for i = 1, table.maxn(a) do
      local v = a[i]
      if not is_node(v) then
        local what = v == nil and 'nil (typo / bad index?)' or (type(v) == 'table' and torch.isTypeOf(v, 'nn.Module'))
          and ('an nn.Module (' .. torch.typename(v) .. '), not a node: did you forget the second set of parentheses?')
          or ('a ' .. (torch.typename(v) or type(v)) .. ', not an nngraph.Node')
        node_error('[%s] inputs[%d] is %s', name, i, what)
      end
    end
  end
  local node = nngraph.Node({ module = m })
  for _, x in ipairs(inputs) do node:add(x, true) end
  return node
end

local function build_criterion_node(c, n, a, ...)
  return build_node(nn.ModuleFromCriterion(c), n, a, ...)
end

local wrapped = setmetatable({}, { __mode = 'k' })

local function wrap(mt, build)
  local own = rawget(mt, '__call__')
  if type(own) ~= 'function' or wrapped[own] then return end
  local function call(self, ...)
    local n = select('#', ...)
    if wants_node(n, ...) then return build(self, n, ...) end
    return own(self, ...)
  end
  wrapped[call] = true
  rawset(mt, '__call__', call)
end

-- Whether class metatable mt is base or inherits from it.
local function inherits(mt, base)
  while mt do
    if mt == base then return true end
    mt = rawget(mt, '__parent')
  end
  return false
end

--- nngraph.wrapCalls(): gives node syntax to every Module and Criterion class defined so far that
--- has its own __call__ (done when nngraph loads; Note [Node calls]).
--- Example: require 'nngraph'; nngraph.wrapCalls()
function nngraph.wrapCalls()
  local Module, Criterion = torch.getmetatable('nn.Module'), torch.getmetatable('nn.Criterion')
  local names = {}
  for name in pairs(torch._metatables) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local mt = torch._metatables[name]
    if type(mt) == 'table' then
      if inherits(mt, Module) then wrap(mt, build_node)
      elseif Criterion and inherits(mt, Criterion) then wrap(mt, build_criterion_node) end
    end
  end
end
nngraph.wrapCalls()

nngraph._loaded = true
package.loaded.nngraph = nngraph
return nngraph
