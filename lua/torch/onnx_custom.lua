-- The exporter handed to a module's onnxExport(self, E, x) by torch.onnx.export: E:emit and E:run
-- walk the module's children (parameter names follow the state dict), and the primitives add the
-- glue ops a custom forward uses between them (add, mul, concat, activations, flatten, reshape,
-- transpose, narrow, channel shuffle, global average pool, mean, dropout as the identity).
--
-- Note [ONNX export of custom forwards]: the walk converts containers and leaves it knows by class
-- name; a module whose forward is its own code (torchvision's blocks in lua/nn/models, or a user's
-- module) exports through a method next to that forward, onnxExport(self, E, x), as PyTorch's
-- symbolic functions do for ops. x is the exported value of the input (a value, or a list of them
-- for a module taking a table) and the method returns the output value(s), built only with E's
-- calls. Each value carries the sample run's tensor (v.t), so every primitive computes its sample
-- output with Tocha's ops and the method may read sizes (E:size(v, d)) to choose its graph, as a
-- forward does; the shapes of value_info come from those samples. A child runs through E:emit(child,
-- x, 'fieldName'), which names its parameters 'layer1.0.conv1.weight' as PyTorch's exporter does
-- and its nodes '/layer1/0/conv1/Conv'; E:run(x, 'conv1', 'bn1', ...) chains children by field
-- name and folds a batch norm into the convolution before it as nn.Sequential does. The walk runs
-- the module's forward on the same sample input (evaluation mode) and compares it with the sample
-- the export computed, so an onnxExport that drifted from its forward is an error naming the module
-- rather than a silently different file (Note [Checking custom exports once], onnx_walk.lua).
-- nn.models.Named's default onnxExport runs the children in order and refuses a subclass that
-- overrides updateOutput without an onnxExport of its own.
local lib = require 'torch.lib'
local U = require 'torch.onnx_util'
local L = require 'torch.onnx_layers'

local M = {}
local E = {}
E.__index = E

--- onnx_custom.new(G, W, m, ctx): the exporter for module m at ctx (G: graph, W: the walk).
function M.new(G, W, m, ctx)
  return setmetatable({ G = G, W = W, m = m, ctx = ctx }, E)
end

--- E:fail(fmt, ...): an error of torch.onnx.export naming this module and its position.
function E:fail(fmt, ...)
  lib.fail('torch.onnx.export', '%s: ' .. fmt, self.ctx.where, ...)
end

local function check(self, v, what)
  if type(v) ~= 'table' or not v.name or not torch.isTensor(v.t) then
    self:fail('%s must be an exported value (an input of onnxExport or a result of E), got %s', what, type(v))
  end
  return v
end

-- Note [Negative dims in E]: dims are 1-based and may count from the end (-1 is the last), as in
-- Tocha's ops. The sample output is computed by those ops, which read -1 correctly, while the ONNX
-- axis was written as d - 1 (-2, the dim before the last): the export check compared two samples
-- and passed, and the file reduced, sliced or joined the wrong axis. E resolves d first.
local function dim(self, v, d, what)
  local r = #v.shape
  if type(d) ~= 'number' or d ~= math.floor(d) or d == 0 or d < -r or d > r then
    self:fail('%s: dim %s is out of range for a %dD value (1..%d, or -%d..-1 from the end)', what, tostring(d), r, r, r)
  end
  return d < 0 and d + r + 1 or d
end

local function child_ctx(ctx, m, name)
  local s = tostring(name)
  local ident = type(name) == 'string' and s:match('^[%a_][%w_]*$')
  local pos = ident and (ctx.pos .. '.' .. s) or string.format('%s[%s]', ctx.pos, type(name) == 'string' and
    string.format('%q', s) or s)
  return { path = ctx.path .. '/' .. s, param = ctx.param == '' and s or ctx.param .. '.' .. s, pos = pos,
    where = torch.typename(m) .. ' at ' .. pos }
end

--- E:emit(child, x, fieldName): child's nodes for input x (a value or a list), walked as any module
--- (parameters named '<this module's prefix>.fieldName.weight'); returns its output value(s).
--- Example: function Block:onnxExport(E, x) return E:relu(E:emit(self.conv, x, 'conv')) end
function E:emit(m, x, name)
  if type(m) ~= 'table' or not m.forward then self:fail('E:emit expects a child module, got %s', type(m)) end
  if type(name) ~= 'string' and type(name) ~= 'number' then
    self:fail('E:emit expects the child\'s field name, got %s', type(name))
  end
  return self.W.emit(self.G, m, x, child_ctx(self.ctx, m, name))
end

--- E:run(x, name1, name2, ...): the children self[name1], self[name2], ... applied in turn to x
--- (a batch norm right after a convolution is folded into it, as in nn.Sequential).
--- Example: function Basic:onnxExport(E, x) return E:relu(E:run(x, 'conv1', 'bn1')) end
function E:run(x, ...)
  local mods, ctxs = {}, {}
  for i, name in ipairs({ ... }) do
    local m = self.m[name]
    if type(m) ~= 'table' or not m.forward then self:fail('E:run: field %s is not a child module', tostring(name)) end
    mods[i], ctxs[i] = m, child_ctx(self.ctx, m, name)
  end
  return self.W.chain(self.G, mods, ctxs, x)
end

--- E:size(v[, d]): the sample run's size of value v along 1-based dim d (all sizes as a list without d).
--- Example: local half = E:size(x, 2) / 2
function E:size(v, d)
  check(self, v, 'E:size\'s value')
  if d == nil then return self.G:dims(v.t) end
  return v.shape[dim(self, v, d, 'E:size')]
end

local function merged(a, b)
  local d = U.keep(a)
  local off = #a.shape - #b.shape  -- numpy broadcasting aligns the trailing dims
  for k, p in pairs(b.dyn) do if k + off >= 1 then d[k + off] = d[k + off] or p end end
  return d
end

local function binary(op, fn)
  return function(self, a, b)
    check(self, a, 'E:' .. op:lower() .. '\'s first operand')
    check(self, b, 'E:' .. op:lower() .. '\'s second operand')
    if #b.shape > #a.shape then a, b = b, a end
    return self.G:node(self.ctx.path, op, { a, b }, nil, fn(a.t, b.t), merged(a, b))
  end
end
--- E:add(a, b): a + b (ONNX Add, NumPy broadcasting).
--- Example: return E:relu(E:add(out, identity))
E.add = binary('Add', function(a, b) return torch.add(a, b) end)
--- E:mul(a, b): a * b elementwise (ONNX Mul, NumPy broadcasting; squeeze-and-excitation's scaling).
--- Example: return E:mul(x, scale)
E.mul = binary('Mul', function(a, b) return torch.cmul(a, b) end)

--- E:concat(values, dim): the values joined along 1-based dim (negative from the end) (ONNX Concat).
--- Example: return E:concat({ a, b }, 2)
function E:concat(xs, d)
  if type(xs) ~= 'table' or #xs == 0 then self:fail('E:concat expects a list of values, got %s', type(xs)) end
  local ts = {}
  for i, v in ipairs(xs) do ts[i] = check(self, v, 'E:concat\'s value ' .. i).t end
  d = dim(self, xs[1], d, 'E:concat')
  if #xs == 1 then return xs[1] end
  return L.concat(self.G, xs, torch.cat(ts, d), d, self.ctx)
end

local function unary(name, op, attrs, fn)
  return function(self, x)
    check(self, x, 'E:' .. name .. '\'s value')
    return self.G:node(self.ctx.path, op, { x }, attrs, fn(x.t), U.keep(x))
  end
end
local function hsig(t) return torch.clamp(torch.add(torch.div(t, 6), 0.5), 0, 1) end
local HSIG = { { 'alpha', 'f', 1 / 6 }, { 'beta', 'f', 0.5 } }  -- PyTorch's hardsigmoid: relu6(x + 3) / 6
--- E:relu(x): max(x, 0) (ONNX Relu).
--- Example: return E:relu(E:add(out, x))
E.relu = unary('relu', 'Relu', nil, function(t) return torch.cmax(t, 0) end)
--- E:sigmoid(x): the logistic function (ONNX Sigmoid).
--- Example: local gate = E:sigmoid(s)
E.sigmoid = unary('sigmoid', 'Sigmoid', nil, torch.sigmoid)
--- E:hardsigmoid(x): PyTorch's relu6(x + 3) / 6 (ONNX HardSigmoid, alpha 1/6, beta 0.5).
--- Example: local gate = E:hardsigmoid(s)
E.hardsigmoid = unary('hardsigmoid', 'HardSigmoid', HSIG, hsig)

--- E:hardswish(x): x * hardsigmoid(x) (HardSigmoid and Mul, PyTorch 1.13's opset-13 export).
--- Example: local y = E:hardswish(x)
function E:hardswish(x)
  return self:mul(x, self:hardsigmoid(x))
end
--- E:silu(x): x * sigmoid(x) (Sigmoid and Mul).
--- Example: local y = E:silu(x)
function E:silu(x)
  return self:mul(x, self:sigmoid(x))
end

--- E:dropout(x[, p]): dropout at inference: the identity, no node (the export runs in evaluation mode).
--- Example: y = E:dropout(y, self.dropRate)
function E:dropout(x) return check(self, x, 'E:dropout\'s value') end

--- E:flatten(x): x as N x (the rest), torch.flatten(x, 1) (ONNX Flatten, axis 1).
--- Example: return E:emit(self.fc, E:flatten(y), 'fc')
function E:flatten(x)
  check(self, x, 'E:flatten\'s value')
  if #x.shape < 2 then self:fail('E:flatten expects a batch, got a %dD value', #x.shape) end
  local y = x.t:contiguous():view(x.shape[1], -1)
  return self.G:node(self.ctx.path, 'Flatten', { x }, { { 'axis', 'i', 1 } }, y, U.batchOnly(x, self.ctx))
end

--- E:reshape(x, sizes): x viewed as sizes (a list; one -1 allowed) (ONNX Reshape; a varying batch
--- dim that stays dim 1 is written as 0, ONNX's "copy this dim").
--- Example: local g = E:reshape(x, { n, 2, c / 2, h, w })
function E:reshape(x, sizes)
  check(self, x, 'E:reshape\'s value')
  if type(sizes) ~= 'table' or #sizes == 0 then self:fail('E:reshape expects a list of sizes, got %s', type(sizes)) end
  local y = x.t:contiguous():view(torch.LongStorage(sizes))
  local dyn = U.batchOnly(x, self.ctx)
  local target = {}
  for i, s in ipairs(sizes) do target[i] = s end
  if dyn[1] then
    if y:size(1) ~= x.shape[1] then
      self:fail('dynamicAxes: the varying batch dim does not stay dim 1 through E:reshape')
    end
    target[1] = 0
  end
  return self.G:node(self.ctx.path, 'Reshape', { x, self.G:constInts(self.ctx.path, target) }, nil, y, dyn)
end

--- E:transpose(x, d1, d2): x with 1-based dims d1 and d2 (negative from the end) swapped (ONNX Transpose).
--- Example: local t = E:transpose(g, 2, 3)
function E:transpose(x, d1, d2)
  check(self, x, 'E:transpose\'s value')
  local r = #x.shape
  d1, d2 = dim(self, x, d1, 'E:transpose'), dim(self, x, d2, 'E:transpose')
  local perm = {}
  for i = 1, r do perm[i] = i - 1 end
  perm[d1], perm[d2] = d2 - 1, d1 - 1
  local dyn = {}
  for i = 1, r do dyn[i] = x.dyn[perm[i] + 1] end
  return self.G:node(self.ctx.path, 'Transpose', { x }, { { 'perm', 'ints', perm } },
    x.t:transpose(d1, d2):contiguous(), dyn)
end

--- E:narrow(x, dim, start, length): x:narrow(dim, start, length), 1-based, dim negative from the end (ONNX Slice).
--- Example: local left = E:narrow(x, 2, 1, half)
function E:narrow(x, d, start, len)
  check(self, x, 'E:narrow\'s value')
  d = dim(self, x, d, 'E:narrow')
  if x.dyn[d] then self:fail('dynamicAxes: dim %d cannot vary through E:narrow', d) end
  local y = x.t:narrow(d, start, len):contiguous()
  local p = self.ctx.path
  local ins = { x, self.G:constInts(p, { start - 1 }), self.G:constInts(p, { start - 1 + len }),
    self.G:constInts(p, { d - 1 }) }
  return self.G:node(p, 'Slice', ins, nil, y, U.keep(x))
end

--- E:channelShuffle(x, groups): nn.functional.channelShuffle (Reshape N x g x C/g x ..., Transpose
--- of dims 2 and 3, Reshape back, as PyTorch exports torchvision's channel_shuffle).
--- Example: return E:channelShuffle(out, 2)
function E:channelShuffle(x, g)
  check(self, x, 'E:channelShuffle\'s value')
  local s = self.G:dims(x.t)
  if #s < 2 or s[2] % g ~= 0 then
    self:fail('E:channelShuffle: %d channels do not split into %d groups', s[2] or 0, g)
  end
  local split = { s[1], g, s[2] / g }
  for i = 3, #s do split[#split + 1] = s[i] end
  return self:reshape(self:transpose(self:reshape(x, split), 2, 3), s)
end

--- E:globalAvgPool(x): the mean over dims 3.. keeping them as size 1 (ONNX GlobalAveragePool;
--- adaptiveAvgPool2d(x, 1)).
--- Example: local s = E:globalAvgPool(x)
function E:globalAvgPool(x)
  check(self, x, 'E:globalAvgPool\'s value')
  if #x.shape < 3 then self:fail('E:globalAvgPool expects N x C x ..., got a %dD value', #x.shape) end
  local y = x.t
  for d = #x.shape, 3, -1 do y = y:mean(d) end
  return self.G:node(self.ctx.path, 'GlobalAveragePool', { x }, nil, y, U.batchOnly(x, self.ctx))
end

--- E:mean(x, dims[, keepdim = false]): the mean over the 1-based dims, negative from the end (ONNX ReduceMean).
--- Example: local y = E:mean(x, { 3, 4 })
function E:mean(x, dims, keepdim)
  check(self, x, 'E:mean\'s value')
  if type(dims) == 'number' then dims = { dims } end
  if type(dims) ~= 'table' or #dims == 0 then
    self:fail('E:mean expects a dim or a list of dims, got %s', type(dims))
  end
  local axes, y, sorted, given = {}, x.t, {}, dims
  dims = {}
  for i, d0 in ipairs(given) do
    local d = dim(self, x, d0, 'E:mean')
    if x.dyn[d] then self:fail('dynamicAxes: dim %d cannot vary through E:mean', d) end
    for _, e in ipairs(dims) do if e == d then self:fail('E:mean: dim %d is given twice', d) end end
    dims[i], axes[i], sorted[i] = d, d - 1, d
  end
  table.sort(sorted, function(a, b) return a > b end)
  for _, d in ipairs(sorted) do y = y:mean(d) end  -- Torch7's mean keeps the dim
  local dyn = U.keep(x)
  if not keepdim then
    local shape = {}
    local drop = {}
    for _, d in ipairs(dims) do drop[d] = true end
    dyn = {}
    for i = 1, #x.shape do
      if not drop[i] then
        shape[#shape + 1] = x.shape[i]
        dyn[#shape] = x.dyn[i]
      end
    end
    y = y:contiguous():view(torch.LongStorage(shape))
  end
  return self.G:node(self.ctx.path, 'ReduceMean', { x }, { { 'axes', 'ints', axes },
    { 'keepdims', 'i', keepdim and 1 or 0 } }, y, dyn)
end

return M
