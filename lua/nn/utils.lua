-- nn.utils: helpers the modules share: parameter flattening (getParameters), gradient linking,
-- deep copies that keep tensor sharing, type conversion, autograd backward of modules without a
-- hand-written one, table-shaped outputs, and model:summary().
local utils = {}
-- Note [nn errors at the user's line]: nn's "[nn.X] ..." errors are raised at
-- torch._lib.user_level() (the first frame outside lua/, Note [Error levels] in lua/torch/lib.lua).
-- They used level 0 (no position at all) in forward/backward checks and level 2 in constructors,
-- which from __init is torch.class's __call (the message said lua/torch/class.lua:105).
local S = require 'nn.support'
local lib_dtype = require('torch.lib').dtype
local lib_dtype_i64, lib_dtype_u8 = lib_dtype.i64, lib_dtype.u8
nn.utils = utils
nn.Module._attach_utils(utils)

local each_tensor = nn.Module._each_tensor

--- utils.describe(x): "torch.FloatTensor of size 2x3" for a tensor, the type name otherwise (for
--- error messages that say what a module received).
function utils.describe(x)
  if torch.isTensor(x) then
    local n = x:dim()
    local dims = {}
    for i = 1, n do dims[i] = x:size(i) end
    return torch.type(x) .. ' of size ' .. (n == 0 and 'scalar' or table.concat(dims, 'x'))
  end
  return torch.type(x)
end

-- t when it is a tensor of dtype `dtype` on like's device, else a new empty one there. A non-tensor
-- `like` (a bad input the module reports next) means a CPU buffer meanwhile.
local function typed_buffer(t, like, dtype, make)
  local lp = torch.isTensor(like) and like.p or { device_type = 0, device_index = 0 }
  if torch.isTensor(t) then
    local p = t.p
    if p.dtype == dtype and p.device_type == lp.device_type and p.device_index == lp.device_index then
      return t
    end
  end
  local b = make()
  if lp.device_type ~= 0 then b = b:to(like:device()) end
  return b
end

--- utils.maskBuffer(t, like): t when it is a ByteTensor on like's device, else a new one there
--- (modules keep comparison masks in ByteTensor buffers, which type conversion such as m:double()
--- may have turned into floats, and which follow the compared tensor to the GPU).
function utils.maskBuffer(t, like)
  return (typed_buffer(t, like, lib_dtype_u8, torch.ByteTensor))
end

--- utils.buffer(t, like): t when it has like's type, else a new empty tensor of that type (the
--- scratch tensors modules reuse between calls).
function utils.buffer(t, like)
  if t ~= nil and t.p.dtype == like.p.dtype and t.p.device_type == like.p.device_type then return t end
  return like.new()
end

--- utils.softmaxDim(module, input): the dim Torch7's SoftMax family normalizes over: the only dim
--- of a vector, dim 2 of a batch (N x C), dim 1 of C x H x W and dim 2 of N x C x H x W.
function utils.softmaxDim(module, input)
  utils.checkFloatInput(module, input)
  local n = input:dim()
  if n == 1 or n == 3 then return 1 elseif n == 2 or n == 4 then return 2 end
  error(string.format('[%s] expected a vector, a batch (N x C), C x H x W or N x C x H x W, got %s',
    tostring(module), utils.describe(input)), torch._lib.user_level())
end

--- utils.targetAs(criterion, input, target): target as a tensor of input's type and size, after
--- checking (naming the criterion) that it is a tensor with as many elements as input.
function utils.targetAs(crit, input, target)
  utils.checkFloatInput(crit, input, 'a floating-point input tensor')
  if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
    error(string.format('[%s] input is %s but target is %s (they need as many elements)', tostring(crit),
      utils.describe(input), utils.describe(target)), torch._lib.user_level())
  end
  if target.p.dtype ~= input.p.dtype then target = target:typeAs(input) end
  if not target:isSameSizeAs(input) then target = target:contiguous():viewAs(input) end
  return target
end

--- utils.isTensorOfRank(x, ...): x is a tensor whose dim() is one of the given numbers.
function utils.isTensorOfRank(x, ...)
  if not torch.isTensor(x) then return false end
  local d = x:dim()
  for i = 1, select('#', ...) do if d == select(i, ...) then return true end end
  return false
end

--- utils.recursiveResizeAs(t1, t2): t1 (tensors or nested tables of them) resized like t2, with
--- t2's tensor types; returns t1, t2 (Torch7).
function utils.recursiveResizeAs(t1, t2)
  if type(t2) == 'table' then
    t1 = type(t1) == 'table' and t1 or {}
    for k in pairs(t2) do t1[k], t2[k] = utils.recursiveResizeAs(t1[k], t2[k]) end
    for k in pairs(t1) do if t2[k] == nil then t1[k] = nil end end
  elseif torch.isTensor(t2) then
    t1 = torch.isTensor(t1) and utils.buffer(t1, t2) or t2.new()
    t1:resizeAs(t2)
  else
    error('nn.utils.recursiveResizeAs: expected tensors or tables, got ' .. torch.type(t2), 2)
  end
  return t1, t2
end

--- utils.recursiveFill(t, value): fills every tensor of t (a tensor or nested tables); returns t.
function utils.recursiveFill(t, value)
  if type(t) == 'table' then
    for k in pairs(t) do t[k] = utils.recursiveFill(t[k], value) end
  elseif torch.isTensor(t) then
    t:fill(value)
  else
    error('nn.utils.recursiveFill: expected tensors or tables, got ' .. torch.type(t), 2)
  end
  return t
end

--- utils.recursiveAdd(t1, [value,] t2): t1 += value * t2 over matching tensors of nested tables;
--- returns t1, t2 (Torch7).
function utils.recursiveAdd(t1, value, t2)
  if t2 == nil then value, t2 = 1, value end
  if type(t2) == 'table' then
    t1 = type(t1) == 'table' and t1 or {}
    for k in pairs(t2) do t1[k], t2[k] = utils.recursiveAdd(t1[k], value, t2[k]) end
  elseif torch.isTensor(t1) and torch.isTensor(t2) then
    t1:add(value, t2)
  else
    error('nn.utils.recursiveAdd: expected tensors or tables, got ' .. torch.type(t1) .. ' and ' .. torch.type(t2), 2)
  end
  return t1, t2
end

--- utils.checkFloatInput(module, input[, what]): errors naming the module (tostring, with its
--- configuration) unless input is a floating-point tensor.
function utils.checkFloatInput(module, input, what)
  if not torch.isTensor(input) or input.p.dtype > 3 then  -- dtypes 0-3: f32, f64, f16, bf16
    error(string.format('[%s] expected %s, got %s', tostring(module), what or 'a floating-point tensor',
      utils.describe(input)), torch._lib.user_level())
  end
end

--- utils.isFloating(t): true for a tensor of a floating dtype (f32, f64, f16, bf16) on any device
--- (type names cannot tell: torch.CudaTensor is a float tensor).
function utils.isFloating(t)
  return torch.isTensor(t) and t.p.dtype <= 3  -- dtypes 0-3: f32, f64, f16, bf16
end

--- utils.longBuffer(t, like): t when it is a LongTensor on like's device, else a new empty one
--- there (index buffers such as max-pooling indices stay LongTensors whatever m:type() did, and
--- follow the input to the GPU).
function utils.longBuffer(t, like)
  return (typed_buffer(t, like, lib_dtype_i64, torch.LongTensor))
end

--- Makes every parameter require grad and point .grad at its gradient tensor (gradWeight...),
--- so autograd accumulates where Torch7-style code reads (Note [Modules and autograd]).
function utils.linkGradients(module)
  -- Note [Freezing] (nn/module_pytorch.lua): the parameters of frozen modules stay frozen, also
  -- where a container's parameters() lists them
  local frozen = {}
  local function mark(m)
    if not m._frozen then return end
    for _, p in ipairs(m:parameters() or {}) do frozen[torch.pointer(p)] = true end
  end
  -- apply also reaches the modules held in fields (Note [Submodules in fields])
  local walk = module.modules or type(module.apply) == 'function'
  if walk then module:apply(mark) else mark(module) end
  local function link(m)
    local params, grads = m:parameters()
    if not params then return end
    for i, p in ipairs(params) do
      local g = grads and grads[i]
      if utils.isFloating(p) and not frozen[torch.pointer(p)] then
        if not p:needsGrad() then p:requiresGrad() end
        if g and g:isSameSizeAs(p) and g:type() == p:type() then p.grad = g end
      end
    end
  end
  if walk then module:apply(link) else link(module) end
end

local SLOT = setmetatable({}, { __tostring = function() return 'nn.utils.SLOT' end })
-- The nesting of a table of tensors with every tensor replaced by a slot marker: a template for
-- rebuild that keeps no tensor alive.
function utils.skeleton(x)
  if torch.isTensor(x) then return SLOT end
  if type(x) ~= 'table' then return x end
  local r = {}
  for i, v in ipairs(x) do r[i] = utils.skeleton(v) end
  return r
end

-- Rebuilds a table shaped like `template` (tensors or skeleton slots) from a flat list of tensors
-- (tensor leaves in order).
function utils.rebuild(template, flat, allow_nil)
  local k = 0
  local function walk(t)
    if t == SLOT or torch.isTensor(t) then
      k = k + 1
      local v = flat[k]
      if v == nil and not allow_nil then error('nn: missing tensor ' .. k, 0) end
      return v
    elseif type(t) == 'table' then
      local r = {}
      for i, v in ipairs(t) do r[i] = walk(v) end
      return r
    end
    return t
  end
  return walk(template)
end

-- A deep copy of tables (keeping their metatables), tensors and storages. Tensors that shared a
-- storage share the copied storage, at the same offsets.
function utils.deepCopy(obj)
  local seen, storages = {}, {}
  local function copy_tensor(t)
    if t:nElement() == 0 and t:storage() == nil then return t.new() end
    local key = torch.pointer(t:storage()) .. ':' .. t:type()
    local s = storages[key]
    if not s then
      local src = t:storage()
      if t.p.device_type ~= 0 then
        -- a device storage is copied as a flat tensor on its device (Storage types are CPU's)
        s = t.new():set(src, 1, torch.LongStorage({ src:size() })):clone():storage()
      else
        s = torch[src:type():match('^torch%.(.+)$')](src:size()):copy(src)
      end
      storages[key] = s
    end
    local r = t.new()
    if t:dim() == 0 then
      r = t:clone()
    else
      r:set(s, t:storageOffset(), t:size(), t:stride())
    end
    if t:needsGrad() and t:isLeaf() then r:requiresGrad() end
    return r
  end
  local function rec(v)
    if torch.isTensor(v) then
      local p = torch.pointer(v)
      if seen[p] == nil then seen[p] = copy_tensor(v) end
      return seen[p]
    elseif type(v) == 'table' then
      if seen[v] then return seen[v] end
      local r = {}
      seen[v] = r
      for k, x in pairs(v) do r[rec(k)] = rec(x) end
      return setmetatable(r, getmetatable(v))
    end
    return v
  end
  return rec(obj)
end

-- Converts every tensor reachable from obj to type name, keeping shared storages shared.
function utils.convertTensors(obj, name, cache)
  local storages = cache._storages or {}
  cache._storages = storages
  local function convert(t)
    if t:type() == name then return t end
    local p = torch.pointer(t)
    if cache[p] then return cache[p] end
    local r
    if t:dim() > 0 and t:storage() then
      local key = torch.pointer(t:storage())
      local s = storages[key]
      if not s then
        local flat = torch.Tensor():type(t:type()):set(t:storage()):type(name)
        s = flat:storage()
        storages[key] = s
      end
      r = torch.Tensor():type(name):set(s, t:storageOffset(), t:size(), t:stride())
    else
      r = t:type(name)
    end
    cache[p] = r
    return r
  end
  local visited = {}
  local function walk(tbl)
    if visited[tbl] then return end
    visited[tbl] = true
    for k, v in pairs(tbl) do
      if torch.isTensor(v) then tbl[k] = convert(v)
      elseif type(v) == 'table' then
        -- a module or criterion held in a field converts itself (Torch7's recursiveType), so
        -- its own type() rules hold (nn.Copy's dontCast, nn.DontCast)
        if v ~= obj and (torch.isTypeOf(v, 'nn.Module') or torch.isTypeOf(v, 'nn.Criterion')) then
          visited[v] = true
          v:type(name, cache)
        else
          walk(v)
        end
      end
    end
  end
  walk(obj)
end

-- Whether the tensors already tile one storage exactly (a second getParameters): contiguous,
-- one storage, and their distinct pieces (a shared tensor may be listed twice) end to end.
local function already_flat(list)
  local storage = torch.pointer(list[1]:storage())
  local pieces = {}
  for _, t in ipairs(list) do
    if not t:isContiguous() or torch.pointer(t:storage()) ~= storage then return false end
    local off, n = t:storageOffset(), t:nElement()
    if pieces[off] and pieces[off] ~= n then return false end
    pieces[off] = n
  end
  local offsets = {}
  for off in pairs(pieces) do offsets[#offsets + 1] = off end
  table.sort(offsets)
  local next_off = 1
  for _, off in ipairs(offsets) do
    if off ~= next_off then return false end
    next_off = off + pieces[off]
  end
  return next_off - 1 == list[1]:storage():size()
end

--- One contiguous tensor holding the given tensors; each tensor is re-pointed into it (its
--- values kept). Tensors already laid out in one storage without gaps are only viewed.
function utils.flatten(list)
  if not list or #list == 0 then return torch.Tensor() end
  local proto = list[1]
  if already_flat(list) then return proto.new(proto:storage(), 1, proto:storage():size()) end
  -- Storages shared by several tensors are copied once and the tensors keep their offsets in it.
  local order, info = {}, {}
  for _, t in ipairs(list) do
    local key = torch.pointer(t:storage())
    if not info[key] then
      info[key] = { storage = t:storage(), size = t:storage():size() }
      order[#order + 1] = key
    end
  end
  local flat_size = 0
  for _, key in ipairs(order) do
    info[key].offset = flat_size
    flat_size = flat_size + info[key].size
  end
  local flat = proto.new(flat_size):zero()
  local fs = flat:storage()
  for _, key in ipairs(order) do
    local i = info[key]
    if i.size > 0 then flat:narrow(1, i.offset + 1, i.size):copy(proto.new(i.storage, 1, i.size)) end
  end
  -- Note [Holes in getParameters]: storage outside every tensor's span (a parameter viewing part
  -- of a bigger tensor; a second getParameters after a layer was removed, whose old flat storage
  -- still held the removed layer's values) is dropped, as Torch7's flatten does: the flat vector
  -- held stale values, and the parameter and gradient vectors could differ in length. Whole spans
  -- are kept, so strides stay valid and sharing within a span survives.
  local offsets, spans = {}, {}
  for k, t in ipairs(list) do
    offsets[k] = info[torch.pointer(t:storage())].offset + t:storageOffset()
    if t:nElement() > 0 then
      local last = offsets[k]
      for d = 1, t:dim() do last = last + (t:size(d) - 1) * t:stride(d) end
      spans[#spans + 1] = { offsets[k], last }
    end
  end
  table.sort(spans, function(x, y) return x[1] < y[1] end)
  local runs, n_used = {}, 0  -- merged spans: {first, last, first in the compacted vector}
  for _, sp in ipairs(spans) do
    local r = runs[#runs]
    if r and sp[1] <= r[2] + 1 then
      if sp[2] > r[2] then n_used = n_used + sp[2] - r[2] r[2] = sp[2] end
    else
      runs[#runs + 1] = { sp[1], sp[2], n_used + 1 }
      n_used = n_used + sp[2] - sp[1] + 1
    end
  end
  if n_used < flat_size then
    local compact = proto.new(n_used)
    for _, r in ipairs(runs) do
      compact:narrow(1, r[3], r[2] - r[1] + 1):copy(flat:narrow(1, r[1], r[2] - r[1] + 1))
    end
    for k, t in ipairs(list) do
      if t:nElement() == 0 then offsets[k] = 1
      else
        for _, r in ipairs(runs) do
          if offsets[k] >= r[1] and offsets[k] <= r[2] then offsets[k] = offsets[k] - r[1] + r[3] break end
        end
      end
    end
    flat, fs = compact, compact:storage()
  end
  for k, t in ipairs(list) do
    local needs = t:needsGrad()
    t:set(fs, offsets[k], t:size(), t:stride())
    if needs and not t:needsGrad() then t:requiresGrad() end
  end
  return flat
end

--- nn.utils.resetUniform(m, fanIn[, stdv]): Torch7's default reset of a layer with a weight and an
--- optional bias: both uniform(-s, s), s = stdv * sqrt(3) when stdv is given, else 1/sqrt(fanIn);
--- the gradients zeroed and linked to the parameters. Returns m.
function utils.resetUniform(m, fanIn, stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(fanIn)
  m.weight:uniform(-stdv, stdv)
  if m.bias then m.bias:uniform(-stdv, stdv) end
  m.gradWeight:zero()
  if m.gradBias then m.gradBias:zero() end
  utils.linkGradients(m)
  return m
end

--- nn.utils.noBias(m): drops m's bias and its gradient (Torch7's layer:noBias()). Returns m.
function utils.noBias(m)
  m.bias, m.gradBias = nil, nil
  return m
end

-- Torch7-style backward of a module without updateGradInput (Note [Modules and autograd]): re-runs
-- its forward with recording on from detached inputs and asks autograd for the gradients. `what`
-- is 'input' (gradInput only: Module:updateGradInput), 'params' (the parameter gradients only,
-- accumulated times scale: Module:accGradParameters) or nil (both: Module:backward).
function utils.autogradBackward(module, input, gradOutput, scale, what)
  local want_input, want_params = what ~= 'params', what ~= 'input'
  local inputs = {}
  local function detach(x)
    if torch.isTensor(x) then
      local d = x:detach()
      if want_input and utils.isFloating(d) then d:requiresGrad() end
      inputs[#inputs + 1] = d
      return d
    elseif type(x) == 'table' then
      local r = {}
      for i, v in ipairs(x) do r[i] = detach(v) end
      return r
    end
    return x
  end
  local wrapped = detach(input)
  local params, grads
  if want_params then params, grads = module:parameters() end
  params, grads = params or {}, grads or {}
  local out = torch.enableGrad(module.updateOutput, module, wrapped)
  S.checkLike(tostring(module), 'gradOutput', gradOutput, out, true)
  local outs, gos = {}, {}
  each_tensor(out, function(t) outs[#outs + 1] = t end)
  each_tensor(gradOutput, function(t) gos[#gos + 1] = t end)
  local targets = {}
  for _, t in ipairs(inputs) do if t:needsGrad() then targets[#targets + 1] = t end end
  local np = #targets
  for _, p in ipairs(params) do targets[#targets + 1] = p end
  local needed = {}
  for k, o in ipairs(outs) do if o:needsGrad() then needed[#needed + 1] = k end end
  local gs = {}
  if #needed > 0 and #targets > 0 then
    local o2, g2 = {}, {}
    for _, k in ipairs(needed) do o2[#o2 + 1] = outs[k] g2[#g2 + 1] = gos[k] end
    gs = torch.autograd.grad(o2, targets, g2, { allowUnused = true })
  end
  if want_input then
    local k = 0
    local function gather(x)
      if torch.isTensor(x) then
        k = k + 1
        local t = inputs[k]
        local g = nil
        for j = 1, np do if targets[j] == t then g = gs[j] end end
        -- new():resize(): t.new(t:size()) of a LongTensor would view the size storage
        return g or t.new():resize(t:size()):zero()
      elseif type(x) == 'table' then
        local r = {}
        for i, v in ipairs(x) do r[i] = gather(v) end
        return r
      end
    end
    module.gradInput = gather(input)
  end
  for i = 1, #params do
    local g = gs[np + i]
    if g and grads[i] then grads[i]:add(scale or 1, g) end
  end
  module.output = out
end

return utils
