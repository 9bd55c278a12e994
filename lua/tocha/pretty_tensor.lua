-- Tensors as the REPL shows them: Torch7's format (lua/torch/print.lua) up to `threshold`
-- elements; larger ones abbreviated like NumPy, keeping the first and last `edge` rows, columns
-- and slices with "..." between them, in one number format, with Torch7's footer.

local M = { threshold = 1000, edge = 3 }

-- Values of a (small) tensor as a contiguous double array, and their count (lua/torch/print.lua).
local function as_doubles(t) return torch._values_as_doubles(t.p) end

local function cell(format, v)
  if format:sub(-1) == 'd' and (v ~= v or v == math.huge or v == -math.huge) then
    return string.format('%' .. format:sub(2, -2) .. 's', tostring(v))
  end
  return string.format(format, v)
end

-- For each dim, the original (1-based) indices that are shown.
local function kept_indices(sizes, edge)
  local keep = {}
  for d, n in ipairs(sizes) do
    local k = {}
    if n > 2 * edge then
      for i = 1, edge do k[#k + 1] = i end
      for i = n - edge + 1, n do k[#k + 1] = i end
    else
      for i = 1, n do k[i] = i end
    end
    keep[d] = k
  end
  return keep
end

-- Whether the shown indices jump from position pos to pos + 1 (so "..." goes between them).
local function gap(k, pos) return k[pos + 1] ~= k[pos] + 1 end

-- One matrix: rows x cols values starting at buf[base], laid out as Torch7 does.
local function matrix(out, buf, base, rows, cols, f, indent)
  local ncols = #cols
  for r = 1, #rows do
    local line = { indent }
    for c = 1, ncols do
      line[#line + 1] = cell(f.format, buf[base + (r - 1) * ncols + (c - 1)] / f.scale)
      if c < ncols then line[#line + 1] = gap(cols, c) and ' ... ' or ' ' end
    end
    out[#out + 1] = table.concat(line) .. '\n'
    if r < #rows and gap(rows, r) then out[#out + 1] = indent .. string.rep(' ', math.max(f.sz - 3, 0)) .. '...\n' end
  end
end

-- The abbreviated text of tensor t (whose numel is above the threshold).
local function abbreviated(t, edge)
  local p = t.p
  local nd = p.ndim
  local sizes = {}
  for i = 1, nd do sizes[i] = tonumber(p.size[i - 1]) end
  local keep = kept_indices(sizes, edge)
  -- The kept ends of each dim, joined by cat: an index tensor (built on the CPU) made a large
  -- CUDA tensor fail to show ("[index] expected all tensors on the same device").
  local s = t
  for d = 1, nd do
    if #keep[d] < sizes[d] then s = torch.cat(s:narrow(d, 1, edge), s:narrow(d, sizes[d] - edge + 1, edge), d) end
  end
  local buf, n = as_doubles(s)
  local format, scale, sz = torch._print_format(buf, n)
  local f = { format = format, scale = scale or 1, sz = sz }
  local out = {}
  local scale_line = scale and (string.format('%g', scale) .. ' *\n') or nil
  if nd == 1 then
    if scale_line then out[#out + 1] = scale_line end
    matrix(out, buf, 0, keep[1], { 1 }, f, '')
  elseif nd == 2 then
    if scale_line then out[#out + 1] = scale_line end
    matrix(out, buf, 0, keep[1], keep[2], f, scale and ' ' or '')
  else
    -- Slices over the leading dims, the first index moving fastest (Torch7's order).
    local pos, lead = {}, nd - 2
    for i = 1, lead do pos[i] = 1 end
    local slice_size = #keep[nd - 1] * #keep[nd]
    local slices = 1
    for i = 1, lead do slices = slices * #keep[i] end
    for s_i = 1, slices do
      local base, stride, header = 0, slice_size, {}
      for i = lead, 1, -1 do
        base = base + (pos[i] - 1) * stride
        stride = stride * #keep[i]
      end
      for i = 1, lead do header[i] = keep[i][pos[i]] end
      out[#out + 1] = '(' .. table.concat(header, ',') .. ',.,.) = \n'
      if scale_line then out[#out + 1] = ' ' .. scale_line end
      -- Scaled rows sit one space further in, as in Torch7's slices (' ' .. indent).
      matrix(out, buf, base, keep[nd - 1], keep[nd], f, scale and '  ' or ' ')
      if s_i < slices then
        local skipped = false
        for i = 1, lead do
          if pos[i] < #keep[i] then
            skipped = gap(keep[i], pos[i])
            pos[i] = pos[i] + 1
            break
          end
          pos[i] = 1
        end
        out[#out + 1] = skipped and '\n...\n\n' or '\n'
      end
    end
  end
  out[#out + 1] = '[' .. torch.typename(t) .. ' of size ' .. table.concat(sizes, 'x') .. ']\n'
  return table.concat(out)
end

-- Text of tensor t: Torch7's exact format when small, abbreviated when large.
function M.format(t, threshold, edge)
  threshold, edge = threshold or M.threshold, edge or M.edge
  local p = t.p
  if p == torch._lib.FREED or tonumber(p.numel) <= threshold or p.ndim == 0 then return tostring(t) end
  return abbreviated(t, edge)
end

-- "FloatTensor - size: 2x3", as trepl shows tensors nested in tables.
function M.summary(t)
  local name = (torch.typename(t) or 'Tensor'):gsub('^torch%.', '')
  local p = t.p
  if p == torch._lib.FREED then return name .. ' - freed' end
  if p.ndim == 0 then return name .. ' - size: []' end
  local s = {}
  for i = 0, p.ndim - 1 do s[#s + 1] = tostring(tonumber(p.size[i])) end
  return name .. ' - size: ' .. table.concat(s, 'x')
end

return M
