-- nn.ZipTable(): zips a table of tables, { {a1, a2}, {b1, b2}, {c1, c2} } -> { {a1, b1, c1}, {a2, b2, c2} }
-- (dpnn, then Torch7's nn). The output holds the input's own tensors, so autograd sees through it
-- (the module is transparent); Torch7's backward zips gradOutput the other way.
local S = require 'nn.support'
local ZipTable, parent = torch.class('nn.ZipTable', 'nn.Module')
ZipTable._transparent = true  -- outputs are the inputs' tensors (Note [Modules and autograd])

function ZipTable:__init()
  parent.__init(self)
  self.output = {}
  self.gradInput = {}
end

local function is_list(x) return type(x) == 'table' and not torch.isTensor(x) and getmetatable(x) == nil end

-- x[i][j] -> y[j][i]; every x[i] must be a table of the same length (Torch7 left holes instead).
local function zip(x, what)
  if not is_list(x) then S.fail('nn.ZipTable', 'expected %s as a table of tables, got %s', what, S.describe(x)) end
  local n = nil
  for i = 1, #x do
    if not is_list(x[i]) then
      S.fail('nn.ZipTable', 'expected %s as a table of tables, but element %d is %s', what, i, S.describe(x[i]))
    end
    n = n or #x[i]
    if #x[i] ~= n then
      S.fail('nn.ZipTable', '%s table %d has %d elements but table 1 has %d', what, i, #x[i], n)
    end
  end
  local y = {}
  for j = 1, n or 0 do
    y[j] = {}
    for i = 1, #x do y[j][i] = x[i][j] end
  end
  return y, n or 0
end

function ZipTable:updateOutput(input)
  self.output = zip(input, 'the input')
  return self.output
end

function ZipTable:updateGradInput(input, gradOutput)
  local _, n = zip(input, 'the input')
  local gi, m = zip(gradOutput, 'gradOutput')
  if #gradOutput ~= n or m ~= #input then
    S.fail('nn.ZipTable', 'gradOutput is %d tables of %d but the output is %d tables of %d', #gradOutput,
      #gradOutput > 0 and m or 0, n, #input)
  end
  self.gradInput = gi
  return gi
end

return ZipTable
