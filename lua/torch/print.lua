-- tostring() of tensors and storages in Torch7's exact format: one number format per tensor
-- chosen from all its values, a common scale line when needed, `Columns a to b` blocks at 80
-- characters, `(i,j,.,.) = ` slice headers, and the `[torch.FloatTensor of size 2x3]` footer.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local float_read = require 'torch.float_read'
local C = lib.C

-- Values of a tensor as a contiguous double array (a Lua-owned copy) and their count.
local function as_doubles(p)
  local n = tonumber(p.numel)
  local h = lib.wrap(C.tocha_tensor_to_device(p, 0, 0))
  local d = lib.wrap(C.tocha_tensor_to_dtype(h.p, lib.dtype.f64))
  local c = d:contiguous()
  local buf = ffi.new('double[?]', n > 0 and n or 1)
  if n > 0 then ffi.copy(buf, ffi.cast('double *', c.p.storage.data) + c.p.storage_offset, n * 8) end
  return float_read.canonicalize(buf, n), n
end

-- Torch7's Storage__printformat over n values: returns format, scale (or nil), width.
local function print_format(buf, n)
  if n == 0 then return '', nil, 0 end
  local int_mode = true
  for i = 0, n - 1 do
    if buf[i] ~= math.ceil(buf[i]) then int_mode = false break end
  end
  local amin, amax = math.abs(buf[0]), math.abs(buf[0])
  for i = 1, n - 1 do
    local a = math.abs(buf[i])
    if a < amin or a ~= a then amin = a end
    if a > amax or a ~= a then amax = a end
  end
  local exp_min = amin ~= 0 and math.floor(math.log10(amin)) + 1 or 1
  local exp_max = amax ~= 0 and math.floor(math.log10(amax)) + 1 or 1
  local format, scale, sz
  if int_mode then
    if exp_max > 9 then
      format, sz = '%11.4e', 11
    else
      sz = exp_max + 1
      format = '%' .. sz .. 'd'
    end
  else
    if exp_max - exp_min > 4 then
      sz = 11
      if math.abs(exp_max) > 99 or math.abs(exp_min) > 99 then sz = sz + 1 end
      format = '%' .. sz .. '.4e'
    elseif exp_max > 5 or exp_max < 0 then
      sz = 7
      format = '%7.4f'
      scale = math.pow(10, exp_max - 1)
    else
      sz = exp_max == 0 and 7 or exp_max + 6
      format = '%' .. sz .. '.4f'
    end
  end
  if scale == 1 then scale = nil end
  if format:sub(2, 4) == 'nan' or format:find('inf') then format = '%f' end
  return format, scale, sz
end

local function fmt(format, v)
  if format:sub(-1) == 'd' then
    if v ~= v or v == math.huge or v == -math.huge then return string.format('%' .. format:sub(2, -2) .. 's', tostring(v)) end
    return string.format(format, v)
  end
  return string.format(format, v)
end

-- The matrix at element offset `base` (rows x cols with the given strides) in Torch7's layout.
local function print_matrix(buf, base, rows, cols, rs, cs, format, scale, sz, indent, out)
  scale = scale or 1
  out[#out + 1] = indent
  local per_line = math.floor((80 - #indent) / (sz + 1))
  local first = 1
  while first <= cols do
    local last = math.min(first + per_line - 1, cols)
    if per_line < cols then
      if first ~= 1 then out[#out + 1] = '\n' end
      out[#out + 1] = 'Columns ' .. first .. ' to ' .. last .. '\n' .. indent
    end
    if scale ~= 1 then out[#out + 1] = string.format('%g', scale) .. ' *\n ' .. indent end
    for l = 1, rows do
      for c = first, last do
        out[#out + 1] = fmt(format, buf[base + (l - 1) * rs + (c - 1) * cs] / scale)
        if c == last then
          out[#out + 1] = '\n'
          if l ~= rows then out[#out + 1] = scale ~= 1 and (indent .. ' ') or indent end
        else
          out[#out + 1] = ' '
        end
      end
    end
    first = last + 1
  end
end

local function footer(name, p)
  return '[' .. name .. ' of size ' .. types.shape_str(p) .. ']\n'
end

function torch._tensor_tostring(t)
  local p = t.p
  if p == lib.FREED then return '[freed tensor]\n' end
  local name = types.typename(t)
  if p.numel == 0 and p.ndim <= 1 then return '[' .. name .. ' with no dimension]\n' end
  local buf, n = as_doubles(p)
  local format, scale, sz = print_format(buf, n)
  local out = {}
  local nd = p.ndim
  if nd == 0 then
    out[1] = fmt(format, buf[0] / (scale or 1)) .. '\n'
    if scale then out[1] = string.format('%g', scale) .. ' *\n' .. out[1] end
    out[2] = '[' .. name .. ' of size []]\n'
  elseif nd == 1 then
    if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
    for i = 0, n - 1 do out[#out + 1] = fmt(format, buf[i] / (scale or 1)) .. '\n' end
    out[#out + 1] = footer(name, p)
  elseif nd == 2 then
    local rows, cols = tonumber(p.size[0]), tonumber(p.size[1])
    -- an empty matrix prints its footer only: 0x4194304 printed 52429 empty column blocks
    if n > 0 then print_matrix(buf, 0, rows, cols, cols, 1, format, scale, sz, '', out) end
    out[#out + 1] = footer(name, p)
  else
    local sizes = types.size_table(p)
    local rows, cols = sizes[nd - 1], sizes[nd]
    local counter = {}
    for i = 1, nd - 2 do counter[i] = 1 end
    local slices = 1
    for i = 1, nd - 2 do slices = slices * sizes[i] end
    if rows * cols > 0 then
      -- Torch7 advances the first index fastest when walking the slices.
      for s = 1, slices do
        if s > 1 then out[#out + 1] = '\n' end
        out[#out + 1] = '(' .. table.concat(counter, ',') .. ',.,.) = \n'
        local base, stride = 0, rows * cols
        for i = nd - 2, 1, -1 do
          base = base + (counter[i] - 1) * stride
          stride = stride * sizes[i]
        end
        print_matrix(buf, base, rows, cols, cols, 1, format, scale, sz, ' ', out)
        for i = 1, nd - 2 do
          counter[i] = counter[i] + 1
          if counter[i] <= sizes[i] then break end
          counter[i] = 1
        end
      end
    end
    out[#out + 1] = footer(name, p)
  end
  return table.concat(out)
end

function torch._storage_tostring(s)
  local p = s.p
  local buf, n = as_doubles(p)
  local format, scale = print_format(buf, n)
  local out = { '\n' }
  if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
  for i = 0, n - 1 do out[#out + 1] = fmt(format, buf[i] / (scale or 1)) .. '\n' end
  out[#out + 1] = '[' .. types.storage_name[p.dtype] .. ' of size ' .. n .. ']\n'
  return table.concat(out)
end

torch._print_format = print_format
torch._values_as_doubles = as_doubles
return torch
