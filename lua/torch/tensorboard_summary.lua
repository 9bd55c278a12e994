-- The values of TensorBoard summaries that need computing: histograms (PyTorch's make_histogram
-- on NumPy's bin rule) and images (to height x width x channels bytes, then PNG through libpng).
-- Used by lua/torch/tensorboard.lua; encodes through lua/torch/tensorboard_proto.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local pb = require 'torch.tensorboard_proto'
local C, fail = lib.C, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local floor = math.floor

local M = {}

-- ---- Histograms --------------------------------------------------------------------------------------

-- PyTorch's default bins ('tensorflow', from TensorBoard's generate_testdata.py): 0 and
-- +-1e-12 * 1.1^k below 1e20, computed in doubles exactly as PyTorch does.
local tf_edges
local function tensorflow_edges()
  if not tf_edges then
    local pos, v = {}, 1e-12
    while v < 1e20 do pos[#pos + 1] = v v = v * 1.1 end
    local e = {}
    for i = #pos, 1, -1 do e[#e + 1] = -pos[i] end
    e[#e + 1] = 0
    for i = 1, #pos do e[#e + 1] = pos[i] end
    tf_edges = e
  end
  return tf_edges
end

-- n equal-width bins over [lo, hi] with NumPy's linspace (start + i * step, the last edge exact).
local function uniform_edges(lo, hi, n)
  if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  local e, step = {}, (hi - lo) / n
  for i = 0, n - 1 do e[i + 1] = lo + i * step end
  e[n + 1] = hi
  return e
end

-- Note [Histogram counts]: np.histogram's rule (bin i holds edges[i] <= v < edges[i+1], the last
-- bin closed, values outside dropped) through torch.bucketize against the edges themselves and
-- torch.bincount (exact int64 counts). torch.histc would place values by a formula, which can
-- put a value lying on an edge into the neighbouring bin, so equal-width bins take this path too.
local function bin_counts(x, edges)
  local n = #edges
  local e = torch.DoubleTensor(edges)
  local idx = torch.bucketize(x, e, { right = true }) - 1  -- 0 below, n above
  idx:maskedFill(x:eq(edges[n]), n - 1)
  return torch.bincount(idx, nil, n + 1):narrow(1, 2, n - 1):totable()
end

-- Note [Histogram bin limit]: the edges are a Lua list, so bins = 1e9 died with "table overflow"
-- (no function named) after minutes of work, and PyTorch's NumPy would fail for lack of memory.
-- TensorBoard draws at most a few dozen buckets; a million is an error of the caller's, not a plot.
local MAX_BINS = 1000000

-- PyTorch's make_histogram: the buckets from the one before the first non-empty bin to the last
-- non-empty one, each with its right edge (bucket_limit), the first one empty.
function M.histogram(op, values, bins)
  local x = values
  if type(x) == 'table' and not is_tensor(x) then
    local ok, t = pcall(torch.DoubleTensor, x)
    if not ok then fail(op, 'values must be a tensor or a list of numbers, got a table that is not one') end
    x = t
  end
  if not is_tensor(x) then fail(op, 'values must be a tensor, got %s', describe(values)) end
  if x:nElement() == 0 then fail(op, 'values is empty') end
  -- detached: a parameter that requires grad would make the reductions below 0-dim tensors
  -- (Note [Full reductions under autograd]) and record a graph
  x = x:detach():double()
  if x:isCuda() then x = x:cpu() end
  x = x:contiguous():view(-1)
  local lo, hi = x:min(), x:max()
  if lo ~= lo or hi ~= hi or lo == -math.huge or hi == math.huge then
    fail(op, 'values must be finite, got %s', (lo ~= lo or hi ~= hi) and 'NaN' or 'an infinity')
  end
  local edges
  if bins == nil or bins == 'tensorflow' then
    edges = tensorflow_edges()
  elseif type(bins) == 'number' and bins >= 1 and bins == floor(bins) then
    if bins > MAX_BINS then fail(op, 'bins must be at most %d (Note [Histogram bin limit]), got %s', MAX_BINS, tostring(bins)) end
    edges = uniform_edges(lo, hi, bins)
  else
    fail(op, "bins must be 'tensorflow' or a positive integer, got %s", type(bins) == 'number' and tostring(bins) or describe(bins))
  end
  local counts = bin_counts(x, edges)
  local first, last
  for i = 1, #counts do
    if counts[i] > 0 then first = first or i last = i end
  end
  if not first then fail(op, 'no value falls within the bins (|values| reach 1e20)') end
  local bucket, limit = { 0 }, { edges[first] }
  for i = first, last do
    bucket[#bucket + 1] = counts[i]
    limit[#limit + 1] = edges[i + 1]
  end
  return pb.histogram({ min = lo, max = hi, num = x:nElement(), sum = x:sum(), sum_squares = x:dot(x),
    bucket_limit = limit, bucket = bucket })
end

-- ---- Images ----------------------------------------------------------------------------------------------

-- Note [Image conversion]: as PyTorch's add_image: dataformats names the dims (any order of C,
-- H and W, or of H and W); one channel (or HW) becomes gray RGB; byte images are taken as is,
-- floating ones as [0, 1] scaled by 255 and truncated (PyTorch's astype(uint8)), clamped first
-- where PyTorch would wrap. PyTorch converts a floating image to float32 before scaling, and
-- the float32 product can round up to the next integer (a double 0.79999999 gives 204, not 203),
-- so the scaling is done in floats; scaleInDoubles is for the projector's sprite, which PyTorch
-- scales in float64.
function M.image_hwc(op, img, fmt, scaleInDoubles)
  if not is_tensor(img) then fail(op, 'img must be a tensor, got %s', describe(img)) end
  if type(fmt) ~= 'string' then fail(op, 'dataformats must be a string, got %s', describe(fmt)) end
  fmt = fmt:upper()
  local letters = fmt:find('H') and fmt:find('W') and (#fmt == 2 or #fmt == 3 and fmt:find('C'))
  if not letters then fail(op, "dataformats must be 'CHW', 'HWC' or 'HW' (or another order of those letters), got '%s'", fmt) end
  if img:dim() ~= #fmt then fail(op, 'img must have %d dims for dataformats %s, got a %s', #fmt, fmt, describe(img)) end
  local dtype = img.p.dtype
  local byte = dtype == lib.dtype.u8
  if not byte and dtype > lib.dtype.bf16 then fail(op, 'img must be a byte or floating tensor, got a %s', describe(img)) end
  local x = img:detach()
  if x:isCuda() then x = x:cpu() end
  if #fmt == 2 then
    x = x:permute((fmt:find('H')), (fmt:find('W'))):contiguous()
    x = x:view(x:size(1), x:size(2), 1)
  else x = x:permute((fmt:find('H')), (fmt:find('W')), (fmt:find('C'))) end
  local h, w, c = x:size(1), x:size(2), x:size(3)
  if c ~= 1 and c ~= 3 and c ~= 4 then fail(op, 'img must have 1, 3 or 4 channels, got %d', c) end
  if h == 0 or w == 0 then fail(op, 'img is empty (%dx%d)', h, w) end
  -- torch.mul makes a new tensor: x may still be the caller's image
  if not byte then x = torch.mul(scaleInDoubles and x:double() or x:float(), 255):clamp(0, 255):floor():byte() end
  if c == 1 then x, c = x:expand(h, w, 3), 3 end
  return x:contiguous(), h, w, c
end

-- PNG through libpng (tocha_image_write), which writes files only: a temporary one.
function M.png_bytes(op, hwc)
  local base = os.tmpname()
  local path = base .. '.png'
  local rc = C.tocha_image_write(path, hwc.p, 90)
  os.remove(base)
  if rc ~= 0 then
    os.remove(path)
    fail(op, 'cannot encode the image as PNG: %s', ffi.string(C.tocha_last_error()))
  end
  local f = assert(io.open(path, 'rb'))
  local bytes = f:read('*a')
  f:close()
  os.remove(path)
  return bytes
end

return M
