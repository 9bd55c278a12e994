-- ONNX nodes of Tocha's convolutions and batch normalization for torch.onnx.export: Torch7's
-- SpatialConvolution(MM)/SpatialDilatedConvolution/VolumetricConvolution/(Spatial|Volumetric)
-- FullConvolution and PyTorch's Conv1d/2d/3d/ConvTranspose1d/2d/3d as Conv/ConvTranspose (weights in
-- PyTorch's layout), BatchNormalization in inference mode, the folding of a batch norm into the
-- convolution before it (doConstantFolding, as PyTorch 1.13 does in eval mode), InstanceNorm and
-- GroupNorm.
local lib = require 'torch.lib'
local U = require 'torch.onnx_util'

local M = {}

-- The geometry of a convolution module in PyTorch's terms, dims outermost first: weight (PyTorch
-- layout), bias, k, s, pads begin/end, d, groups, adj (transposed only), and an explicit Pad mode.
local function geometry(m)
  local cls = torch.typename(m)
  local g = { w = m.weight, b = m.bias, groups = m.groups or 1 }
  if m._k then -- PyTorch-named (nn/pytorch_names_conv.lua): fields hold PyTorch's tuples
    g.k, g.s, g.d, g.transposed, g.adj = m._k, m._s, m._d, m._transposed, m._adj
    g.lo, g.hi = {}, {}
    for i = 1, #m._k do g.lo[i], g.hi[i] = m._p[i], m._p[i] end
    if m._pads then -- F.pad order: last dim first (Note [Explicit padding on PyTorch-named convolutions])
      local nd = #m._k
      local lo, hi = {}, {}
      for i = 1, nd do lo[i], hi[i] = m._pads[2 * (nd - i) + 1], m._pads[2 * (nd - i) + 2] end
      if m._padMode == 'zeros' then g.lo, g.hi = lo, hi
      else g.padMode, g.padLo, g.padHi = m._padMode, lo, hi end
    end
    return g
  end
  if cls == 'nn.SpatialConvolution' or cls == 'nn.SpatialConvolutionMM' or cls == 'nn.SpatialDilatedConvolution' then
    g.w = m:_weights()
    g.k, g.s, g.lo, g.d = m:_geometry()
  elseif cls == 'nn.VolumetricConvolution' or cls == 'nn.VolumetricDilatedConvolution' then
    g.k, g.s, g.lo = { m.kT, m.kH, m.kW }, { m.dT, m.dH, m.dW }, { m.padT, m.padH, m.padW }
    g.d = { m.dilationT or 1, m.dilationH or 1, m.dilationW or 1 }
  elseif cls == 'nn.SpatialFullConvolution' then
    g.k, g.s, g.lo, g.adj = { m.kH, m.kW }, { m.dH, m.dW }, { m.padH, m.padW }, { m.adjH or 0, m.adjW or 0 }
    g.d, g.transposed = { 1, 1 }, true
  elseif cls == 'nn.VolumetricFullConvolution' then
    g.k, g.s, g.lo = { m.kT, m.kH, m.kW }, { m.dT, m.dH, m.dW }, { m.padT, m.padH, m.padW }
    g.adj, g.d, g.transposed = { m.adjT or 0, m.adjH or 0, m.adjW or 0 }, { 1, 1, 1 }, true
  else
    return nil
  end
  g.hi = g.lo
  return g
end

-- Note [Folding batch norm]: with doConstantFolding (the default, as PyTorch's), a
-- BatchNormalization right after a (non-transposed) convolution in a Sequential is folded into it:
-- w' = w * s, b' = (b - mean) * s + beta per output channel, s = gamma / sqrt(var + eps), computed
-- in double precision and stored in the weight's type; PyTorch 1.13 does the same in eval mode.
local function host(t) return t:isCuda() and t:cpu() or t end
local function fold(g, bn)
  local w = host(g.w):double()
  local outC = w:size(1)
  local var = host(bn.running_var):double()
  local s = torch.div(bn.weight and host(bn.weight):double() or torch.ones(outC):double(),
    torch.sqrt(torch.add(var, bn.eps)))
  local b = g.b and host(g.b):double() or torch.zeros(outC):double()
  local shift = bn.bias and host(bn.bias):double() or torch.zeros(outC):double()
  local view = { outC }
  for _ = 2, w:dim() do view[#view + 1] = 1 end
  local nw = torch.cmul(w, s:view(torch.LongStorage(view)):expandAs(w))
  local nb = torch.add(torch.cmul(torch.csub(b, host(bn.running_mean):double()), s), shift)
  local ty = host(g.w):type()  -- a CUDA model's folded weights are host tensors of its element type
  g.w, g.b = nw:type(ty), nb:type(ty)
  g.folded = true
end

--- onnx_conv.foldable(conv, bn): whether bn can be folded into conv (Note [Folding batch norm]).
function M.foldable(conv, bn)
  local t = bn and torch.typename(bn)
  if not t or not U.BN[t] or not bn.running_mean then return false end
  local g = geometry(conv)
  return g ~= nil and not g.transposed and g.w:size(1) == bn.running_mean:nElement()
end

--- onnx_conv.conv(g, m, x, y, ctx[, bn]): a Conv or ConvTranspose node (with bn folded in).
function M.conv(G, m, x, y, ctx, bn)
  local g = geometry(m)
  local nd = #g.k
  if bn then fold(g, bn) end
  if g.w:dim() ~= nd + 2 then lib.fail('torch.onnx.export', '%s has a %dD weight', ctx.where, g.w:dim()) end
  return U.withBatch(G, x, y, nd, ctx, function(xin, yb)
    if g.padMode then
      if g.padMode == 'circular' then
        lib.fail('torch.onnx.export', "%s: paddingMode 'circular' has no ONNX Pad mode at opset %d", ctx.where,
          G.opts.opset)
      end
      xin = U.pad(G, xin, ctx, g.padLo, g.padHi, g.padMode == 'reflect' and 'reflect' or 'edge')
    end
    local suffix = g.folded and '.fused_bn' or ''
    local ins = { xin, G:init(U.pname(ctx, 'weight' .. suffix), g.w) }
    if g.b then ins[3] = G:init(U.pname(ctx, 'bias' .. suffix), g.b) end
    local pads = {}
    for i = 1, nd do pads[i], pads[nd + i] = g.lo[i], g.hi[i] end
    local attrs = { { 'dilations', 'ints', g.d }, { 'group', 'i', g.groups }, { 'kernel_shape', 'ints', g.k } }
    if g.transposed then attrs[#attrs + 1] = { 'output_padding', 'ints', g.adj } end
    attrs[#attrs + 1] = { 'pads', 'ints', pads }
    attrs[#attrs + 1] = { 'strides', 'ints', g.s }
    return G:node(ctx.path, g.transposed and 'ConvTranspose' or 'Conv', ins, attrs, yb, U.batchOnly(xin, ctx))
  end)
end

--- onnx_conv.isConv(m): whether m is one of the convolutions above.
function M.isConv(m) return geometry(m) ~= nil end

--- onnx_conv.batchNorm(g, m, x, y, ctx): BatchNormalization in inference mode (running statistics);
--- a module without affine parameters gets scale 1 and bias 0 initializers.
-- A single sample without N (nDim - 1 dims, which the batch norms take in evaluation) gets its
-- batch dim first: ONNX's BatchNormalization reads dim 2 as the channels, so a C x H x W input went
-- out as a batch of C with H channels (and a vector of C as an invalid 1-D input).
function M.batchNorm(G, m, x, y, ctx)
  if not m.running_mean or not m.running_var then
    lib.fail('torch.onnx.export', '%s has no running statistics to normalize with at inference', ctx.where)
  end
  if m.nDim and #x.shape == m.nDim - 1 then
    return U.withBatch(G, x, y, m.nDim - 2, ctx, function(xin, yb) return M.batchNorm(G, m, xin, yb, ctx) end)
  end
  local c = m.running_mean:nElement()
  local w = m.weight or m.running_mean.new(c):fill(1)
  local b = m.bias or m.running_mean.new(c):zero()
  local ins = { x, G:init(U.pname(ctx, 'weight'), w), G:init(U.pname(ctx, 'bias'), b),
    G:init(U.pname(ctx, 'running_mean'), m.running_mean), G:init(U.pname(ctx, 'running_var'), m.running_var) }
  return G:node(ctx.path, 'BatchNormalization', ins,
    { { 'epsilon', 'f', m.eps }, { 'momentum', 'f', 1 - (m.momentum or 0.1) } }, y, U.keep(x))
end

local function affine(G, m, ctx, c, like)
  return G:init(U.pname(ctx, 'weight'), m.weight or like.new(c):fill(1)),
    G:init(U.pname(ctx, 'bias'), m.bias or like.new(c):zero())
end

--- onnx_conv.instanceNorm(g, m, x, y, ctx): InstanceNormalization, or BatchNormalization when the
--- module tracks running statistics (which evaluation uses); an unbatched input gets a batch dim.
-- (An unbatched C x ... input gets its batch dim before BatchNormalization too: ONNX reads dim 2
-- as the channels, so C x L went out as a batch of C with L channels, an invalid graph.)
function M.instanceNorm(G, m, x, y, ctx)
  local r = #x.shape
  local batched = r >= 3 and x.shape[2] == m.nFeatures
  return U.withBatch(G, x, y, batched and r - 2 or r - 1, ctx, function(xin, yb)
    if m.trackRunningStats then return M.batchNorm(G, m, xin, yb, ctx) end
    local w, b = affine(G, m, ctx, m.nFeatures, x.t)
    return G:node(ctx.path, 'InstanceNormalization', { xin, w, b }, { { 'epsilon', 'f', m.eps } }, yb, U.keep(xin))
  end)
end

-- Note [GroupNorm at opset 13]: as PyTorch 1.13 exports it: Reshape to N x groups x -1,
-- InstanceNormalization (scale 1, bias 0 per group), Reshape back to Shape(x), then the per-channel
-- affine as Mul and Add with C x 1 x ... initializers. Dim 1 may vary (reshape target 0).
--- onnx_conv.groupNorm(g, m, x, y, ctx): GroupNorm's decomposition (Note [GroupNorm at opset 13]).
function M.groupNorm(G, m, x, y, ctx)
  local r, ng = #x.shape, m.nGroups
  local dyn = U.batchOnly(x, ctx)
  local grouped = G:node(ctx.path, 'Reshape', { x, G:constInts(ctx.path, { 0, ng, -1 }) })
  local ones, zeros = x.t.new(ng):fill(1), x.t.new(ng):zero()
  local normed = G:node(ctx.path, 'InstanceNormalization', { grouped, G:init(ctx.path .. '/group_scale', ones),
    G:init(ctx.path .. '/group_bias', zeros) }, { { 'epsilon', 'f', m.eps } })
  local shape = G:node(ctx.path, 'Shape', { x })
  if not m.weight then return G:node(ctx.path, 'Reshape', { normed, shape }, nil, y, dyn) end
  local back = G:node(ctx.path, 'Reshape', { normed, shape })
  local view = { m.nChannels }
  for _ = 3, r do view[#view + 1] = 1 end
  local w = G:init(U.pname(ctx, 'weight'), m.weight:contiguous():view(unpack(view)))
  local b = G:init(U.pname(ctx, 'bias'), m.bias:contiguous():view(unpack(view)))
  return G:node(ctx.path, 'Add', { G:node(ctx.path, 'Mul', { back, w }), b }, nil, y, dyn)
end

return M
