-- ONNX nodes of Tocha's non-convolution layers for torch.onnx.export: Linear (Gemm), pools
-- (MaxPool/AveragePool with Torch7's ceil mode and padding, adaptive pools to 1 as Global*Pool,
-- enlarging ones as Expand),
-- reshapes (View/Reshape/Flatten), joins and elementwise tables, Embedding/LookupTable (Gather),
-- padding modules (Pad) and LayerNorm (LayerNormalization at opset 17, decomposed before).
local lib = require 'torch.lib'
local U = require 'torch.onnx_util'
local S = require 'nn.support'

local M = {}
local function fail(fmt, ...) lib.fail('torch.onnx.export', fmt, ...) end

--- L.linear(G, m, x, y, ctx): Gemm(x, W, b, transB = 1) on a matrix; MatMul by W^T (plus Add b) on
--- other ranks, as PyTorch exports nn.Linear.
function M.linear(G, m, x, y, ctx)
  local dyn, r = U.keep(x), #x.shape
  if dyn[r] then fail('dynamicAxes: the feature dim %d cannot vary through %s', r, ctx.where) end
  if r == 2 then
    local ins = { x, G:init(U.pname(ctx, 'weight'), m.weight) }
    if m.bias then ins[3] = G:init(U.pname(ctx, 'bias'), m.bias) end
    return G:node(ctx.path, 'Gemm', ins, { { 'alpha', 'f', 1 }, { 'beta', 'f', 1 }, { 'transB', 'i', 1 } }, y, dyn)
  end
  local wt = G:init(U.pname(ctx, 'weight_t'), m.weight:t():contiguous())
  if not m.bias then return G:node(ctx.path, 'MatMul', { x, wt }, nil, y, dyn) end
  local mm = G:node(ctx.path, 'MatMul', { x, wt })
  return G:node(ctx.path, 'Add', { mm, G:init(U.pname(ctx, 'bias'), m.bias) }, nil, y, dyn)
end

-- Pool geometry (outermost dim first): k, s, pads, dilation; nd from the class.
local POOLS = {
  ['nn.SpatialMaxPooling'] = { 'MaxPool', 2 }, ['nn.SpatialDilatedMaxPooling'] = { 'MaxPool', 2 },
  ['nn.MaxPool2d'] = { 'MaxPool', 2 }, ['nn.MaxPool1d'] = { 'MaxPool', 1 },
  ['nn.VolumetricMaxPooling'] = { 'MaxPool', 3 }, ['nn.VolumetricDilatedMaxPooling'] = { 'MaxPool', 3 },
  ['nn.MaxPool3d'] = { 'MaxPool', 3 },
  ['nn.SpatialAveragePooling'] = { 'AveragePool', 2 }, ['nn.AvgPool2d'] = { 'AveragePool', 2 },
  ['nn.AvgPool1d'] = { 'AveragePool', 1 }, ['nn.VolumetricAveragePooling'] = { 'AveragePool', 3 },
  ['nn.AvgPool3d'] = { 'AveragePool', 3 },
}
M.POOLS = POOLS

local function pool_geometry(m, nd)
  if nd == 1 then -- PyTorch's 1-D pools run a 2-D parent with a unit height (nn/pytorch_names_pool.lua)
    return { m.kW }, { m.dW }, { m.padW or 0 }, { m.dilationW or 1 }
  elseif nd == 2 then
    return { m.kH, m.kW }, { m.dH, m.dW }, { m.padH or 0, m.padW or 0 }, { m.dilationH or 1, m.dilationW or 1 }
  end
  return { m.kT, m.kH, m.kW }, { m.dT, m.dH, m.dW }, { m.padT or 0, m.padH or 0, m.padW or 0 },
    { m.dilationT or 1, m.dilationH or 1, m.dilationW or 1 }
end

-- Note [Pool attributes]: ceil_mode is Torch7's ceil_mode flag; count_include_pad = 1 only when
-- the module counts the padding and has some; Torch7's sum pooling (divide = false) multiplies its
-- mean by the window volume, as its forward does (a window cut by ceil mode is not a full sum);
-- PyTorch's divisorOverride divides each window's sum (zero padding included) by it, exported as
-- the mean over an explicitly zero-padded input (every window full) times volume / divisor.
-- Note [Ceil mode that drops the last window]: PyTorch (and Torch7's THNN) drop a last window that
-- would start in the right padding; ONNX's ceil_mode (onnx 1.12's spec, shape inference and
-- checker) keeps it, so exporting ceil_mode = 1 there declared one more output cell than ONNX
-- computes and the file failed onnx.checker. When a dim's ceil count differs from the sample
-- run's output size, the pool is exported with ceil_mode = 0 and the extra end padding that the
-- surviving overhanging windows need (ignored by MaxPool, uncounted by AveragePool without
-- count_include_pad); an average that counts the padding pads explicitly with zeros first (a Pad
-- node), so the overhang stays uncounted as PyTorch's divisor does.
--- L.pool(G, m, x, y, ctx): a MaxPool or AveragePool node.
function M.pool(G, m, x, y, ctx)
  local spec = POOLS[torch.typename(m)]
  local op, nd = spec[1], spec[2]
  if m.returnIndices then fail('%s returns indices, which are not exported', ctx.where) end
  local k, s, p, d = pool_geometry(m, nd)
  return U.withBatch(G, x, y, nd, ctx, function(xin, yb)
    local r = #xin.shape
    local ext, anypad, anyext, spec_ceil = {}, false, false, true
    for i = 1, nd do
      local span, out, eff = xin.shape[r - nd + i] + 2 * p[i], yb:size(r - nd + i), (k[i] - 1) * d[i] + 1
      ext[i] = math.max(0, (out - 1) * s[i] + eff - span)
      anypad, anyext = anypad or p[i] ~= 0, anyext or ext[i] > 0
      if m.ceil_mode and math.ceil((span - eff) / s[i]) + 1 ~= out then spec_ceil = false end
    end
    local sum = op == 'AveragePool' and m.divisorOverride ~= nil
    local ceil = m.ceil_mode and spec_ceil and not sum
    local lo, hi = {}, {}
    for i = 1, nd do lo[i], hi[i] = p[i], p[i] + (ceil and 0 or ext[i]) end
    local src, include = xin, op == 'AveragePool' and m.count_include_pad ~= false and anypad
    -- explicit zero padding (Note [Ceil mode that drops the last window], Note [Pool attributes])
    if (sum and (anypad or anyext)) or (include and not ceil and anyext) then
      src = U.pad(G, xin, ctx, lo, sum and hi or p, 'constant')
      for i = 1, nd do lo[i], hi[i] = 0, sum and 0 or ext[i] end
      include = false
    end
    local pads = {}
    for i = 1, nd do pads[i], pads[nd + i] = lo[i], hi[i] end
    local attrs = { { 'ceil_mode', 'i', ceil and 1 or 0 } }
    if include then attrs[#attrs + 1] = { 'count_include_pad', 'i', 1 } end
    local dil = false
    for i = 1, nd do dil = dil or d[i] ~= 1 end
    if dil then attrs[#attrs + 1] = { 'dilations', 'ints', d } end
    attrs[#attrs + 1] = { 'kernel_shape', 'ints', k }
    attrs[#attrs + 1] = { 'pads', 'ints', pads }
    attrs[#attrs + 1] = { 'strides', 'ints', s }
    if sum or (op == 'AveragePool' and m.divide == false) then
      local vol = 1
      for i = 1, nd do vol = vol * k[i] end
      local avg = G:node(ctx.path, op, { src }, attrs)
      return G:node(ctx.path, 'Mul', { avg, G:constScalar(ctx.path, vol / (m.divisorOverride or 1), xin.elem) }, nil,
        yb, U.batchOnly(xin, ctx))
    end
    return G:node(ctx.path, op, { src }, attrs, yb, U.batchOnly(xin, ctx))
  end)
end

-- Adaptive pools: {op, nd}; output sizes read from the sample run's output.
M.ADAPTIVE = {
  ['nn.SpatialAdaptiveAveragePooling'] = { 'Average', 2 }, ['nn.AdaptiveAvgPool2d'] = { 'Average', 2 },
  ['nn.AdaptiveAvgPool1d'] = { 'Average', 1 }, ['nn.AdaptiveAvgPool3d'] = { 'Average', 3 },
  ['nn.SpatialAdaptiveMaxPooling'] = { 'Max', 2 }, ['nn.AdaptiveMaxPool2d'] = { 'Max', 2 },
  ['nn.AdaptiveMaxPool1d'] = { 'Max', 1 }, ['nn.AdaptiveMaxPool3d'] = { 'Max', 3 },
}

-- Note [Adaptive pools that enlarge]: an output size that is a multiple f of the input size gives
-- every output cell a window of one input cell (start floor(i / f), end ceil((i + 1) / f)), so the
-- pool repeats each cell f times: Reshape to N x C x h x 1 x w x 1, Expand by f, Reshape to
-- N x C x hf x wf. torchvision's VGG and AlexNet pool their features to 7x7 and 6x6 whatever the
-- input size, so they export at inputs smaller than 224x224 (PyTorch 1.13 refuses these sizes).
-- A dim that shrinks by an integer factor is pooled first (kernel = stride = in / out).
local function repeat_cells(G, xin, shape, up, yb, dyn, ctx)
  local nd = #up
  local split, ones, full = { dyn[1] and 0 or shape[1], shape[2] }, { 1, 1 }, { dyn[1] and 0 or shape[1], shape[2] }
  for i = 1, nd do
    split[#split + 1], split[#split + 2] = shape[2 + i], 1
    ones[#ones + 1], ones[#ones + 2] = 1, up[i]
    full[#full + 1] = shape[2 + i] * up[i]
  end
  local r1 = G:node(ctx.path, 'Reshape', { xin, G:constInts(ctx.path, split) })
  local ex = G:node(ctx.path, 'Expand', { r1, G:constInts(ctx.path, ones) })
  return G:node(ctx.path, 'Reshape', { ex, G:constInts(ctx.path, full) }, nil, yb, dyn)
end

--- L.adaptive(G, m, x, y, ctx): GlobalAveragePool/GlobalMaxPool for an output of size 1; an
--- AveragePool/MaxPool with kernel = stride = in / out when every input size is a multiple of the
--- output's (PyTorch's rule); dims whose output size is a multiple of the input's repeat the cells
--- (Note [Adaptive pools that enlarge]); other sizes are an error.
function M.adaptive(G, m, x, y, ctx)
  local spec = M.ADAPTIVE[torch.typename(m)]
  local kind, nd = spec[1], spec[2]
  if m.returnIndices then fail('%s returns indices, which are not exported', ctx.where) end
  return U.withBatch(G, x, y, nd, ctx, function(xin, yb)
    local r = #xin.shape
    local global, k, up, shrink, grow = true, {}, {}, false, false
    local mid = { xin.shape[1], xin.shape[2] }
    for i = 1, nd do
      local a, b = xin.shape[r - nd + i], yb:size(r - nd + i)
      global = global and b == 1
      if a % b == 0 then k[i], up[i] = a / b, 1
      elseif b % a == 0 then k[i], up[i] = 1, b / a
      else fail('%s: output size %d does not divide input size %d, nor is it a multiple of it', ctx.where, b, a) end
      shrink, grow = shrink or k[i] > 1, grow or up[i] > 1
      mid[2 + i] = a / k[i]
    end
    local dyn = U.batchOnly(xin, ctx)
    if global then return G:node(ctx.path, 'Global' .. kind .. 'Pool', { xin }, nil, yb, dyn) end
    local pooled = xin
    if shrink then
      local pads = {}
      for i = 1, 2 * nd do pads[i] = 0 end
      local attrs = { { 'kernel_shape', 'ints', k }, { 'pads', 'ints', pads }, { 'strides', 'ints', k } }
      if kind == 'Average' then table.insert(attrs, 1, { 'ceil_mode', 'i', 0 }) end
      local op = kind == 'Average' and 'AveragePool' or 'MaxPool'
      if not grow then return G:node(ctx.path, op, { xin }, attrs, yb, dyn) end
      pooled = G:node(ctx.path, op, { xin }, attrs)
    end
    return repeat_cells(G, pooled, mid, up, yb, dyn, ctx)
  end)
end

-- Note [Reshape targets]: View, Reshape and Flatten export the sample run's output size; a
-- varying batch dim kept in place becomes 0 (ONNX's "copy this dim"). nn.Flatten over dims 2..last
-- of a batched input is ONNX Flatten (axis 1), as PyTorch exports it.
--- L.reshape(G, m, x, y, ctx): a Flatten or Reshape node.
function M.reshape(G, m, x, y, ctx)
  local r = #x.shape
  local dyn = U.batchOnly(x, ctx)
  if torch.typename(m) == 'nn.Flatten' and r >= 2 and y:dim() == 2 and y:size(1) == x.shape[1] then
    return G:node(ctx.path, 'Flatten', { x }, { { 'axis', 'i', 1 } }, y, dyn)
  end
  local target = G:dims(y)
  if dyn[1] then
    if y:dim() < 1 or y:size(1) ~= x.shape[1] then
      fail('dynamicAxes: the varying batch dim does not stay dim 1 through %s', ctx.where)
    end
    target[1] = 0
  end
  return G:node(ctx.path, 'Reshape', { x, G:constInts(ctx.path, target) }, nil, y, dyn)
end

--- L.concat(G, xs, y, d, ctx): a Concat node along 1-based dim d.
function M.concat(G, xs, y, d, ctx)
  local dyn = U.keep(xs[1])
  if dyn[d] then fail('dynamicAxes: dim %d cannot vary through the concatenation of %s', d, ctx.where) end
  return G:node(ctx.path, 'Concat', xs, { { 'axis', 'i', d - 1 } }, y, dyn)
end

--- L.joinTable(G, m, xs, y, ctx): Concat along JoinTable's dim (nInputDims resolved as it does).
function M.joinTable(G, m, xs, y, ctx)
  return M.concat(G, xs, y, S.dim('nn.JoinTable', m.dimension, xs[1].t, m.nInputDims), ctx)
end

local TABLE_OPS = { ['nn.CAddTable'] = 'Add', ['nn.CMulTable'] = 'Mul', ['nn.CSubTable'] = 'Sub',
  ['nn.CDivTable'] = 'Div' }
M.TABLE_OPS = TABLE_OPS

--- L.tableOp(G, m, xs, y, ctx): Add/Mul (a chain for more than two inputs), Sub, Div.
function M.tableOp(G, m, xs, y, ctx)
  local op = TABLE_OPS[torch.typename(m)]
  if #xs < 2 then fail('%s needs at least two inputs, got %d', ctx.where, #xs) end
  local acc = xs[1]
  for i = 2, #xs - 1 do acc = G:node(ctx.path, op, { acc, xs[i] }) end
  return G:node(ctx.path, op, { acc, xs[#xs] }, nil, y, U.keep(xs[1]))
end

-- Note [1-based indices in Gather]: the exported graph takes the indices Tocha's module takes
-- (1-based), so the lookup subtracts 1 before ONNX's 0-based Gather; a floating-point index tensor
-- (Torch7 allowed one) is cast to INT64 first.
--- L.embedding(G, m, x, y, ctx): Gather(weight, indices - 1) along dim 1.
function M.embedding(G, m, x, y, ctx)
  if m.maxNorm then fail('%s renormalizes rows (maxNorm) as it looks them up, which is not exported', ctx.where) end
  local idx = x
  if x.elem ~= 7 then idx = G:node(ctx.path, 'Cast', { x }, { { 'to', 'i', 7 } }) end
  local idx0 = G:node(ctx.path, 'Sub', { idx, G:constScalar(ctx.path, 1, 7) })
  return G:node(ctx.path, 'Gather', { G:init(U.pname(ctx, 'weight'), m.weight), idx0 }, { { 'axis', 'i', 0 } }, y,
    U.keep(x))
end

-- Padding modules: lo/hi (outermost of the padded dims first), mode and value.
local function pads_of(m, cls, x)
  if m.pad_l then -- Spatial(Zero|Reflection|Replication)Padding and their PyTorch 2d names
    local mode = cls:find('Reflection') and 'reflect' or cls:find('Replication') and 'edge' or 'constant'
    return { m.pad_t, m.pad_l }, { m.pad_b, m.pad_r }, mode, 0
  elseif m.padding and m._nd then -- PyTorch's Pad1d/3d and ConstantPad*d (F.pad order, last dim first)
    local modes = { constant = 'constant', reflect = 'reflect', replicate = 'edge' }
    if not modes[m._mode] then return nil end
    local lo, hi, nd = {}, {}, m._nd
    for i = 1, nd do lo[i], hi[i] = m.padding[2 * (nd - i) + 1], m.padding[2 * (nd - i) + 2] end
    return lo, hi, modes[m._mode], m.value or 0
  elseif cls == 'nn.Padding' then
    if m.index ~= 1 then return nil end
    local d = m.dim
    local r = #x.shape
    if d < 0 then d = r + d + 1 elseif m.nInputDim and r ~= m.nInputDim then d = d + 1 end
    local lo, hi = {}, {}
    for i = 1, r do lo[i], hi[i] = 0, 0 end
    if m.pad < 0 then lo[d] = -m.pad else hi[d] = m.pad end
    return lo, hi, 'constant', m.value
  end
end

--- L.padding(G, m, x, y, ctx): a Pad node (circular padding and nn.Padding with an index other than
--- 1 are errors).
function M.padding(G, m, x, y, ctx)
  local lo, hi, mode, value = pads_of(m, torch.typename(m), x)
  if not lo then fail('%s: this padding has no ONNX Pad equivalent', ctx.where) end
  return U.pad(G, x, ctx, lo, hi, mode, value, y)
end

--- L.layerNorm(G, m, x, y, ctx): LayerNormalization (opset >= 17) or its decomposition
--- ReduceMean, Sub, Mul, ReduceMean, Add eps, Sqrt, Div, Mul weight, Add bias (PyTorch's at 13).
function M.layerNorm(G, m, x, y, ctx)
  local r, n = #x.shape, #m.normalizedShape
  local axes = {}
  for i = r - n + 1, r do
    axes[#axes + 1] = i - 1
    if x.dyn[i] then fail('dynamicAxes: dim %d cannot vary through the normalized dims of %s', i, ctx.where) end
  end
  local w = m.weight and G:init(U.pname(ctx, 'weight'), m.weight)
  local b = m.bias and G:init(U.pname(ctx, 'bias'), m.bias)
  if G.opts.opset >= 17 then
    local shape = m.normalizedShape:totable()
    w = w or G:init(U.pname(ctx, 'weight'), x.t.new(torch.LongStorage(shape)):fill(1))
    local ins = { x, w }
    if b then ins[3] = b end
    return G:node(ctx.path, 'LayerNormalization', ins, { { 'axis', 'i', r - n }, { 'epsilon', 'f', m.eps } }, y,
      U.keep(x))
  end
  local mean = G:node(ctx.path, 'ReduceMean', { x }, { { 'axes', 'ints', axes } })
  local c = G:node(ctx.path, 'Sub', { x, mean })
  local var = G:node(ctx.path, 'ReduceMean', { G:node(ctx.path, 'Mul', { c, c }) }, { { 'axes', 'ints', axes } })
  local std = G:node(ctx.path, 'Sqrt', { G:node(ctx.path, 'Add', { var, G:constScalar(ctx.path, m.eps, x.elem) }) })
  local steps = { { 'Div', c, std } }
  if w then steps[#steps + 1] = { 'Mul', nil, w } end
  if b then steps[#steps + 1] = { 'Add', nil, b } end
  local out
  for i, st in ipairs(steps) do
    local ins = { st[2] or out, st[3] }
    if i == #steps then return G:node(ctx.path, st[1], ins, nil, y, U.keep(x)) end
    out = G:node(ctx.path, st[1], ins)
  end
end

return M
