-- nn.SpatialConvolutionMap(connTable, kW, kH [, dW = 1, dH = 1]): a 2-D convolution whose input and
-- output planes are linked only where connTable (a K x 2 tensor of 1-based {input plane, output
-- plane} rows) says, each link with its own kH x kW kernel: weight K x kH x kW, bias nOutputPlane,
-- no padding (Torch7). Also nn.tables.full/oneToOne/random, Torch7's connection tables.
-- Built on differentiable ops (Note [Composite modules]): the links' kernels are scattered into a
-- dense nOutputPlane x nInputPlane x kH x kW weight (absent links stay zero) for one convolution,
-- and autograd gathers their gradients back. SpatialFullConvolutionMap shares the helpers below.
local S = require 'nn.support'
local lib = require 'torch.lib'
local Co = require 'nn.composite'
local SpatialConvolutionMap, parent = torch.class('nn.SpatialConvolutionMap', 'nn.Module')
Co.install(SpatialConvolutionMap)

nn.tables = nn.tables or {}

--- nn.tables.full(nin, nout): every input plane linked to every output plane (nin*nout rows,
--- grouped by output plane).
function nn.tables.full(nin, nout)
  S.argInt('nn.tables.full', 'nin', nin, 1)
  S.argInt('nn.tables.full', 'nout', nout, 1)
  local ft = torch.Tensor(nin * nout, 2)
  ft:select(2, 1):copy(torch.range(1, nin):repeatTensor(nout))
  ft:select(2, 2):copy(torch.range(1, nout):view(nout, 1):expand(nout, nin):contiguous():view(-1))
  return ft
end

--- nn.tables.oneToOne(nfeat): plane i linked to plane i.
function nn.tables.oneToOne(nfeat)
  S.argInt('nn.tables.oneToOne', 'nfeat', nfeat, 1)
  local r = torch.range(1, nfeat)
  return torch.Tensor(nfeat, 2):copy(torch.cat(r:view(nfeat, 1), r:view(nfeat, 1), 2))
end

--- nn.tables.random(nin, nout, nto): each output plane linked to nto distinct input planes drawn at
--- random (nout*nto rows grouped by output plane; the draws cycle through random permutations of
--- the inputs so that they are used evenly, as Torch7's).
function nn.tables.random(nin, nout, nto)
  S.argInt('nn.tables.random', 'nin', nin, 1)
  S.argInt('nn.tables.random', 'nout', nout, 1)
  S.argInt('nn.tables.random', 'nto', nto, 1)
  if nto > nin then lib.fail('nn.tables.random', 'nto (%d) must be at most nin (%d)', nto, nin) end
  local tbl = torch.Tensor(nout * nto, 2)
  local chunks = math.floor(nin / nto)  -- distinct chunks of nto inputs in one permutation
  local perm, used = torch.randperm(nin), 0
  for j = 1, nout do
    if used == chunks then perm, used = torch.randperm(nin), 0 end
    tbl:narrow(1, (j - 1) * nto + 1, nto):select(2, 1):copy(perm:narrow(1, used * nto + 1, nto))
    tbl:narrow(1, (j - 1) * nto + 1, nto):select(2, 2):fill(j)
    used = used + 1
  end
  return tbl
end

-- ---- helpers shared with SpatialFullConvolutionMap ----------------------------------------------

-- The connection table as a K x 2 Lua-side DoubleTensor, checked.
local function links(name, connTable)
  if not torch.isTensor(connTable) or connTable:dim() ~= 2 or connTable:size(2) ~= 2 or connTable:size(1) < 1 then
    lib.fail(name, 'connTable must be a K x 2 tensor of {input plane, output plane} rows, got %s', S.describe(connTable))
  end
  local ct = connTable:to('cpu', 'torch.DoubleTensor')
  if not (ct:min() >= 1) or torch.ne(ct, torch.floor(ct)):sum() > 0 or ct:max() > 2 ^ 24 then
    lib.fail(name, 'connTable must hold plane numbers (integers from 1 to 2^24)')
  end
  return ct
end

--- SpatialConvolutionMap._initMap(m, name, connTable, kW, kH, dW, dH): checks and stores a
--- map convolution's configuration and creates its parameters.
function SpatialConvolutionMap._initMap(m, name, connTable, kW, kH, dW, dH)
  local ct = links(name, connTable)
  m.kW, m.kH = S.argInt(name, 'kW', kW, 1), S.argInt(name, 'kH', kH, 1)
  m.dW, m.dH = S.argInt(name, 'dW', dW or 1, 1), S.argInt(name, 'dH', dH or 1, 1)
  m.connTable = connTable
  m.nInputPlane = ct:select(2, 1):max()
  m.nOutputPlane = ct:select(2, 2):max()
  local K = ct:size(1)
  m.weight = torch.Tensor(K, kH, kW)
  m.bias = torch.Tensor(m.nOutputPlane)
  m.gradWeight = torch.Tensor(K, kH, kW)
  m.gradBias = torch.Tensor(m.nOutputPlane)
  m:reset()
end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias; by default each output plane's kernels
--- and bias use stdv = 1/sqrt(kW*kH*(its number of links)), Torch7's fan-in rule.
function SpatialConvolutionMap:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
    self.weight:uniform(-stdv, stdv)
    self.bias:uniform(-stdv, stdv)
  else
    local rows = links(torch.typename(self), self.connTable):totable()
    local fanin, stdvs = {}, {}
    for _, r in ipairs(rows) do fanin[r[2]] = (fanin[r[2]] or 0) + 1 end
    for k, r in ipairs(rows) do stdvs[k] = 1 / math.sqrt(self.kW * self.kH * fanin[r[2]]) end
    local K = #rows
    -- (built on the CPU and copied: the module may live on a GPU)
    local per_link = self.weight.new(K):copy(torch.DoubleTensor(stdvs))
    self.weight:uniform(-1, 1):cmul(per_link:view(K, 1, 1):expandAs(self.weight))
    local bstd = {}
    for o = 1, self.nOutputPlane do bstd[o] = 1 / math.sqrt(self.kW * self.kH * math.max(fanin[o] or 0, 1)) end
    self.bias:uniform(-1, 1):cmul(self.bias.new(#bstd):copy(torch.DoubleTensor(bstd)))
  end
  self.gradWeight:zero()
  self.gradBias:zero()
  nn.utils.linkGradients(self)
  return self
end

--- SpatialConvolutionMap._denseWeight(m, transposed): the links' kernels in a dense weight,
--- nOutputPlane x nInputPlane x kH x kW (nInputPlane x nOutputPlane x ... when transposed, the
--- layout of a transposed convolution); repeated links add up. Differentiable in m.weight.
function SpatialConvolutionMap._denseWeight(m, transposed)
  local ct = links(torch.typename(m), m.connTable)
  local from, to = ct:select(2, 1), ct:select(2, 2)
  local pos = transposed and (from - 1) * m.nOutputPlane + to or (to - 1) * m.nInputPlane + from
  pos = pos:to('torch.LongTensor')
  if m.weight:isCuda() then pos = pos:to(m.weight:device()) end
  local kk = m.kH * m.kW
  local dense = m.weight.new(m.nInputPlane * m.nOutputPlane, kk):zero()
  dense = torch.indexAdd(dense, 1, pos, m.weight:contiguous():view(-1, kk))
  if transposed then return dense:view(m.nInputPlane, m.nOutputPlane, m.kH, m.kW) end
  return dense:view(m.nOutputPlane, m.nInputPlane, m.kH, m.kW)
end

--- SpatialConvolutionMap._checkInput(m, input, minH, minW): a C x H x W or N x C x H x W input
--- with nInputPlane planes of at least minH x minW.
function SpatialConvolutionMap._checkInput(m, input, minH, minW)
  local n = input:dim()
  if (n ~= 3 and n ~= 4) or input:size(n - 2) ~= m.nInputPlane or input:size(n - 1) < minH or input:size(n) < minW then
    S.fail(tostring(m), 'expected a %d x H x W or N x %d x H x W input with H >= %d and W >= %d, got %s',
      m.nInputPlane, m.nInputPlane, minH, minW, S.describe(input))
  end
end

-- ---- the module --------------------------------------------------------------------------------

function SpatialConvolutionMap:__init(connTable, kW, kH, dW, dH)
  parent.__init(self)
  SpatialConvolutionMap._initMap(self, 'nn.SpatialConvolutionMap', connTable, kW, kH, dW, dH)
end

-- The differentiable forward (nn.composite installs updateOutput and the backward around it).
function SpatialConvolutionMap:_compute(input)
  SpatialConvolutionMap._checkInput(self, input, self.kH, self.kW)
  return torch.conv2d(input, SpatialConvolutionMap._denseWeight(self, false), self.bias, { self.dH, self.dW })
end

--- m:decayParameters(decay): weight and bias shrink by the factor (1 - decay) (Torch7).
function SpatialConvolutionMap:decayParameters(decay)
  self.weight:add(-decay, self.weight)
  self.bias:add(-decay, self.bias)
end

-- Torch7 printed the class name alone; the configuration helps (and names the module in errors).
function SpatialConvolutionMap:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d, %d links', torch.typename(self), self.nInputPlane, self.nOutputPlane,
    self.kW, self.kH, self.weight:size(1))
  if self.dW ~= 1 or self.dH ~= 1 then s = s .. string.format(', %d,%d', self.dW, self.dH) end
  return s .. ')'
end

return SpatialConvolutionMap
