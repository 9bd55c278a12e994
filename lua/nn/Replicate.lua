-- nn.Replicate(nFeature[, dim = 1, ndim]): a view repeating the input nFeature times along a new
-- dim (stride 0, no copy). With ndim, an input with more dims is a batch and dim shifts by one.
local S = require 'nn.support'
local Replicate, parent = torch.class('nn.Replicate', 'nn.Module')

function Replicate:__init(nf, dim, ndim)
  parent.__init(self)
  self.nfeatures = S.argInt('nn.Replicate', 'nFeature', nf, 1)
  self.dim = S.argInt('nn.Replicate', 'dim', dim or 1, 1)
  self.ndim = ndim
end

local function name(self) return string.format('nn.Replicate(%d, %d)', self.nfeatures, self.dim) end

local function rdim(self, input)
  S.tensor(name(self), input)
  local d = self.dim + ((self.ndim and input:dim() > self.ndim) and 1 or 0)
  if d > input:dim() + 1 then
    S.fail(name(self), 'not enough input dimensions to replicate along dimension %d (input of size %s)', d,
      S.sizestr(input))
  end
  return d
end

function Replicate:updateOutput(input)
  local d = rdim(self, input)
  local sizes, strides = input:size():totable(), input:stride():totable()
  table.insert(sizes, d, self.nfeatures)
  table.insert(strides, d, 0)
  self.output = input.new():set(input:storage(), input:storageOffset(), torch.LongStorage(sizes),
    torch.LongStorage(strides))
  return self.output
end

function Replicate:updateGradInput(input, gradOutput)
  local d = rdim(self, input)
  local sizes = input:size():totable()
  table.insert(sizes, d, self.nfeatures)
  S.gradLike(name(self), gradOutput, sizes)
  self.gradInput:resizeAs(input)
  sizes[d] = 1
  torch.sum(self.gradInput:view(torch.LongStorage(sizes)), gradOutput, d)
  return self.gradInput
end

return Replicate
