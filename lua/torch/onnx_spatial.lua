-- ONNX nodes of Tocha's resampling and channel-rearranging modules for torch.onnx.export: the
-- upsampling modules (nn.Upsample and its 2-D names, Torch7's Spatial/Volumetric UpSampling) as
-- Resize, PixelShuffle as DepthToSpace (mode CRD), ChannelShuffle as Reshape, Transpose, Reshape.
local lib = require 'torch.lib'
local U = require 'torch.onnx_util'

local M = {}
local function fail(fmt, ...) lib.fail('torch.onnx.export', fmt, ...) end

-- Resampling modules: the number of resampled (trailing) dims, nil when it is the input's rank - 2.
M.RESIZE = { ['nn.Upsample'] = false, ['nn.UpsamplingNearest2d'] = false, ['nn.UpsamplingBilinear2d'] = false,
  ['nn.SpatialUpSamplingNearest'] = 2, ['nn.SpatialUpSamplingBilinear'] = 2, ['nn.VolumetricUpSamplingNearest'] = 3,
  ['nn.VolumetricUpSamplingTrilinear'] = 3 }

-- Note [Resize as PyTorch exports it]: PyTorch 1.13 (opset 13) exports interpolate as Resize with
-- coordinate_transformation_mode 'asymmetric' and nearest_mode 'floor' for nearest (source index
-- floor(i / scale)), 'align_corners' for the linear modes with alignCorners (Torch7's bilinear and
-- trilinear modules always align them) and 'pytorch_half_pixel' without ((i + 0.5) / scale - 0.5,
-- clamped at 0, PyTorch's area_pixel_compute_source_index). A user's scale factor is also the
-- scale of PyTorch's coordinates (unless recomputeScaleFactor), so it goes out as Resize's scales
-- (the output size floor(in * scale) as PyTorch's); an explicit size (or a recomputed scale) goes
-- out as sizes, whose scale is out / in, PyTorch's ratio then. 'nearest-exact', 'area' and
-- 'bicubic' are errors.
local function resize_spec(m, nd)
  local mode, align, sf = m.mode, nil, nil
  if mode then -- nn.Upsample and its PyTorch names
    if mode ~= 'nearest' and mode ~= 'linear' and mode ~= 'bilinear' and mode ~= 'trilinear' then
      return nil, string.format("mode '%s' is not exported (nearest, linear, bilinear and trilinear are)", mode)
    end
    align = mode ~= 'nearest' and m.alignCorners == true
    if m.scaleFactor and m.recomputeScaleFactor ~= true then sf = m.scaleFactor end
    mode = mode == 'nearest' and 'nearest' or 'linear'
  else -- Torch7's modules: integer scale_factor, or output sizes (linear ones, corners aligned)
    local nearest = torch.typename(m):find('Nearest') ~= nil
    mode, align, sf = nearest and 'nearest' or 'linear', not nearest, m.scale_factor
  end
  local scales
  if sf then
    scales = {}
    for i = 1, nd do scales[i] = type(sf) == 'table' and sf[i] or sf end
  end
  return mode, align, scales
end

--- onnx_spatial.resize(G, m, x, y, ctx): a Resize node (Note [Resize as PyTorch exports it]).
function M.resize(G, m, x, y, ctx)
  local r = #x.shape
  local nd = M.RESIZE[torch.typename(m)] or r - 2
  local lead = r - nd
  if nd < 1 or lead < 1 then fail('%s got a %dD input, which it does not resample', ctx.where, r) end
  local mode, align, scales = resize_spec(m, nd)
  if not mode then fail('%s: %s', ctx.where, align) end
  local dyn = {}
  for k, p in pairs(x.dyn) do
    if k > lead then fail('dynamicAxes: the resampled dim %d cannot vary through %s', k, ctx.where) end
    dyn[k] = p
  end
  local ins
  if scales then
    local s = {}
    for i = 1, lead do s[i] = 1 end
    for i = 1, nd do s[lead + i] = scales[i] end
    local f = torch.FloatTensor(s)
    -- ONNX sizes the output floor(in * scale) with the float scale: a factor that rounds below the
    -- module's size (2.3 on 10 cells) would declare a size the file does not compute
    for i = 1, nd do
      local n, want = math.floor(x.shape[lead + i] * f[lead + i]), y:size(lead + i)
      if n ~= want then
        fail('%s: scale factor %s gives %d cells in ONNX\'s float arithmetic where the module gives %d; give a size',
          ctx.where, tostring(scales[i]), n, want)
      end
    end
    ins = { x, '', G:init(ctx.path .. '/scales', f) }
  else
    local p, sizes = ctx.path, G:dims(y)
    local target
    if next(dyn) then -- the kept dims from Shape(x), the resampled ones constant
      local shape = G:node(p, 'Shape', { x })
      local kept = G:node(p, 'Slice', { shape, G:constInts(p, { 0 }), G:constInts(p, { lead }), G:constInts(p, { 0 }) })
      local tail = {}
      for i = 1, nd do tail[i] = sizes[lead + i] end
      target = G:node(p, 'Concat', { kept, G:constInts(p, tail) }, { { 'axis', 'i', 0 } })
    else
      target = G:constInts(p, sizes)
    end
    ins = { x, '', '', target }
  end
  local attrs = { { 'coordinate_transformation_mode', 's',
    mode == 'nearest' and 'asymmetric' or align and 'align_corners' or 'pytorch_half_pixel' }, { 'mode', 's', mode } }
  if mode == 'nearest' then attrs[3] = { 'nearest_mode', 's', 'floor' } end
  return G:node(ctx.path, 'Resize', ins, attrs, y, dyn)
end

--- onnx_spatial.pixelShuffle(G, m, x, y, ctx): DepthToSpace (blocksize r, mode CRD: PyTorch's
--- channel order c * r * r + i * r + j); a C*r*r x H x W input gets a batch dim around it.
function M.pixelShuffle(G, m, x, y, ctx)
  if #x.shape > 4 then fail('%s: a %dD input (more than one leading dim) is not exported', ctx.where, #x.shape) end
  return U.withBatch(G, x, y, 2, ctx, function(xin, yb)
    return G:node(ctx.path, 'DepthToSpace', { xin }, { { 'blocksize', 'i', m.upscaleFactor }, { 'mode', 's', 'CRD' } },
      yb, U.batchOnly(xin, ctx))
  end)
end

--- onnx_spatial.channelShuffle(G, m, x, y, ctx): N x C x ... as N x g x C/g x ..., dims 2 and 3
--- swapped, and back (Reshape, Transpose, Reshape; PyTorch 1.13 cannot export channel_shuffle).
function M.channelShuffle(G, m, x, y, ctx)
  local s, g, p = x.shape, m.groups, ctx.path
  if #s < 3 then fail('%s: a %dD input is not exported (expected N x C x ...)', ctx.where, #s) end
  local dyn = U.batchOnly(x, ctx)
  local n = dyn[1] and 0 or s[1]
  local split, back = { n, g, s[2] / g }, { n, s[2] }
  for i = 3, #s do split[#split + 1], back[#back + 1] = s[i], s[i] end
  local size = { s[1], g, s[2] / g }
  for i = 3, #s do size[#size + 1] = s[i] end
  local grouped = G:node(p, 'Reshape', { x, G:constInts(p, split) }, nil, x.t.new(torch.LongStorage(size)):zero(), dyn)
  local perm = { 0, 2, 1 }
  for i = 4, #size do perm[i] = i - 1 end
  size[2], size[3] = size[3], size[2]
  local swapped = G:node(p, 'Transpose', { grouped }, { { 'perm', 'ints', perm } },
    x.t.new(torch.LongStorage(size)):zero(), dyn)
  return G:node(p, 'Reshape', { swapped, G:constInts(p, back) }, nil, y, dyn)
end

return M
