-- nn.MaxUnpool1d/2d/3d(kernelSize [, stride = kernelSize, padding = 0]): PyTorch's max unpooling
-- modules on nn.functional.maxUnpool1d/2d/3d. The indices are Tocha's: 1-based flat positions in
-- each input plane (L, H*W or D*H*W), as nn.MaxPool1d/2d/3d({returnIndices = true}) and
-- nn.functional.maxPool*dWithIndices return them (Note [returnIndices on PyTorch-named pools],
-- nn/pytorch_names_pool.lua); PyTorch's are the same positions counted from 0.
--
-- Note [MaxUnpool inputs]: PyTorch's forward(input, indices, output_size=None) takes three
-- arguments; Torch7's forward takes one, so the Torch7 form is m:forward({x, indices [, outputSize]})
-- and the call m(x, indices [, outputSize]) is PyTorch's (a LongTensor second argument is the
-- indices; any other is Torch7's gradOutput of m(input, gradOutput)). outputSize is {h, w} (one size
-- per pooled dim) or the whole size {N, C, h, w}. The backward gives {gradX, zeros of the indices'
-- size} (the indices have no gradient); gradX gathers gradOutput at the indices.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'

for nd = 1, 3 do
  local name = 'nn.MaxUnpool' .. nd .. 'd'
  local cls, parent = torch.class(name, 'nn.Module')
  cls.__init = function(self, ...)
    parent.__init(self)
    local o = P.parse(name, { 'kernelSize', 'stride', 'padding' }, ...)
    self.kernelSize = P.tuple(name, 'kernelSize', o.kernelSize, nd)
    self.stride = P.tuple(name, 'stride', o.stride, nd, self.kernelSize)
    self.padding = P.tuple(name, 'padding', o.padding, nd, 0, 0)
    self.gradInput = {}
  end

  local function unpack_input(self, input)
    if type(input) ~= 'table' or torch.isTensor(input) or not torch.isTensor(input[1]) or not torch.isTensor(input[2]) then
      lib.fail(name, 'expected {input, indices [, outputSize]} (Note [MaxUnpool inputs]), got %s',
        nn.utils.describe(input))
    end
    return input[1], input[2], input[3]
  end

  cls.updateOutput = function(self, input)
    local x, idx, size = unpack_input(self, input)
    local ok, y = pcall(nn.functional['maxUnpool' .. nd .. 'd'], x, idx, self.kernelSize, self.stride, self.padding, size)
    if not ok then error('[' .. name .. '] ' .. tostring(y):gsub('^[^\n]-:%d+: ', ''), torch._lib.user_level()) end
    self.output = y
    return y
  end

  cls.updateGradInput = function(self, input, gradOutput)
    local x, idx = unpack_input(self, input)
    if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
      lib.fail(name, 'expected a gradOutput of the output\'s size, got %s', nn.utils.describe(gradOutput))
    end
    local cells = 1
    for d = x:dim() - nd + 1, x:dim() do cells = cells * x:size(d) end
    local planes = cells > 0 and x:nElement() / cells or 0
    local gx = x.new():resizeAs(x):zero()
    if x:nElement() > 0 then
      local g = gradOutput:contiguous()
      gx:view(planes, cells):copy(torch.gather(g:view(planes, g:nElement() / planes), 2, idx:reshape(planes, cells)))
    end
    self.gradInput = { gx, idx.new():resizeAs(idx):zero() }
    return self.gradInput
  end

  --- m(x, indices [, outputSize]): PyTorch's call form of m:forward({x, indices, outputSize})
  --- (Note [MaxUnpool inputs]).
  --- Example: local p = nn.MaxPool2d(2, {returnIndices = true}) local y = p(torch.randn(1, 1, 4, 4)) print(nn.MaxUnpool2d(2)(y[1], y[2]))
  cls.__call__ = function(self, input, second, third)
    if torch.isTensor(input) and torch.isTensor(second) and second.p.dtype == 4 then
      return self:forward({ input, second, third })
    end
    return parent.__call__(self, input, second)
  end

  cls.__tostring__ = function(self)
    return string.format('%s(kernelSize %s, stride %s, padding %s)', name, table.concat(self.kernelSize, 'x'),
      table.concat(self.stride, 'x'), table.concat(self.padding, 'x'))
  end
end

return nn.MaxUnpool2d
