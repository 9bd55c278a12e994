-- SummaryWriter's embeddings for TensorBoard's projector (tensors.tsv, metadata.tsv, sprite.png
-- and the run's projector_config.pbtxt, laid out as PyTorch 1.13 lays them out) and image
-- batches drawn as one grid (PyTorch's add_images). Loaded by lua/torch/tensorboard_more.lua.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local pb = require 'torch.tensorboard_proto'
local summaries = require 'torch.tensorboard_summary'
local fail = lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local floor, ceil, sqrt, concat = math.floor, math.ceil, math.sqrt, table.concat

local M = torch.utils.tensorboard
local SummaryWriter = M.SummaryWriter
local I = M._internals
local CLASS = 'tensorboard.SummaryWriter'

-- ---- Image grids -------------------------------------------------------------------------------------

-- PyTorch's make_grid (torch/utils/tensorboard/_utils.py): N images of C x H x W (C = 1 becomes
-- 3) in rows of ncols (at most N), on a zero canvas, in the images' dtype.
local function make_grid(op, nchw, ncols)
  local n, c, h, w = nchw:size(1), nchw:size(2), nchw:size(3), nchw:size(4)
  if c == 1 then nchw, c = nchw:expand(n, 3, h, w), 3 end
  if c ~= 3 and c ~= 4 then fail(op, 'images must have 1, 3 or 4 channels, got %d', c) end
  ncols = math.min(n, ncols)
  local nrows = ceil(n / ncols)
  local canvas = nchw.new(c, h * nrows, w * ncols):zero()
  for i = 0, n - 1 do
    local y, x = floor(i / ncols), i % ncols
    canvas:narrow(2, y * h + 1, h):narrow(3, x * w + 1, w):copy(nchw[i + 1])
  end
  return canvas
end

local function as_nchw(op, what, img, fmt)
  if not is_tensor(img) then fail(op, '%s must be a tensor, got %s', what, describe(img)) end
  if type(fmt) ~= 'string' then fail(op, 'dataformats must be a string, got %s', describe(fmt)) end
  fmt = fmt:upper()
  if #fmt ~= 4 or not (fmt:find('N') and fmt:find('C') and fmt:find('H') and fmt:find('W')) then
    fail(op, "dataformats must order N, C, H and W (e.g. 'NCHW' or 'NHWC'), got '%s'", fmt)
  end
  if img:dim() ~= 4 then fail(op, '%s must have 4 dims for dataformats %s, got a %s', what, fmt, describe(img)) end
  if img:size(1) == 0 then fail(op, '%s holds no image', what) end
  local x = img:detach()
  if x:isCuda() then x = x:cpu() end
  return x:permute((fmt:find('N')), (fmt:find('C')), (fmt:find('H')), (fmt:find('W')))
end

--- writer:addImages(tag, images, step[, opts]): logs a batch of images as one grid of 8 per row
--- (PyTorch's add_images): a byte tensor (0..255) or a floating one in [0, 1] with 1, 3 or 4
--- channels; opts.dataformats 'NCHW' (default) or another order of N, C, H, W; opts.wallTime.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addImages('batch', torch.rand(5, 3, 8, 8), 1); w:close()
function SummaryWriter:addImages(tag, images, step, opts)
  local op = CLASS .. '.addImages'
  local fw = I.main_writer(self, op)
  I.check_tag(op, tag)
  if opts ~= nil and (type(opts) ~= 'table' or is_tensor(opts)) then fail(op, 'options must be a table, got %s', describe(opts)) end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= 'dataformats' and k ~= 'wallTime' then fail(op, 'unknown option %s (expected dataformats, wallTime)', tostring(k)) end
  end
  step = I.read_step(op, step)
  local grid = make_grid(op, as_nchw(op, 'images', images, opts.dataformats or 'NCHW'), 8)
  local hwc, h, w, c = summaries.image_hwc(op, grid, 'CHW')
  local image = pb.image({ height = h, width = w, colorspace = c, encoded = summaries.png_bytes(op, hwc) })
  local t = I.read_walltime(op, opts.wallTime)
  fw:add(op, pb.event({ wall_time = t, step = step, summary = pb.summary({ pb.value({ tag = tag, image = image }) }) }))
end

-- ---- Embeddings -------------------------------------------------------------------------------------

-- Python's str() of a float: the shortest decimal that reads back to the same double, written
-- positionally with '.0' on integral values while the exponent is in [-4, 16), else as 1.5e+16 or
-- 1e-05 (PyTorch writes str(x.item()) of each element).
local ffi = require 'ffi'
pcall(ffi.cdef, 'int snprintf(char *str, size_t size, const char *format, ...);')
local fmt_buf = ffi.new('char[64]')
local function py_float(v)
  if v ~= v then return 'nan' end
  if v == math.huge then return 'inf' end
  if v == -math.huge then return '-inf' end
  local s
  for digits = 1, 17 do  -- the C library's exact rounding (LuaJIT's own rounds ties up; Python's are even)
    s = ffi.string(fmt_buf, ffi.C.snprintf(fmt_buf, 64, '%.*e', ffi.new('int', digits - 1), ffi.new('double', v)))
    if tonumber(s) == v then break end
  end
  local sign, mant, e = s:match('^(-?)([%d.]+)e([-+]%d+)$')
  local digits = mant:gsub('%.', ''):gsub('0+$', '')
  if digits == '' then digits = '0' end
  local exp = tonumber(e)
  if exp < -4 or exp >= 16 then
    local m = digits:sub(1, 1) .. (#digits > 1 and '.' .. digits:sub(2) or '')
    return string.format('%s%se%s%02d', sign, m, exp < 0 and '-' or '+', math.abs(exp))
  end
  if exp < 0 then return sign .. '0.' .. string.rep('0', -exp - 1) .. digits end
  local int = digits:sub(1, exp + 1)
  int = int .. string.rep('0', exp + 1 - #int)
  local frac = digits:sub(exp + 2)
  return sign .. int .. '.' .. (frac == '' and '0' or frac)
end

local function py_str(op, v)
  if type(v) == 'number' then return v == floor(v) and math.abs(v) < 2 ^ 53 and string.format('%d', v) or py_float(v) end
  if type(v) == 'string' then return v end
  if type(v) == 'boolean' then return v and 'True' or 'False' end
  fail(op, 'metadata values must be strings, numbers or booleans, got %s', describe(v))
end

local function write_file(op, path, bytes)
  local f, err = io.open(path, 'wb')
  if not f then fail(op, 'cannot write %s: %s', path, tostring(err)) end
  local ok, werr = f:write(bytes)
  f:close()
  if not ok then fail(op, 'cannot write %s: %s', path, tostring(werr)) end
end

-- PyTorch's _encode of a tag used as a directory name.
local function encode_tag(tag)
  return (tag:gsub('%%', '%%25'):gsub('/', '%%2f'):gsub('\\', '%%5c'))
end

local function pbtxt_string(s)
  return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"'):gsub('\n', '\\n') .. '"'
end

-- text_format of ProjectorConfig{embeddings = {...}}: fields in field-number order
-- (tensor_name 1, metadata_path 2, sprite 5, tensor_path 6).
local function projector_pbtxt(infos)
  local out = {}
  for _, e in ipairs(infos) do
    out[#out + 1] = 'embeddings {\n  tensor_name: ' .. pbtxt_string(e.tensor_name) .. '\n'
    if e.metadata_path then out[#out + 1] = '  metadata_path: ' .. pbtxt_string(e.metadata_path) .. '\n' end
    if e.sprite_path then
      out[#out + 1] = '  sprite {\n    image_path: ' .. pbtxt_string(e.sprite_path) .. '\n'
        .. '    single_image_dim: ' .. e.dims[1] .. '\n    single_image_dim: ' .. e.dims[2] .. '\n  }\n'
    end
    out[#out + 1] = '  tensor_path: ' .. pbtxt_string(e.tensor_path) .. '\n}\n'
  end
  return concat(out)
end

local function metadata_tsv(op, metadata, header, n)
  if type(metadata) ~= 'table' or is_tensor(metadata) then fail(op, 'metadata must be a list, got %s', describe(metadata)) end
  if #metadata ~= n then fail(op, 'metadata must have one entry per row of mat (%d), got %d', n, #metadata) end
  local lines = {}
  if header == nil then
    for i = 1, n do lines[i] = py_str(op, metadata[i]) end
  else
    if type(header) ~= 'table' or is_tensor(header) then fail(op, 'metadataHeader must be a list, got %s', describe(header)) end
    local function row(r, what)
      if type(r) ~= 'table' or #r ~= #header then
        fail(op, '%s must be a list of %d columns like metadataHeader, got %s', what, #header, describe(r))
      end
      local cells = {}
      for j = 1, #r do cells[j] = py_str(op, r[j]) end
      return concat(cells, '\t')
    end
    lines[1] = row(header, 'metadataHeader')
    for i = 1, n do lines[i + 1] = row(metadata[i], 'metadata[' .. i .. ']') end
  end
  return concat(lines, '\n') .. '\n'
end

-- mat's rows as Python's str() of each item: floats, ints for integer dtypes, True/False for bool.
local INTEGRAL = { ['torch.LongTensor'] = true, ['torch.IntTensor'] = true, ['torch.ShortTensor'] = true,
  ['torch.ByteTensor'] = true, ['torch.CharTensor'] = true }
local function tensors_tsv(mat)
  local ty = mat:type()
  local rows = mat:double():totable()
  local lines = {}
  for i, r in ipairs(rows) do
    for j = 1, #r do
      if ty == 'torch.BoolTensor' then r[j] = r[j] ~= 0 and 'True' or 'False'
      elseif INTEGRAL[ty] then r[j] = string.format('%d', r[j])
      else r[j] = py_float(r[j]) end
    end
    lines[i] = concat(r, '\t')
  end
  return concat(lines, '\n') .. '\n'
end

-- PyTorch's make_sprite: the images in a grid of ceil(sqrt(N)) per row, pasted at the top of a
-- black square as wide as the grid. Floating images are scaled by 255 and truncated; byte images
-- are taken as they are (PyTorch would scale them too, which saturates them).
local function sprite_png(op, label_img, n)
  local imgs = as_nchw(op, 'labelImg', label_img, 'NCHW')
  if imgs:size(1) ~= n then fail(op, 'labelImg must hold one image per row of mat (%d), got %d', n, imgs:size(1)) end
  local grid = make_grid(op, imgs, ceil(sqrt(n)))
  local side = math.max(grid:size(2), grid:size(3))
  local square = grid.new(grid:size(1), side, side):zero()
  square:narrow(2, 1, grid:size(2)):narrow(3, 1, grid:size(3)):copy(grid)
  local hwc = summaries.image_hwc(op, square, 'CHW', true)  -- PyTorch's make_sprite scales in float64
  return summaries.png_bytes(op, hwc), { imgs:size(4), imgs:size(3) }
end

--- writer:addEmbedding(mat[, opts]): saves the rows of mat (N x D) for TensorBoard's projector
--- under logDir/<step, 5 digits>/<tag>/ with opts.metadata (N labels, or N rows of columns named
--- by opts.metadataHeader), opts.labelImg (N images, NCHW) as a sprite, opts.globalStep (0) and
--- opts.tag ('default'), and lists it in logDir/projector_config.pbtxt, as PyTorch does.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addEmbedding(torch.randn(4, 3), {metadata = {'a', 'b', 'c', 'd'}}); w:close()
function SummaryWriter:addEmbedding(mat, opts)
  local op = CLASS .. '.addEmbedding'
  I.main_writer(self, op)
  if opts ~= nil and (type(opts) ~= 'table' or is_tensor(opts)) then fail(op, 'options must be a table, got %s', describe(opts)) end
  opts = opts or {}
  local known = { metadata = true, labelImg = true, globalStep = true, tag = true, metadataHeader = true }
  for k in pairs(opts) do
    if not known[k] then fail(op, 'unknown option %s (expected globalStep, labelImg, metadata, metadataHeader, tag)', tostring(k)) end
  end
  if not is_tensor(mat) then fail(op, 'mat must be a tensor, got %s', describe(mat)) end
  if mat:dim() ~= 2 then fail(op, 'mat must have 2 dims (points x features), got a %s', describe(mat)) end
  local n = mat:size(1)
  local step = I.read_step(op, opts.globalStep) or 0
  local tag = opts.tag or 'default'
  I.check_tag(op, tag)
  local step5 = string.format('%05d', step)
  local subdir = step5 .. '/' .. encode_tag(tag)
  local dir = self.logDir .. '/' .. subdir
  local info = { tensor_name = tag .. ':' .. step5, tensor_path = subdir .. '/tensors.tsv' }
  -- everything is computed before anything is written
  local meta = opts.metadata ~= nil and metadata_tsv(op, opts.metadata, opts.metadataHeader, n)
  if opts.metadata == nil and opts.metadataHeader ~= nil then fail(op, 'metadataHeader needs metadata') end
  local sprite
  if opts.labelImg ~= nil then sprite, info.dims = sprite_png(op, opts.labelImg, n) end
  local x = mat:detach()
  if x:isCuda() then x = x:cpu() end
  local values = tensors_tsv(x)
  I.mkdir_p(dir)
  if meta then
    write_file(op, dir .. '/metadata.tsv', meta)
    info.metadata_path = subdir .. '/metadata.tsv'
  end
  if sprite then
    write_file(op, dir .. '/sprite.png', sprite)
    info.sprite_path = subdir .. '/sprite.png'
  end
  write_file(op, dir .. '/tensors.tsv', values)
  self._embeddings = self._embeddings or {}
  self._embeddings[#self._embeddings + 1] = info
  write_file(op, self.logDir .. '/projector_config.pbtxt', projector_pbtxt(self._embeddings))
end

return M
