-- Helpers shared by torch.onnx.export's converters (lua/torch/onnx_*.lua): parameter names,
-- which dims of a value vary (dynamicAxes), unbatched inputs, Pad nodes.
local lib = require 'torch.lib'

local U = {}

-- The batch-norm classes, whose running statistics make them foldable and exportable.
U.BN = { ['nn.BatchNormalization'] = true, ['nn.SpatialBatchNormalization'] = true,
  ['nn.VolumetricBatchNormalization'] = true, ['nn.BatchNorm1d'] = true, ['nn.BatchNorm2d'] = true,
  ['nn.BatchNorm3d'] = true }

--- U.pname(ctx, name): a parameter's initializer name, PyTorch's state-dict path ("1.0.weight").
function U.pname(ctx, name)
  return ctx.param == '' and name or ctx.param .. '.' .. name
end

--- U.keep(x): the varying dims of an elementwise op's output (those of its input).
function U.keep(x)
  local d = {}
  for k, v in pairs(x.dyn) do d[k] = v end
  return d
end

-- Note [Varying dims]: dynamicAxes make graph-input dims symbolic. Elementwise ops keep every
-- varying dim; ops that mix or resize dims (convolutions, pools, reshapes) keep a varying batch
-- dim (1) only, and a varying other dim reaching them is an error naming the module, since the
-- exported attributes (kernel sizes, reshape targets) come from the sample run's sizes.
--- U.batchOnly(x, ctx): the output's varying dims for an op that keeps only the batch dim.
function U.batchOnly(x, ctx)
  for k, p in pairs(x.dyn) do
    if k ~= 1 then
      lib.fail('torch.onnx.export', 'dynamicAxes: dim %d (%s) cannot vary through %s (only the batch dim can)', k,
        tostring(p), ctx.where)
    end
  end
  return { [1] = x.dyn[1] }
end

--- U.withBatch(G, x, y, nd, ctx, fn): runs fn(x, y) on a batched value: an unbatched (nd+1)-D
--- input is unsqueezed to 1 x C x ... and the result squeezed back (ONNX Conv and pools need N).
function U.withBatch(G, x, y, nd, ctx, fn)
  if #x.shape == nd + 2 then return fn(x, y) end
  if #x.shape ~= nd + 1 then
    lib.fail('torch.onnx.export', '%s got a %dD input, expected %dD or %dD', ctx.where, #x.shape, nd + 1, nd + 2)
  end
  -- dim 1 of an unbatched input is not a batch dim (the channels, for a convolution): none may vary
  for k, p in pairs(x.dyn) do
    lib.fail('torch.onnx.export', 'dynamicAxes: dim %d (%s) cannot vary through %s, whose %dD input has no batch dim',
      k, tostring(p), ctx.where, #x.shape)
  end
  local axes = G:constInts(ctx.path, { 0 })
  local xb = G:node(ctx.path, 'Unsqueeze', { x, axes }, nil, x.t:contiguous():view(1, unpack(x.shape)))
  local yb = fn(xb, y:contiguous():view(1, unpack(G:dims(y))))
  return G:node(ctx.path, 'Squeeze', { yb, axes }, nil, y)
end

--- U.pad(G, x, ctx, lo, hi, mode[, value]): a Pad node padding x's last #lo dims by lo/hi
--- (outermost first) in mode 'constant', 'reflect' or 'edge'; ONNX's pads are [x1_begin, x2_begin,
--- ..., x1_end, x2_end, ...] over all dims.
function U.pad(G, x, ctx, lo, hi, mode, value, y)
  local r, nd = #x.shape, #lo
  local pads, shape = {}, {}
  for i = 1, r do
    local k = i - (r - nd)
    pads[i], pads[r + i] = k >= 1 and lo[k] or 0, k >= 1 and hi[k] or 0
    if pads[i] < 0 or pads[r + i] < 0 then
      lib.fail('torch.onnx.export', '%s: negative padding (cropping) is not exported', ctx.where)
    end
    shape[i] = x.shape[i] + pads[i] + pads[r + i]
    if (pads[i] ~= 0 or pads[r + i] ~= 0) and x.dyn[i] then
      lib.fail('torch.onnx.export', 'dynamicAxes: dim %d cannot vary through the padding of %s', i, ctx.where)
    end
  end
  local ins = { x, G:constInts(ctx.path, pads) }
  if mode == 'constant' and value and value ~= 0 then ins[3] = G:constScalar(ctx.path, value, x.elem) end
  y = y or x.t.new(torch.LongStorage(shape))
  return G:node(ctx.path, 'Pad', ins, { { 'mode', 's', mode } }, y, U.keep(x))
end

return U
