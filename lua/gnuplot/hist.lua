-- gnuplot.histc: Torch7's histogram table (counts from torch.histc, bin centres, the fullest and
-- emptiest bins) that gnuplot.hist draws as boxes.
local torch = require 'torch'
local args = require 'gnuplot.args'

local function fail(who, msg, ...) error(string.format('[' .. who .. '] ' .. msg, ...), 0) end

local function number_arg(v, who, name)
  if v ~= nil and (type(v) ~= 'number' or v ~= v or v == math.huge or v == -math.huge) then
    fail(who, '%s must be a finite number, got %s', name, tostring(v))
  end
  return v
end

-- Note [Histogram table]: Torch7's gnuplot.histc returned a table: raw (the counts, a tensor),
-- bins, binwidth, and h[i] = {val = the bin's centre, nb = its count}, with h.max and h.min the
-- entries of the fullest and emptiest bins. The counts here are torch.histc's (values outside
-- [min, max] are left out; max falls in the last bin), so both agree; equal bounds are widened by
-- 1 each side, as torch.histc does.

--- histc(x, bins, min, max, raw, who): the histogram table of tensor x (Note [Histogram table]),
--- or the counts alone when raw is true.
return function(x, bins, min, max, raw, who)
  local t = args.tensor(x, who, 'x')
  if bins ~= nil and (type(bins) ~= 'number' or bins < 1 or bins ~= math.floor(bins) or bins > 2 ^ 24) then
    fail(who, 'bins must be a positive integer, got %s', tostring(bins))
  end
  bins = bins or 10
  number_arg(min, who, 'min')
  number_arg(max, who, 'max')
  -- NaN has no bin (torch.histc would drop it without a word)
  if t:ne(t):sum() > 0 then fail(who, 'x holds NaN values') end
  if (min == nil or max == nil) and torch.abs(t):eq(math.huge):sum() > 0 then
    fail(who, 'x holds infinite values: pass min and max to count the finite ones')
  end
  min = min or t:min()
  max = max or t:max()
  if min > max then fail(who, 'min (%g) must not exceed max (%g)', min, max) end
  if min == max then min, max = min - 1, max + 1 end
  local counts = torch.histc(t, bins, min, max):double()
  if raw then return counts end
  local h = { raw = counts, bins = bins, binwidth = (max - min) / bins }
  local hi, lo = 1, 1
  for i = 1, bins do
    h[i] = { val = min + (i - 0.5) * h.binwidth, nb = counts[i] }
    if counts[i] > counts[hi] then hi = i end
    if counts[i] < counts[lo] then lo = i end
  end
  h.max, h.min = h[hi], h[lo]
  return h
end
