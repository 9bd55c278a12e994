-- The walk of torch.onnx.export over a model: containers (Sequential, Concat, ConcatTable,
-- ParallelTable) wire their children's values; each leaf runs forward once on its sample input (the
-- shapes of value_info and outputs come from that run) and its converter adds its nodes (the
-- recurrent modules', which may take a table {input, h0[, c0]}, in onnx_rnn.lua); a module
-- with an onnxExport method exports itself (Note [ONNX export of custom forwards], onnx_custom.lua).
local lib = require 'torch.lib'
local S = require 'nn.support'
local U = require 'torch.onnx_util'
local A = require 'torch.onnx_act'
local C = require 'torch.onnx_conv'
local L = require 'torch.onnx_layers'
local RNN = require 'torch.onnx_rnn'
local SP = require 'torch.onnx_spatial'

local W = {}
local function fail(fmt, ...) lib.fail('torch.onnx.export', fmt, ...) end

-- Converters by class name: f(G, module, input value(s), sample output, ctx) -> output value.
local CONVERT = {}
for k, f in pairs(A.CONVERT) do CONVERT[k] = f end
for _, c in ipairs({ 'nn.SpatialConvolution', 'nn.SpatialConvolutionMM', 'nn.SpatialDilatedConvolution',
  'nn.VolumetricConvolution', 'nn.VolumetricDilatedConvolution', 'nn.SpatialFullConvolution',
  'nn.VolumetricFullConvolution', 'nn.Conv1d', 'nn.Conv2d', 'nn.Conv3d', 'nn.ConvTranspose1d', 'nn.ConvTranspose2d',
  'nn.ConvTranspose3d' }) do
  CONVERT[c] = C.conv
end
for c in pairs(U.BN) do CONVERT[c] = C.batchNorm end
for _, c in ipairs({ 'nn.InstanceNormalization', 'nn.InstanceNorm1d', 'nn.InstanceNorm2d', 'nn.InstanceNorm3d' }) do
  CONVERT[c] = C.instanceNorm
end
CONVERT['nn.GroupNormalization'], CONVERT['nn.GroupNorm'] = C.groupNorm, C.groupNorm
for c in pairs(L.POOLS) do CONVERT[c] = L.pool end
for c in pairs(L.ADAPTIVE) do CONVERT[c] = L.adaptive end
for c in pairs(L.TABLE_OPS) do CONVERT[c] = L.tableOp end
CONVERT['nn.Linear'] = L.linear
for c in pairs(RNN.CLASSES) do CONVERT[c] = RNN.convert end
for c in pairs(SP.RESIZE) do CONVERT[c] = SP.resize end
CONVERT['nn.PixelShuffle'], CONVERT['nn.ChannelShuffle'] = SP.pixelShuffle, SP.channelShuffle
CONVERT['nn.LayerNormalization'], CONVERT['nn.LayerNorm'] = L.layerNorm, L.layerNorm
for _, c in ipairs({ 'nn.View', 'nn.Reshape', 'nn.Flatten', 'nn.Unflatten', 'nn.Squeeze', 'nn.Unsqueeze',
  'nn.Collapse' }) do
  CONVERT[c] = L.reshape
end
CONVERT['nn.JoinTable'] = L.joinTable
CONVERT['nn.LookupTable'], CONVERT['nn.Embedding'] = L.embedding, L.embedding
for _, c in ipairs({ 'nn.SpatialZeroPadding', 'nn.SpatialReflectionPadding', 'nn.SpatialReplicationPadding',
  'nn.ZeroPad2d', 'nn.ReflectionPad2d', 'nn.ReplicationPad2d', 'nn.Padding' }) do
  CONVERT[c] = L.padding
end
for _, kind in ipairs({ 'Zero', 'Constant', 'Reflection', 'Replication', 'Circular' }) do
  for nd = 1, 3 do
    local c = 'nn.' .. kind .. 'Pad' .. nd .. 'd'
    CONVERT[c] = CONVERT[c] or L.padding
  end
end
-- Modules whose input is a table of tensors.
local TABLE_IN = { ['nn.JoinTable'] = true, ['nn.CAddTable'] = true, ['nn.CMulTable'] = true,
  ['nn.CSubTable'] = true, ['nn.CDivTable'] = true }

--- W.supported(): the sorted class names torch.onnx.export converts (containers included).
function W.supported()
  local out = { 'nn.Sequential', 'nn.Concat', 'nn.ConcatTable', 'nn.ParallelTable' }
  for k in pairs(CONVERT) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function child(ctx, i, m)
  local p = ctx.path .. '/' .. (i - 1)
  local prm = ctx.param == '' and tostring(i - 1) or ctx.param .. '.' .. (i - 1)
  local pos = ctx.pos .. '.modules[' .. i .. ']'
  return { path = p, param = prm, pos = pos, where = torch.typename(m) .. ' at ' .. pos }
end

local function sample(x)
  if x.name then return x.t end
  local out = {}
  for i, v in ipairs(x) do out[i] = sample(v) end
  return out
end

local function one(x, ctx)
  if not x.name then fail('%s expects a tensor, got a table of %d values', ctx.where, #x) end
  return x
end

--- W.chain(G, mods, ctxs, x): the modules applied in turn to x (ctxs: their positions), a batch
--- norm right after a convolution folded into it with doConstantFolding (Note [Folding batch norm]).
function W.chain(G, mods, ctxs, x)
  local i, cur = 1, x
  while i <= #mods do
    local c, nxt = mods[i], mods[i + 1]
    if G.opts.fold and CONVERT[torch.typename(c)] == C.conv and C.foldable(c, nxt) then
      local y = nxt:forward(c:forward(sample(one(cur, ctxs[i]))))
      cur = C.conv(G, c, cur, y, ctxs[i], nxt)
      i = i + 2
    else
      cur = W.emit(G, c, cur, ctxs[i])
      i = i + 1
    end
  end
  return cur
end

-- A module's own export (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua), checked
-- against its forward on the same sample input (run first: children reuse their output buffers).
-- Note [Checking custom exports once]: only the outermost module with an onnxExport is checked, so
-- nested blocks (DenseNet's features, blocks and layers) cost one forward, not one per level; a
-- mismatch raises W.RETRY and torch.onnx.export walks again with every level checked
-- (opts.checkAll), which names the innermost module that drifted.
W.RETRY = setmetatable({}, { __tostring = function() return 'torch.onnx.export: retry with every export checked' end })
local function value(v) return type(v) == 'table' and v.name ~= nil and torch.isTensor(v.t) end
local function host(t)
  t = t:detach()
  return t:isCuda() and t:cpu():double() or t:double()
end
local function disagree(want, out, ctx)
  local wants = torch.isTensor(want) and { want } or want
  local outs = value(out) and { out } or out
  if type(wants) ~= 'table' or #wants ~= #outs then
    return string.format('%s: onnxExport gives %d outputs, its forward %s', ctx.where, #outs, S.describe(want))
  end
  for i, v in ipairs(outs) do
    local w = wants[i]
    if not torch.isTensor(w) or w:dim() ~= v.t:dim() or w:nElement() ~= v.t:nElement() then
      return string.format('%s: onnxExport\'s output %d is shaped %s, its forward\'s %s', ctx.where, i,
        table.concat(v.shape, 'x'), S.describe(w))
    end
    w = host(w)
    local err = tonumber((host(v.t) - w):abs():max())
    if err > 1e-4 * math.max(1, tonumber(w:abs():max())) then
      return string.format('%s: onnxExport\'s output %d differs from its forward by %g (the export does not '
        .. 'follow the forward)', ctx.where, i, err)
    end
  end
end

local function custom(G, m, x, ctx)
  local check = G.opts.checkAll or not G.inCustom
  local want
  if check then
    want = m:forward(sample(x))
    if torch.isTensor(want) then want = want:detach():clone()
    elseif type(want) == 'table' then
      local c = {}
      for i, w in ipairs(want) do c[i] = torch.isTensor(w) and w:detach():clone() or w end
      want = c
    end
  end
  local outer = G.inCustom
  G.inCustom = true
  local out = m:onnxExport(require('torch.onnx_custom').new(G, W, m, ctx), x)
  G.inCustom = outer
  if not value(out) then
    if type(out) ~= 'table' or #out == 0 then fail('%s: onnxExport returned %s, expected an exported value', ctx.where,
      type(out)) end
    for i, v in ipairs(out) do
      if not value(v) then fail('%s: onnxExport\'s output %d is a %s, expected an exported value', ctx.where, i,
        type(v)) end
    end
  end
  local msg = check and disagree(want, out, ctx)
  if msg then
    if not G.opts.checkAll then error(W.RETRY, 0) end
    fail('%s', msg)
  end
  return out
end

--- W.emit(G, m, x, ctx): adds m's nodes for input x (a value or a list of values); returns the
--- output value (or list). A module with an onnxExport method exports itself through it.
function W.emit(G, m, x, ctx)
  local cls = torch.typename(m)
  if type(m.onnxExport) == 'function' then return custom(G, m, x, ctx) end
  if cls == 'nn.Sequential' then
    local ctxs = {}
    for i, c in ipairs(m.modules) do ctxs[i] = child(ctx, i, c) end
    return W.chain(G, m.modules, ctxs, x)
  elseif cls == 'nn.Concat' then
    local outs, ts = {}, {}
    for i, c in ipairs(m.modules) do
      outs[i] = one(W.emit(G, c, x, child(ctx, i, c)), ctx)
      ts[i] = outs[i].t
    end
    local d = S.dim('nn.Concat', m.dimension, ts[1])
    return L.concat(G, outs, torch.cat(ts, d), d, ctx)
  elseif cls == 'nn.ConcatTable' then
    local outs = {}
    for i, c in ipairs(m.modules) do outs[i] = W.emit(G, c, x, child(ctx, i, c)) end
    return outs
  elseif cls == 'nn.ParallelTable' then
    if x.name or #x ~= #m.modules then
      fail('%s expects a table of %d inputs, got %s', ctx.where, #m.modules, x.name and 'a tensor' or #x)
    end
    local outs = {}
    for i, c in ipairs(m.modules) do outs[i] = W.emit(G, c, x[i], child(ctx, i, c)) end
    return outs
  end
  local f = CONVERT[cls]
  if not f then
    fail('%s is not supported (no ONNX conversion for this module; a module with its own forward can '
      .. 'define onnxExport(self, E, x), Note [ONNX export of custom forwards])', ctx.where)
  end
  if TABLE_IN[cls] then
    if x.name then fail('%s expects a table of tensors, got a tensor', ctx.where) end
    for _, v in ipairs(x) do one(v, ctx) end
  elseif RNN.CLASSES[cls] then -- a tensor or {input, h0[, c0]}
    RNN.checkInput(x, ctx)
  else
    one(x, ctx)
  end
  local y = m:forward(sample(x))
  if not torch.isTensor(y) then fail('%s returned %s, expected a tensor', ctx.where, S.describe(y)) end
  local out = f(G, m, x, y, ctx)
  local src = x.name and x or x[1]
  if out ~= src and (rawequal(y, src.t) or y:isSetTo(src.t)) then W.overwrite(G, src, out) end
  return out
end

-- Note [In-place modules]: a module built in place (nn.ReLU(true), CAddTable(true), ...) returns its
-- input tensor, overwritten: every later reader of that input sees the result, as in Torch7. The
-- graph wrote a new value, so a sibling branch reading the same input (ConcatTable{ReLU(true),
-- Identity}) read the old one and the file computed relu(x) + x where the forward computes
-- 2 relu(x). The overwritten value becomes a view of the result (its fields forward there), so
-- later readers take the result; the node that produced it keeps a copy for its value_info.
--- W.overwrite(G, src, out): value src reads as value out from now on (Note [In-place modules]).
function W.overwrite(G, src, out)
  while rawget(src, 'name') == nil and getmetatable(src) do src = getmetatable(src).__index end -- overwritten before
  if src == out then return end
  local keep = {}
  for k, v in pairs(src) do keep[k] = v end
  for i = 1, #G.values do if G.values[i] == src then G.values[i] = keep end end
  if G.values[keep.name] == src then G.values[keep.name] = keep end
  for k in pairs(keep) do src[k] = nil end
  setmetatable(src, { __index = out, __newindex = out })
end

return W
