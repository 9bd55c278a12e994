-- plot.confusion: a confusion matrix as a heat map (rows: true class, columns: predicted class,
-- as optim.ConfusionMatrix), each cell labelled with its count (or fraction when normalized).
local axes = require 'plot.axes'
local font = require 'plot.font'

local function fail(msg) error('[plot.confusion] ' .. msg, 3) end

-- The matrix as a list of rows of numbers (a 2D tensor of any type or device, or Lua rows).
local function rows_of(m)
  local ok, torch = pcall(require, 'torch')
  if type(m) == 'table' and ok and torch.isTensor(m.mat) then m = m.mat end  -- an optim.ConfusionMatrix
  if type(m) == 'table' then return m end
  if ok and torch.isTensor(m) and m:dim() == 2 then return m:double():totable() end
  fail('matrix must be a square 2D tensor or a list of rows')
end

local function text_width(s, size) return #s > 0 and (#s * font.advance - 1) * size or 0 end

--- plot.confusion{path=, matrix=[, labels={...}][, title=][, normalize=false]}: writes the heat map
--- of a square confusion matrix (rows: true class, columns: predicted; a tensor, Lua rows, or an
--- optim.ConfusionMatrix, whose class names are the default labels) to path (.png or .svg);
--- cells show counts, or fractions (2 decimals) when normalize = true or the values are not
--- whole numbers. Returns path.
return function(opts)
  if type(opts) ~= 'table' then fail('expected a table of options') end
  if type(opts.path) ~= 'string' then fail('path must be a .png or .svg file name, got ' .. tostring(opts.path)) end
  local m = rows_of(opts.matrix)
  local n = #m
  if n == 0 then fail('the matrix is empty') end
  for i, row in ipairs(m) do
    if type(row) ~= 'table' or #row ~= n then fail(string.format('row %d has %s values, expected %d', i,
      type(row) == 'table' and #row or 'no', n)) end
    -- negative counts wrapped around the PNG's bytes (as colors), NaN ones drew nothing
    for j = 1, n do
      local v = row[j]
      if type(v) ~= 'number' or not axes.finite(v) or v < 0 then
        fail(string.format('matrix[%d][%d] must be a finite count >= 0, got %s', i, j,
          type(v) == 'number' and tostring(v):gsub('^-nan', 'nan') or ('a ' .. type(v))))
      end
    end
  end
  if opts.labels ~= nil and type(opts.labels) ~= 'table' then fail('labels must be a list of class names') end
  local labels = opts.labels or (type(opts.matrix) == 'table' and type(opts.matrix.classes) == 'table' and opts.matrix.classes) or {}
  local names = {}
  for i = 1, n do names[i] = tostring(labels[i] or i) end
  local shown, vmax, whole = {}, 0, true
  for i = 1, n do
    local total = 0
    for j = 1, n do total = total + m[i][j] end
    shown[i] = {}
    for j = 1, n do
      local v = m[i][j]
      if opts.normalize then v = total > 0 and v / total or 0 end
      shown[i][j] = v
      vmax = math.max(vmax, v)
      if v ~= math.floor(v) then whole = false end
    end
  end
  -- fractions (an averaged or already normalized matrix) were printed with %d: all 0 and 1
  local fmt = (opts.normalize or not whole) and '%.2f' or '%.0f'

  -- Note [Confusion cell size]: cells of at least 24 pixels made a 24000-pixel square image
  -- for 1000 classes (1.7 GB, minutes of drawing); past 100 classes the grid keeps to about
  -- 2400 pixels, and class names shrink to the font's small size, then are left out.
  local size = 2
  local cell = n <= 100 and math.max(24, math.min(64, math.floor(640 / n))) or math.max(2, math.floor(2400 / n))
  local nsize = cell >= 16 and 2 or cell >= 8 and 1 or 0
  local namew = 0
  if nsize > 0 then for _, s in ipairs(names) do namew = math.max(namew, text_width(s, nsize)) end end
  local left, top = 40 + namew + 12, (opts.title and 44 or 16) + 24
  local bottom = 12 + namew + 30
  local W, H = left + n * cell + 24, top + n * cell + bottom
  local surf = axes.surface(opts.path, W, H, 'plot.confusion')

  for i = 1, n do
    for j = 1, n do
      local t = vmax > 0 and shown[i][j] / vmax or 0
      local color = { math.floor(255 - t * 247 + 0.5), math.floor(255 - t * 207 + 0.5), math.floor(255 - t * 148 + 0.5) }
      local x, y = left + (j - 1) * cell, top + (i - 1) * cell
      surf:rect(x, y, cell, cell, color)
      local text = string.format(fmt, shown[i][j])
      local tsize = surf:text_width(text, size) <= cell - 4 and size or 1
      if surf:text_width(text, tsize) <= cell - 2 and 7 * tsize <= cell then
        surf:text(x + cell / 2, y + cell / 2 - 3.5 * tsize, text, t > 0.5 and { 255, 255, 255 } or axes.black,
          { size = tsize, anchor = 'middle' })
      end
    end
  end
  surf:frame(left, top, n * cell, n * cell, axes.black)
  if nsize > 0 then
    for i = 1, n do
      surf:text(left - 8, top + (i - 0.5) * cell - 3.5 * nsize, names[i], axes.black, { size = nsize, anchor = 'end' })
      surf:text(left + (i - 0.5) * cell - 3.5 * nsize, top + n * cell + 8, names[i], axes.black,
        { size = nsize, anchor = 'end', vertical = true })
    end
  end
  surf:text(left + n * cell / 2, top + n * cell + 14 + namew, 'predicted', axes.black, { size = size, anchor = 'middle' })
  surf:text(10, top + n * cell / 2, 'true', axes.black, { size = size, anchor = 'middle', vertical = true })
  if opts.title then surf:text(W / 2, 12, tostring(opts.title), axes.black, { size = size, anchor = 'middle' }) end
  surf:save(opts.path, 'plot.confusion')
  return opts.path
end
