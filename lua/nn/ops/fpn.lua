-- nn.ops.FeaturePyramidNetwork (torchvision.ops.FeaturePyramidNetwork) and its extra blocks
-- nn.ops.LastLevelMaxPool and nn.ops.LastLevelP6P7, with torchvision's state-dict keys
-- (inner_blocks.0.0.weight, layer_blocks.2.0.bias, extra_blocks.p6.weight).
--
-- Note [FPN inputs]: torchvision takes and returns an OrderedDict of feature maps, finest first;
-- Lua tables keep no order, so forward takes either a list of tensors (returning a list) or a list
-- of {name, tensor} pairs (returning pairs, the extra blocks' maps named 'pool' or 'p6', 'p7').
local U = require 'nn.ops.util'
local F = nn.functional
local ops = nn.ops

local function kaiming(conv)
  torch.noGrad(function()
    nn.init.kaimingUniform(conv.weight, 1)
    if conv.bias then conv.bias:zero() end
  end)
end

local MaxPool, MaxPoolParent = torch.class('nn.ops.LastLevelMaxPool', 'nn.Module')

--- nn.ops.LastLevelMaxPool(): the FPN extra block adding 'pool', a 1x1 max pool with stride 2 of
--- the last map. Extra blocks have block:extend(results, inputs, names), returning both lists
--- extended (torchvision's ExtraFPNBlock.forward).
--- Example: print(nn.ops.FeaturePyramidNetwork({4, 8}, 4, nn.ops.LastLevelMaxPool()))
function MaxPool:__init() MaxPoolParent.__init(self) end

function MaxPool:extend(results, _, names)
  results[#results + 1] = (F.maxPool2d(results[#results], 1, 2, 0))
  names[#names + 1] = 'pool'
  return results, names
end

local P6P7, P6P7parent = torch.class('nn.ops.LastLevelP6P7', 'nn.Module')
P6P7._fieldChildren = true

--- nn.ops.LastLevelP6P7(inChannels, outChannels): RetinaNet's FPN extra block adding 'p6' (a 3x3
--- stride 2 conv of P5 when inChannels == outChannels, else of C5) and 'p7' (of relu(p6)).
--- Example: print(nn.ops.LastLevelP6P7(8, 8))
function P6P7:__init(inC, outC)
  P6P7parent.__init(self)
  local op = 'nn.ops.LastLevelP6P7'
  inC, outC = U.int(op, inC, 'inChannels'), U.int(op, outC, 'outChannels')
  if inC == nil or outC == nil or inC < 1 or outC < 1 then U.fail(op, 'channels must be positive integers') end
  self.p6 = nn.Conv2d(inC, outC, 3, { stride = 2, padding = 1 })
  self.p7 = nn.Conv2d(outC, outC, 3, { stride = 2, padding = 1 })
  kaiming(self.p6)
  kaiming(self.p7)
  self.usePAsInput = inC == outC
end
function P6P7:extend(results, inputs, names)
  local x = self.usePAsInput and results[#results] or inputs[#inputs]
  local p6 = self.p6:forward(x)
  local p7 = self.p7:forward(F.relu(p6))
  results[#results + 1], results[#results + 2] = p6, p7
  names[#names + 1], names[#names + 2] = 'p6', 'p7'
  return results, names
end

local FPN, FPNparent = torch.class('nn.ops.FeaturePyramidNetwork', 'nn.Module')
FPN._fieldChildren = true

--- nn.ops.FeaturePyramidNetwork(inChannelsList, outChannels[, extraBlocks[, normLayer]]): the
--- feature pyramid of Lin et al.: a 1x1 conv per input level (inner_blocks), a top-down path adding
--- each level to the nearest-upsampled coarser one, a 3x3 conv per level (layer_blocks), then the
--- extra block if any. Forward takes the maps finest first (Note [FPN inputs]).
--- Example: print(#nn.ops.FeaturePyramidNetwork({4, 8}, 4):forward({torch.rand(1, 4, 8, 8), torch.rand(1, 8, 4, 4)}))
function FPN:__init(...)
  FPNparent.__init(self)
  local op = 'nn.ops.FeaturePyramidNetwork'
  local args = { ... }
  local o = { inChannelsList = args[1], outChannels = args[2], extraBlocks = args[3], normLayer = args[4] }
  local last = args[select('#', ...)]
  if select('#', ...) == 3 and type(last) == 'table' and getmetatable(last) == nil then
    -- a trailing options table: a plain table (modules and classes have metatables)
    U.opts(op, last, { extraBlocks = true, normLayer = true })
    o.extraBlocks, o.normLayer = last.extraBlocks, last.normLayer
  end
  local list, outC = o.inChannelsList, U.int(op, o.outChannels, 'outChannels')
  if type(list) ~= 'table' or #list == 0 then U.fail(op, 'inChannelsList must be a non-empty list, got %s', U.describe(list)) end
  if outC == nil or outC < 1 then U.fail(op, 'outChannels must be a positive integer, got %s', tostring(o.outChannels)) end
  self.inner_blocks = nn.ModuleList()
  self.layer_blocks = nn.ModuleList()
  local norm = o.normLayer or false
  for i, c in ipairs(list) do
    c = U.int(op, c, 'inChannelsList[' .. i .. ']')
    if c < 1 then U.fail(op, 'inChannelsList[%d] must be positive, got %d (torchvision refuses 0 too)', i, c) end
    self.inner_blocks:append(nn.ops.Conv2dNormActivation(c, outC, 1, { padding = 0, normLayer = norm, activationLayer = false }))
    self.layer_blocks:append(nn.ops.Conv2dNormActivation(outC, outC, 3, { normLayer = norm, activationLayer = false }))
  end
  for _, m in ipairs(self.inner_blocks) do kaiming(m.modules[1]) end
  for _, m in ipairs(self.layer_blocks) do kaiming(m.modules[1]) end
  if o.extraBlocks ~= nil then
    if type(o.extraBlocks) ~= 'table' or type(o.extraBlocks.extend) ~= 'function' then
      U.fail(op, 'extraBlocks must be an extra block (nn.ops.LastLevelMaxPool, LastLevelP6P7), got %s', U.describe(o.extraBlocks))
    end
    self.extra_blocks = o.extraBlocks
  end
end

function FPN:updateOutput(x)
  local op = 'nn.ops.FeaturePyramidNetwork'
  if type(x) ~= 'table' or torch.isTensor(x) or #x ~= #self.inner_blocks then
    U.fail(op, 'expected a list of %d feature maps, got %s', #self.inner_blocks, U.describe(x))
  end
  local pairs_in = type(x[1]) == 'table' and not torch.isTensor(x[1])
  local names, maps = {}, {}
  for i, v in ipairs(x) do
    if pairs_in then names[i], maps[i] = v[1], v[2] else names[i], maps[i] = tostring(i), v end
    if not torch.isTensor(maps[i]) or maps[i]:dim() ~= 4 then
      U.fail(op, 'feature map %d must be an N x C x H x W tensor, got %s', i, U.describe(maps[i]))
    end
  end
  local n = #maps
  local last = self.inner_blocks[n]:forward(maps[n])
  local results = { self.layer_blocks[n]:forward(last) }
  for i = n - 1, 1, -1 do
    local lateral = self.inner_blocks[i]:forward(maps[i])
    local up = F.interpolate(last, { size = { lateral:size(3), lateral:size(4) }, mode = 'nearest' })
    last = lateral + up
    table.insert(results, 1, self.layer_blocks[i]:forward(last))
  end
  if self.extra_blocks then results, names = self.extra_blocks:extend(results, maps, names) end
  if not pairs_in then
    self.output = results
  else
    self.output = {}
    for i, r in ipairs(results) do self.output[i] = { names[i], r } end
  end
  return self.output
end

return ops
