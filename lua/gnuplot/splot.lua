-- gnuplot.splot's arguments (z, or x, y, z matrices, with an optional name) turned into the
-- heat map that Tocha draws instead of a 3-D surface (Note [splot as a heat map]).
local torch = require 'torch'
local args = require 'gnuplot.args'
local splot = {}

local function fail(who, msg, ...) error(string.format('[' .. who .. '] ' .. msg, ...), 0) end

-- Note [splot as a heat map]: Torch7's splot drew a 3-D surface (gnuplot's hidden3d with
-- contours). Tocha's plot backends are 2-D, so a surface is drawn as the heat map of its height
-- seen from above (gnuplot's `set view map`): x to the right, y up, z in colour with a colour bar
-- (labelled by zlabel), gnuplot's default 'color' palette. A note says so on stderr once. x and
-- y must then form a regular grid; several surfaces in one call cannot share a heat map and
-- are an error.
local noted = false

-- The first value and the constant step of v along dim (v constant along the other dim), or nil.
local function steps(v, dim)
  local other = 3 - dim
  local n = v:size(dim)
  local first = v:select(dim, 1)
  if first:max() ~= first:min() then return nil end
  local line = v:select(other, 1)
  if (v - line:view(dim == 1 and -1 or 1, dim == 1 and 1 or -1):expandAs(v)):abs():max() > 0 then return nil end
  if n == 1 then return line[1], 1 end
  local d = line[2] - line[1]
  for i = 3, n do
    local di = line[i] - line[i - 1]
    if math.abs(di - d) > 1e-6 * math.max(math.abs(d), 1e-300) then return nil end
  end
  if d == 0 then return nil end
  return line[1], d
end

--- splot.content(who, ...): the heat-map content of gnuplot.splot's arguments.
function splot.content(who, ...)
  local a, n = { ... }, select('#', ...)
  if n == 0 then fail(who, 'no inputs, expecting at least a matrix') end
  local specs = { a }
  if type(a[1]) == 'table' and not torch.isTensor(a[1]) and not args.isNumbers(a[1][1] or 0) then
    specs = type(a[1][1]) == 'table' and not torch.isTensor(a[1][1]) and a[1] or a
  end
  if #specs > 1 then
    fail(who, 'Tocha draws a surface as a heat map seen from above (Note [splot as a heat map]): one surface '
      .. 'per figure, got %d', #specs)
  end
  local t = specs[1]
  local k = type(t[1]) == 'string' and 2 or 1
  local x, y, z
  local count = (t == a and n or #t) - k + 1
  if count == 1 then
    z = args.matrix(t[k], who, 'z')
  elseif count == 3 then
    x, y, z = args.matrix(t[k], who, 'x'), args.matrix(t[k + 1], who, 'y'), args.matrix(t[k + 2], who, 'z')
    if not (x:isSameSizeAs(z) and y:isSameSizeAs(z)) then
      fail(who, 'x, y and z must have the same size, got %s, %s and %s', args.describe(x), args.describe(y),
        args.describe(z))
    end
  else
    fail(who, 'expecting [string,] tensor [,tensor, tensor]: z, or x, y and z matrices')
  end
  if not x then
    -- Torch7's grid: x[i][j] = i, y[i][j] = j
    x = torch.range(1, z:size(1)):double():view(-1, 1):expandAs(z):clone()
    y = torch.range(1, z:size(2)):double():view(1, -1):expandAs(z):clone()
  end
  local c = { kind = 'image', palette = 'color', reverse = false, zlabel = true }
  local x0, dx = steps(x, 1)
  local y0, dy = steps(y, 2)
  if x0 and y0 then
    -- x along rows, y along columns: the map shows z transposed (x to the right)
    c.z = z:t():contiguous():clone()
  else
    x0, dx = steps(x, 2)
    y0, dy = steps(y, 1)
    if not (x0 and y0) then
      fail(who, 'x and y must form a regular grid (each constant along one dimension, evenly spaced along the '
        .. 'other) for the heat-map view (Note [splot as a heat map])')
    end
    c.z = z
  end
  c.x0, c.dx, c.y0, c.dy = x0, dx, y0, dy
  if not noted then
    noted = true
    io.stderr:write('[gnuplot.splot] Tocha has no 3-D renderer: surfaces are drawn as heat maps seen from above\n')
  end
  return c
end

return splot
