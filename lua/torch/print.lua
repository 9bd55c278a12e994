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

-- Print settings (torch.setPrintoptions in misc_pytorch.lua); the defaults give Torch7's output.
local opts = { precision = 4, threshold = math.huge, edgeitems = 3, linewidth = 80 }
torch._print_options = opts

-- Torch7's Storage__printformat over n values: returns format, scale (or nil), width. The
-- digits after the point are opts.precision (Torch7's 4); opts.sciMode true/false forces or
-- forbids the %e format for non-integer values.
local function print_format(buf, n)
  if n == 0 then return '', nil, 0 end
  local prec, sci = opts.precision, opts.sciMode
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
      sz = 7 + prec
      format = '%' .. sz .. '.' .. prec .. 'e'
    else
      sz = exp_max + 1
      format = '%' .. sz .. 'd'
    end
  else
    if sci == true or (sci == nil and exp_max - exp_min > 4) then
      sz = 7 + prec
      if math.abs(exp_max) > 99 or math.abs(exp_min) > 99 then sz = sz + 1 end
      format = '%' .. sz .. '.' .. prec .. 'e'
    elseif sci == false and exp_max - exp_min > 4 then
      sz = math.max(exp_max, 1) + 2 + prec
      format = '%' .. sz .. '.' .. prec .. 'f'
    elseif (exp_max > 5 or exp_max < 0) and exp_max - 1 < -307 then
      -- Note [Subnormal scale]: Torch7 divides by 10^(expMax-1), which underflows for values
      -- below 1e-307 (5e-324 printed as "0 *" and "inf", 1.5e-320 as "9.99989e-321 *"); those
      -- take the %e format that mixed magnitudes get, as PyTorch prints them (4.9407e-324).
      sz = 8 + prec
      format = '%' .. sz .. '.' .. prec .. 'e'
    elseif exp_max > 5 or exp_max < 0 then
      sz = 3 + prec
      format = '%' .. sz .. '.' .. prec .. 'f'
      scale = math.pow(10, exp_max - 1)
    else
      sz = exp_max == 0 and 3 + prec or exp_max + 2 + prec
      format = '%' .. sz .. '.' .. prec .. 'f'
    end
  end
  if scale == 1 then scale = nil end
  if format:sub(2, 4) == 'nan' or format:find('inf') then format = '%f' end
  return format, scale, sz
end

-- '...' right-aligned in a cell of width sz; a NaN or infinite width (the '%f' fallback above)
-- has no cell width: '%nans' was an invalid format, so summarizing a tensor with a NaN raised.
local function dots(sz)
  if sz ~= sz or sz == math.huge then return '...' end
  return ('%' .. sz .. 's'):format('...')
end

local function fmt(format, v)
  if format:sub(-1) == 'd' then
    if v ~= v or v == math.huge or v == -math.huge then return string.format('%' .. format:sub(2, -2) .. 's', tostring(v)) end
    return string.format(format, v)
  end
  return string.format(format, v)
end

-- The indices of a dim of size n to print, as a count and an accessor (no list: a dim may be
-- huge when another is 0): all of them, or, while summarizing (more than opts.threshold
-- elements), opts.edgeitems at each end around a 0 that prints as '...'.
local function all_index(k) return k end
local function kept(n, summarize)
  local e = opts.edgeitems
  if summarize and n > 2 * e then
    return 2 * e + 1, function(k)
      if k <= e then return k elseif k == e + 1 then return 0 end
      return n - (2 * e + 1) + k
    end
  end
  return n, all_index
end

-- The matrix at element offset `base` (rows x cols with the given strides) in Torch7's layout,
-- printing the rows and columns listed (0: a '...' gap).
local function print_matrix(buf, base, rows, cols, rs, cs, format, scale, sz, indent, out, summarize)
  scale = scale or 1
  local nrows, row = kept(rows, summarize)
  local ncols, col = kept(cols, summarize)
  out[#out + 1] = indent
  -- A NaN width (a NaN in the tensor, '%f') puts every column on one line, as in Torch7 (its
  -- nColumnPerLine is NaN); an infinite one (sciMode false with an inf) does the same rather
  -- than one column per block.
  local per_line = ncols
  if sz == sz and sz ~= math.huge then per_line = math.max(1, math.floor((opts.linewidth - #indent) / (sz + 1))) end
  local first = 1
  while first <= ncols do
    local last = math.min(first + per_line - 1, ncols)
    if per_line < ncols then
      if first ~= 1 then out[#out + 1] = '\n' end
      local a, b = col(first) == 0 and col(first + 1) or col(first), col(last) == 0 and col(last - 1) or col(last)
      out[#out + 1] = 'Columns ' .. a .. ' to ' .. b .. '\n' .. indent
    end
    if scale ~= 1 then out[#out + 1] = string.format('%g', scale) .. ' *\n ' .. indent end
    for li = 1, nrows do
      local l = row(li)
      for ci = first, last do
        local c = col(ci)
        if l == 0 then
          out[#out + 1] = ci == first and dots(sz) or ''
        elseif c == 0 then
          out[#out + 1] = dots(sz)
        else
          out[#out + 1] = fmt(format, buf[base + (l - 1) * rs + (c - 1) * cs] / scale)
        end
        if ci == last then
          out[#out + 1] = '\n'
          if li ~= nrows then out[#out + 1] = scale ~= 1 and (indent .. ' ') or indent end
        elseif l ~= 0 then
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
  local summarize = n > opts.threshold
  if nd == 0 then
    out[1] = fmt(format, buf[0] / (scale or 1)) .. '\n'
    if scale then out[1] = string.format('%g', scale) .. ' *\n' .. out[1] end
    out[2] = '[' .. name .. ' of size []]\n'
  elseif nd == 1 then
    if scale then out[#out + 1] = string.format('%g', scale) .. ' *\n' end
    local count, at = kept(n, summarize)
    for k = 1, count do
      local i = at(k)
      out[#out + 1] = (i == 0 and dots(sz) or fmt(format, buf[i - 1] / (scale or 1))) .. '\n'
    end
    out[#out + 1] = footer(name, p)
  elseif nd == 2 then
    local rows, cols = tonumber(p.size[0]), tonumber(p.size[1])
    -- an empty matrix prints its footer only: 0x4194304 printed 52429 empty column blocks
    if n > 0 then print_matrix(buf, 0, rows, cols, cols, 1, format, scale, sz, '', out, summarize) end
    out[#out + 1] = footer(name, p)
  else
    local sizes = types.size_table(p)
    local rows, cols = sizes[nd - 1], sizes[nd]
    -- Each leading dim walks its kept indices (all of them unless summarizing); Torch7
    -- advances the first index fastest.
    if rows * cols > 0 and n > 0 then
      local counts, at, pos, counter = {}, {}, {}, {}
      for i = 1, nd - 2 do
        counts[i], at[i] = kept(sizes[i], summarize)
        pos[i] = 1
      end
      local done, firstslice, last_gap = false, true, false
      while not done do
        local gap = false
        for i = 1, nd - 2 do
          counter[i] = at[i](pos[i])
          if counter[i] == 0 then gap = true end
        end
        if gap then
          if not last_gap then out[#out + 1] = '\n...\n' end  -- one line per run of skipped slices
          last_gap = true
        else
          if not firstslice and not last_gap then out[#out + 1] = '\n' end
          firstslice, last_gap = false, false
          out[#out + 1] = '(' .. table.concat(counter, ',') .. ',.,.) = \n'
          local base, stride = 0, rows * cols
          for i = nd - 2, 1, -1 do
            base = base + (counter[i] - 1) * stride
            stride = stride * sizes[i]
          end
          print_matrix(buf, base, rows, cols, cols, 1, format, scale, sz, ' ', out, summarize)
        end
        done = true
        for i = 1, nd - 2 do
          pos[i] = pos[i] + 1
          if pos[i] <= counts[i] then done = false break end
          pos[i] = 1
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
