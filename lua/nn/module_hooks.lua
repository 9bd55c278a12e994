-- PyTorch's module hooks on nn.Module: registerForwardPreHook, registerForwardHook and
-- registerFullBackwardHook, each returning a handle with :remove(), and m:clearHooks().
--
-- Note [Hooks as instance methods]: registering the first hook of a module sets two fields on
-- that instance, forward and backward (shared functions, not closures), that run the hooks
-- around the class's own forward/backward; removing its last hook removes them. A module without
-- hooks is untouched and pays nothing, and hooks fire wherever the module is called: on its own,
-- inside nn.Sequential/Concat/ConcatTable/Parallel (which call their children's forward and
-- backward), through m(input). The hooks themselves live in the instance field _hooks, so:
--  * m:clone() copies them (PyTorch's deepcopy keeps hooks too); a handle removes the hook from
--    the module it was registered on only.
--  * torch.save refuses a module with hooks (functions cannot be saved; the error names the
--    _hooks field): remove them first (handle:remove() or m:clearHooks()), or save m:stateDict().
--
-- Note [Backward hooks]: registerFullBackwardHook(fn) calls fn(module, gradInput, gradOutput)
-- once per backward through the module, with gradInput shaped like the module's input
-- (gradients w.r.t. its inputs) and gradOutput like its output; a non-nil return replaces
-- gradInput. Two ways to run a backward:
--  * autograd (loss:backward(), torch.autograd.grad): as in PyTorch, a module with backward
--    hooks passes its inputs and outputs through identity autograd Functions while grad mode is
--    on; the output one records gradOutput, the input one calls the hooks and returns their
--    gradInput. Inputs that need no gradient have nil entries; when none of the inputs needs one
--    (the first layer on data), the hooks fire from the output side with gradInput nil and may not
--    replace it (PyTorch raises there too). Hooks fire in the order autograd reaches the modules:
--    a container's after its children's when its input needs a gradient. The outputs are then
--    aliases made by a Function, so recorded in-place ops on them (y:pow(2) with grad mode on)
--    are refused as on any view with history; PyTorch refuses them too.
--  * Torch7 (m:backward(input, gradOutput)): the hooks fire after the class's backward with
--    m.gradInput; a replacement becomes m.gradInput and the return value, which containers pass
--    on. Torch7's separate updateGradInput/accGradParameters calls do not fire hooks, and a
--    forward pre-hook's replacement input is not what containers pass to backward (they pass the
--    previous module's output): use autograd for those cases.
local lib = require 'torch.lib'
local types = require 'torch.types'
local Module = nn.Module
local unpack = table.unpack or unpack

local REGISTER = { forwardPre = 'nn.Module.registerForwardPreHook', forward = 'nn.Module.registerForwardHook',
                   backward = 'nn.Module.registerFullBackwardHook' }
local BACKWARD_OP = REGISTER.backward

local function copy(list)
  local r = {}
  for i = 1, #list do r[i] = list[i] end
  return r
end

-- ---- nested inputs and outputs: positional flattening (nil where a tensor is missing) ----------

-- true for a tensor, a table of shapes for a table, false for anything else.
local function shape_of(x)
  if torch.isTensor(x) then return true end
  if type(x) == 'table' then
    local r = {}
    for i, v in ipairs(x) do r[i] = shape_of(v) end
    return r
  end
  return false
end

local function flatten_by(shape, x, out)
  if shape == true then
    out.n = out.n + 1
    out[out.n] = torch.isTensor(x) and x or nil
  elseif type(shape) == 'table' then
    for i, s in ipairs(shape) do flatten_by(s, type(x) == 'table' and x[i] or nil, out) end
  end
  return out
end

local function build(shape, flat, pos)
  if shape == true then return flat[pos + 1], pos + 1 end
  if type(shape) == 'table' then
    local r = {}
    for i, s in ipairs(shape) do r[i], pos = build(s, flat, pos) end
    return r, pos
  end
  return nil, pos
end

local function dims_str(d) return #d == 0 and 'scalar' or table.concat(d, 'x') end
local function size_str(t) return dims_str(t:size():totable()) end
local function has_dims(t, d)
  if t:dim() ~= #d then return false end
  for i = 1, #d do if t:size(i) ~= d[i] then return false end end
  return true
end

-- ---- the hooks around forward and backward ----------------------------------------------------

-- Calls the backward hooks of `module` in order; each may replace gradInput.
local function run_backward_hooks(module, gradInput, gradOutput)
  for _, e in ipairs(copy(module._hooks and module._hooks.backward or {})) do
    local r = e.fn(module, gradInput, gradOutput)
    if r ~= nil then gradInput = r end
  end
  return gradInput
end

-- A replacement gradInput from a hook under autograd must have gradInput's structure: a tensor (or
-- nil) where the input has a tensor, a table (or nil) where it has a table. Anything else (a
-- number, {gi} for a tensor input) used to flatten to nil: the gradient was dropped silently.
local function check_structure(module, r, shape, where)
  if shape == true then
    if r ~= nil and not torch.isTensor(r) then
      lib.fail(BACKWARD_OP, 'the hook of %s returned %s where gradInput%s is a tensor',
               tostring(module):match('^[^\n]*'), types.describe(r), where)
    end
  elseif type(shape) == 'table' and r ~= nil then
    if type(r) ~= 'table' then
      lib.fail(BACKWARD_OP, 'the hook of %s returned %s where gradInput%s is a table',
               tostring(module):match('^[^\n]*'), types.describe(r), where)
    end
    for i, s in ipairs(shape) do check_structure(module, r[i], s, where .. '[' .. i .. ']') end
  end
end

local HookIn = torch.autograd.Function('nn.BackwardHookInput')
function HookIn.forward(ctx, st, ...)
  ctx.st = st
  return ...
end
function HookIn.backward(ctx, ...)
  local st = ctx.st
  local module = st.ref[1]
  if module == nil then return nil, ... end  -- the module was collected: no hook to run
  local flat = {}
  for j, k in ipairs(st.need) do flat[k] = (select(j, ...)) end
  local gradInput = build(st.shape, flat, 0)
  local r = run_backward_hooks(module, gradInput, st.gradOutput)
  if r ~= gradInput then check_structure(module, r, st.shape, '') end
  local res = { n = #st.need + 1 }
  -- (flattened again even when r is gradInput itself: a hook may have set its entries in place)
  local rflat = flatten_by(st.shape, r, { n = 0 })
  for j, k in ipairs(st.need) do
    local g = rflat[k]
    if g ~= nil and not (torch.isTensor(g) and has_dims(g, st.dims[j])) then
      lib.fail(BACKWARD_OP, 'the hook of %s returned %s for an input of size %s', tostring(module):match('^[^\n]*'),
               torch.isTensor(g) and ('a gradInput of size ' .. size_str(g)) or types.describe(g), dims_str(st.dims[j]))
    end
    res[j + 1] = g
  end
  return unpack(res, 1, res.n)
end

local HookOut = torch.autograd.Function('nn.BackwardHookOutput')
function HookOut.forward(ctx, st, ...)
  ctx.st = st
  return ...
end
function HookOut.backward(ctx, ...)
  local st = ctx.st
  local flat = {}
  for j, k in ipairs(st.outNeed) do flat[k] = (select(j, ...)) end
  st.gradOutput = build(st.outShape, flat, 0)
  local module = st.ref[1]
  if #st.need == 0 and module ~= nil then
    local gi = build(st.shape, {}, 0)
    if run_backward_hooks(module, gi, st.gradOutput) ~= gi then
      lib.fail(BACKWARD_OP, 'the hook of %s returned a gradInput, but no input of the module needs a gradient, '
               .. 'so there is none to replace', tostring(module):match('^[^\n]*'))
    end
  end
  return nil, ...
end

-- Passes the tensors of x that need a gradient through Function F; returns the new x, the flat
-- positions that went through and their sizes.
local function route(F, st, x, shape)
  local flat = flatten_by(shape, x, { n = 0 })
  local need, tensors, dims = {}, {}, {}
  for k = 1, flat.n do
    local t = flat[k]
    if t ~= nil and t:needsGrad() then
      need[#need + 1] = k
      tensors[#tensors + 1] = t
      dims[#dims + 1] = t:size():totable()
    end
  end
  if #need == 0 then return x, need, dims end
  local out = { F.apply(st, unpack(tensors)) }
  for j, k in ipairs(need) do flat[k] = out[j] end
  if shape == true then return flat[1], need, dims end
  return nn.utils.rebuild(x, flat, true), need, dims  -- the non-tensor entries of x kept
end

-- Note [Hook state holds no tensors]: the state of one forward (st, kept by both Functions' nodes
-- until the graph goes) holds the input sizes rather than the inputs, so no activation stays alive
-- for it, and the module weakly: the module's output carries these nodes, so a strong reference
-- would be a cycle through the C++ graph that keeps a dropped module alive.
local weak_values = { __mode = 'v' }

local function hooked_forward(self, input)
  local forward = getmetatable(self).forward
  local H = rawget(self, '_hooks')
  if not H then return forward(self, input) end
  for _, e in ipairs(copy(H.forwardPre)) do
    local r = e.fn(self, input)
    if r ~= nil then input = r end
  end
  local st
  if #H.backward > 0 and torch.isGradEnabled() then
    st = { ref = setmetatable({ self }, weak_values), shape = shape_of(input) }
    input, st.need, st.dims = route(HookIn, st, input, st.shape)
  end
  local output = forward(self, input)
  for _, e in ipairs(copy(H.forward)) do
    local r = e.fn(self, input, output)
    if r ~= nil then output = r end
  end
  if st then
    st.outShape = shape_of(output)
    output, st.outNeed = route(HookOut, st, output, st.outShape)
  end
  self.output = output
  return output
end

-- Checks that a Torch7-style replacement gradInput has the structure and sizes of the original.
local function check_like(module, r, orig)
  if torch.isTensor(orig) then
    if not torch.isTensor(r) or not r:isSameSizeAs(orig) then
      lib.fail(BACKWARD_OP, 'the hook of %s returned %s for a gradInput of size %s', tostring(module):match('^[^\n]*'),
               torch.isTensor(r) and ('a gradInput of size ' .. size_str(r)) or types.describe(r), size_str(orig))
    end
  elseif type(orig) == 'table' then
    if type(r) ~= 'table' then
      lib.fail(BACKWARD_OP, 'the hook of %s returned %s for a table gradInput', tostring(module):match('^[^\n]*'),
               types.describe(r))
    end
    for i, v in ipairs(orig) do check_like(module, r[i], v) end
  end
end

local function hooked_backward(self, input, gradOutput, scale)
  local backward = getmetatable(self).backward
  local H = rawget(self, '_hooks')
  local gi = backward(self, input, gradOutput, scale)
  if not H or #H.backward == 0 then return gi end
  local r = run_backward_hooks(self, gi, gradOutput)
  if r ~= gi then
    check_like(self, r, gi)
    self.gradInput = r
  end
  return r
end

-- ---- registration -------------------------------------------------------------------------------

local Handle = {}
Handle.__index = Handle

local function uninstall_if_empty(m)
  local H = rawget(m, '_hooks')
  if H and #H.forwardPre == 0 and #H.forward == 0 and #H.backward == 0 then
    rawset(m, '_hooks', nil)
    if rawget(m, 'forward') == hooked_forward then rawset(m, 'forward', nil) end
    if rawget(m, 'backward') == hooked_backward then rawset(m, 'backward', nil) end
  end
end

--- handle:remove(): unregisters the hook (a no-op the second time).
--- Example: nn.Linear(2, 2):registerForwardHook(function() end):remove()
function Handle:remove()
  local H = rawget(self.module, '_hooks')
  if not H then return end
  local list = H[self.kind]
  for i = #list, 1, -1 do
    if list[i] == self.entry then table.remove(list, i) end
  end
  uninstall_if_empty(self.module)
end

local function register(self, kind, fn)
  if type(fn) ~= 'function' then lib.fail(REGISTER[kind], 'expected a function, got %s', types.describe(fn)) end
  local H = rawget(self, '_hooks')
  if not H then
    H = { forwardPre = {}, forward = {}, backward = {} }
    rawset(self, '_hooks', H)
    rawset(self, 'forward', hooked_forward)
    rawset(self, 'backward', hooked_backward)
  end
  local entry = { fn = fn }
  table.insert(H[kind], entry)
  return setmetatable({ module = self, kind = kind, entry = entry }, Handle)
end

--- m:registerForwardPreHook(fn): fn(module, input) runs before each forward of m; a non-nil
--- return replaces the input. Returns a handle; handle:remove() unregisters it.
--- Example: local h = nn.Linear(2, 2):registerForwardPreHook(function(m, x) return x * 2 end) h:remove()
function Module:registerForwardPreHook(fn) return register(self, 'forwardPre', fn) end

--- m:registerForwardHook(fn): fn(module, input, output) runs after each forward of m; a non-nil
--- return replaces the output. Returns a handle; handle:remove() unregisters it.
--- Example: local h = nn.Linear(2, 2):registerForwardHook(function(m, x, y) print(y:size(2)) end) h:remove()
function Module:registerForwardHook(fn) return register(self, 'forward', fn) end

--- m:registerFullBackwardHook(fn): fn(module, gradInput, gradOutput) runs once per backward
--- through m (autograd's loss:backward() or Torch7's m:backward()); a non-nil return replaces
--- gradInput (Note [Backward hooks]). Returns a handle; handle:remove() unregisters it.
--- Example: local h = nn.Linear(2, 2):registerFullBackwardHook(function(m, gi, go) end) h:remove()
function Module:registerFullBackwardHook(fn) return register(self, 'backward', fn) end

--- m:clearHooks(): removes every hook of m and of the modules inside it (before torch.save, or
--- on a clone, whose hooks no handle reaches); returns m.
--- Example: local m = nn.Linear(2, 2) m:registerForwardHook(print) m:clearHooks()
function Module:clearHooks()
  for _, mod in self:namedModules() do
    local H = rawget(mod, '_hooks')
    if H then
      H.forwardPre, H.forward, H.backward = {}, {}, {}
      uninstall_if_empty(mod)
    end
  end
  return self
end

return Module
