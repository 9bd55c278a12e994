-- plot.confusion: a confusion matrix as a heat map (rows: true class, columns: predicted class,
-- as optim.ConfusionMatrix), each cell labelled with its count (or fraction when normalized).
local axes = require 'plot.axes'

local function fail(msg) error('[plot.confusion] ' .. msg, 3) end

-- The matrix as a list of rows of numbers.
local function rows_of(m)
  if type(m) == 'table' then return m end
  local ok, torch = pcall(require, 'torch')
  if ok and torch.isTensor(m) and m:dim() == 2 then return m:double():totable() end
  fail('matrix must be a square 2D tensor or a list of rows')
end

--- plot.confusion{path=, matrix=[, labels={...}][, title=][, normalize=false]}: writes the heat map
--- of a square confusion matrix (rows: true class, columns: predicted) to path (.png or .svg);
--- normalize = true shows each row as fractions. Returns path.
return function(opts)
  if type(opts) ~= 'table' then fail('expected a table of options') end
  local m = rows_of(opts.matrix)
  local n = #m
  if n == 0 then fail('the matrix is empty') end
  for i, row in ipairs(m) do
    if type(row) ~= 'table' or #row ~= n then fail(string.format('row %d has %s values, expected %d', i,
      type(row) == 'table' and #row or 'no', n)) end
  end
  local labels = opts.labels or {}
  local names = {}
  for i = 1, n do names[i] = tostring(labels[i] or i) end
  local shown, vmax = {}, 0
  for i = 1, n do
    local total = 0
    for j = 1, n do total = total + m[i][j] end
    shown[i] = {}
    for j = 1, n do
      local v = m[i][j]
      if opts.normalize then v = total > 0 and v / total or 0 end
      shown[i][j] = v
      vmax = math.max(vmax, v)
    end
  end

  local size = 2
  local probe = axes.surface(opts.path:gsub('%.[^.]+$', '.svg'), 1, 1)
  local namew = 0
  for _, s in ipairs(names) do namew = math.max(namew, probe:text_width(s, size)) end
  local cell = math.max(24, math.min(64, math.floor(640 / n)))
  local left, top = 40 + namew + 12, (opts.title and 44 or 16) + 24
  local bottom = 12 + namew + 30
  local W, H = left + n * cell + 24, top + n * cell + bottom
  local surf = axes.surface(opts.path, W, H)

  for i = 1, n do
    for j = 1, n do
      local t = vmax > 0 and shown[i][j] / vmax or 0
      local color = { math.floor(255 - t * 247 + 0.5), math.floor(255 - t * 207 + 0.5), math.floor(255 - t * 148 + 0.5) }
      local x, y = left + (j - 1) * cell, top + (i - 1) * cell
      surf:rect(x, y, cell, cell, color)
      local text = opts.normalize and string.format('%.2f', shown[i][j]) or string.format('%d', shown[i][j])
      local tsize = surf:text_width(text, size) <= cell - 4 and size or 1
      if surf:text_width(text, tsize) <= cell - 2 then
        surf:text(x + cell / 2, y + cell / 2 - 3.5 * tsize, text, t > 0.5 and { 255, 255, 255 } or axes.black,
          { size = tsize, anchor = 'middle' })
      end
    end
  end
  surf:frame(left, top, n * cell, n * cell, axes.black)
  for i = 1, n do
    surf:text(left - 8, top + (i - 0.5) * cell - 7, names[i], axes.black, { size = size, anchor = 'end' })
    surf:text(left + (i - 0.5) * cell - 7, top + n * cell + 8, names[i], axes.black,
      { size = size, anchor = 'end', vertical = true })
  end
  surf:text(left + n * cell / 2, top + n * cell + 14 + namew, 'predicted', axes.black, { size = size, anchor = 'middle' })
  surf:text(10, top + n * cell / 2, 'true', axes.black, { size = size, anchor = 'middle', vertical = true })
  if opts.title then surf:text(W / 2, 12, tostring(opts.title), axes.black, { size = size, anchor = 'middle' }) end
  surf:save(opts.path)
  return opts.path
end
