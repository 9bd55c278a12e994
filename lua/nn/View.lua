-- nn.View(sizes...) or nn.View(LongStorage): a view of the input with the given size; one size
-- may be -1 (inferred). Leading dims beyond the view's element count form a batch dim;
-- setNumInputDims(n) says how many trailing dims make one sample (Torch7's rules).
local S = require 'nn.support'
local View, parent = torch.class('nn.View', 'nn.Module')

--- v:resetSize(sizes...): changes the target size.
function View:resetSize(...)
  local sizes = { ... }
  if select('#', ...) == 1 and torch.typename(sizes[1]) == 'torch.LongStorage' then sizes = sizes[1]:totable() end
  if #sizes == 0 then error('[nn.View] expected sizes, e.g. nn.View(2, 3) or nn.View(-1)', torch._lib.user_level()) end
  self.numElements = 1
  local infer = false
  for i, v in ipairs(sizes) do
    if not S.isint(v) or (v < 1 and v ~= -1) then
      error(string.format('[nn.View] size %d must be a positive integer or -1, got %s', i, tostring(v)), torch._lib.user_level())
    end
    if v == -1 then
      if infer then error('[nn.View] only one size can be -1', torch._lib.user_level()) end
      infer = true
    else
      self.numElements = self.numElements * v
    end
  end
  self.size = torch.LongStorage(sizes)
  return self
end

function View:__init(...)
  parent.__init(self)
  self:resetSize(...)
  self.numInputDims = nil
end

--- v:setNumInputDims(n): the number of trailing dims that make one sample (the rest is a batch).
function View:setNumInputDims(n)
  if n ~= nil then S.argInt('nn.View', 'numInputDims', n, 0) end
  self.numInputDims = n
  return self
end

-- The batch size, or nil when the input is a single sample (Torch7's batchsize()).
local function batchsize(self, input)
  local size, nid = self.size, self.numInputDims
  local ind = input:dim()
  local maxdim = math.min(nid or ind, ind)
  local ine = 1
  for i = ind, ind - maxdim + 1, -1 do ine = ine * input:size(i) end
  if ine % self.numElements ~= 0 then
    S.fail(tostring(self), 'input view (%s) and desired view (%s) do not match', S.sizestr(input),
      table.concat(size:totable(), 'x'))
  end
  local bsz = ine / self.numElements
  for i = 1, #size do if size[i] == -1 then bsz = 1 break end end
  for i = ind - maxdim, 1, -1 do bsz = bsz * input:size(i) end
  if bsz == 1 and (not nid or ind <= nid) then return nil end
  return bsz
end

function View:updateOutput(input)
  S.tensor(tostring(self), input)
  local bsz = batchsize(self, input)
  if not input:isContiguous() then
    self._input = self._input or input.new()
    input = self._input:resizeAs(input):copy(input)
  end
  local sizes = self.size:totable()
  if bsz then table.insert(sizes, 1, bsz) end
  local ok, res = pcall(input.view, input, torch.LongStorage(sizes))
  if not ok then
    S.fail(tostring(self), 'input view (%s) and desired view (%s) do not match', S.sizestr(input), table.concat(sizes, 'x'))
  end
  self.output = res
  return self.output
end

function View:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    S.fail(tostring(self), 'gradOutput is %s but the input has %d elements', S.describe(gradOutput), input:nElement())
  end
  if not gradOutput:isContiguous() then gradOutput = gradOutput:contiguous() end
  self.gradInput = gradOutput:view(input:size())
  return self.gradInput
end

function View:__tostring__()
  return 'nn.View(' .. table.concat(self.size:totable(), ', ') .. ')'
end

return View
