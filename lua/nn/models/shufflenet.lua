-- torchvision 0.14's ShuffleNet v2 (shufflenetv2.py): nn.models.shufflenet_v2_x0_5/x1_0/x1_5/x2_0,
-- with torchvision's names ('stage2.0.branch1.0.weight') and PyTorch's default initialization.
local C = require 'nn.models.common'
local lib = require 'torch.lib'
local F = nn.functional
local M = nn.models
local Named = nn.models.Named

local function relu() return nn.ReLU() end

-- InvertedResidual(inp, oup, stride): stride 1 splits the channels and transforms one half;
-- stride > 1 transforms the whole input twice (branch1, branch2); then a channel shuffle.
local IR = torch.class('nn.models.ShuffleInvertedResidual', 'nn.models.Named')
function IR:__init(inp, oup, stride)
  local bf = math.floor(oup / 2)
  if stride == 1 and inp ~= bf * 2 then
    lib.fail('nn.models.ShuffleInvertedResidual', 'stride 1 needs inp (%d) = 2 * (oup // 2) (%d)', inp, bf * 2)
  end
  local b1 = nn.Sequential()
  if stride > 1 then
    b1:add(C.conv(inp, inp, 3, { stride = stride, padding = 1, groups = inp })):add(C.bn(inp))
      :add(C.conv(inp, bf, 1)):add(C.bn(bf)):add(relu())
  end
  local b2 = nn.Sequential()
      :add(C.conv(stride > 1 and inp or bf, bf, 1)):add(C.bn(bf)):add(relu())
      :add(C.conv(bf, bf, 3, { stride = stride, padding = 1, groups = bf })):add(C.bn(bf))
      :add(C.conv(bf, bf, 1)):add(C.bn(bf)):add(relu())
  Named.__init(self, { { 'branch1', b1 }, { 'branch2', b2 } })
  self.stride = stride
end
function IR:updateOutput(x)
  local out
  if self.stride == 1 then
    local half = x:size(2) / 2
    out = torch.cat({ x:narrow(2, 1, half), self.branch2:forward(x:narrow(2, half + 1, half)) }, 2)
  else
    out = torch.cat({ self.branch1:forward(x), self.branch2:forward(x) }, 2)
  end
  self.output = F.channelShuffle(out, 2)
  return self.output
end
-- torch.onnx.export's (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua).
function IR:onnxExport(E, x)
  local out
  if self.stride == 1 then
    local half = E:size(x, 2) / 2
    out = E:concat({ E:narrow(x, 2, 1, half), E:emit(self.branch2, E:narrow(x, 2, half + 1, half), 'branch2') }, 2)
  else
    out = E:concat({ E:emit(self.branch1, x, 'branch1'), E:emit(self.branch2, x, 'branch2') }, 2)
  end
  return E:channelShuffle(out, 2)
end

local ShuffleNetV2 = torch.class('nn.models.ShuffleNetV2', 'nn.models.Named')
-- nn.models.ShuffleNetV2(stagesRepeats {3 numbers}, stagesOutChannels {5 numbers}, opts {numClasses}).
function ShuffleNetV2:__init(repeats, outs, opts, fn)
  fn = fn or 'nn.models.ShuffleNetV2'
  local o = C.options(fn, opts, { numClasses = 1000 })
  if type(repeats) ~= 'table' or #repeats ~= 3 then lib.fail(fn, 'expected stagesRepeats as a table of 3 positive ints') end
  if type(outs) ~= 'table' or #outs ~= 5 then lib.fail(fn, 'expected stagesOutChannels as a table of 5 positive ints') end
  local inC = outs[1]
  local list = {
    { 'conv1', nn.Sequential():add(C.conv(3, inC, 3, { stride = 2, padding = 1 })):add(C.bn(inC)):add(relu()) },
    { 'maxpool', nn.MaxPool2d(3, 2, 1) },
  }
  for i = 1, 3 do
    local outC = outs[i + 1]
    local seq = nn.Sequential():add(nn.models.ShuffleInvertedResidual(inC, outC, 2))
    for _ = 2, repeats[i] do seq:add(nn.models.ShuffleInvertedResidual(outC, outC, 1)) end
    list[#list + 1] = { 'stage' .. (i + 1), seq }
    inC = outC
  end
  list[#list + 1] = { 'conv5', nn.Sequential():add(C.conv(inC, outs[5], 1)):add(C.bn(outs[5])):add(relu()) }
  list[#list + 1] = { 'fc', nn.Linear(outs[5], o.numClasses) }
  Named.__init(self, list)
end
function ShuffleNetV2:updateOutput(x)
  local y = self:_run(x, 'conv1', 'conv5')
  self.output = self.fc:forward(y:mean(4):mean(3):reshape(y:size(1), y:size(2)))
  return self.output
end
function ShuffleNetV2:onnxExport(E, x)
  local y = E:run(x, 'conv1', 'maxpool', 'stage2', 'stage3', 'stage4', 'conv5')
  return E:emit(self.fc, E:mean(y, { 3, 4 }), 'fc')
end

local specs = {
  shufflenet_v2_x0_5 = { 24, 48, 96, 192, 1024 }, shufflenet_v2_x1_0 = { 24, 116, 232, 464, 1024 },
  shufflenet_v2_x1_5 = { 24, 176, 352, 704, 1024 }, shufflenet_v2_x2_0 = { 24, 244, 488, 976, 2048 },
}
local function build(name, opts) return nn.models.ShuffleNetV2({ 4, 8, 4 }, specs[name], opts, 'nn.models.' .. name) end

--- nn.models.shufflenet_v2_x1_0([opts]): torchvision's ShuffleNet v2 1.0x; opts {numClasses = 1000}.
--- Example: local m = nn.models.shufflenet_v2_x1_0():eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.shufflenet_v2_x1_0(opts) return build('shufflenet_v2_x1_0', opts) end
--- nn.models.shufflenet_v2_x0_5([opts]): ShuffleNet v2 0.5x (opts as shufflenet_v2_x1_0's).
--- Example: print(nn.models.shufflenet_v2_x0_5():numParameters())
function M.shufflenet_v2_x0_5(opts) return build('shufflenet_v2_x0_5', opts) end
--- nn.models.shufflenet_v2_x1_5([opts]): ShuffleNet v2 1.5x (opts as shufflenet_v2_x1_0's).
--- Example: print(nn.models.shufflenet_v2_x1_5():numParameters())
function M.shufflenet_v2_x1_5(opts) return build('shufflenet_v2_x1_5', opts) end
--- nn.models.shufflenet_v2_x2_0([opts]): ShuffleNet v2 2.0x (opts as shufflenet_v2_x1_0's).
--- Example: print(nn.models.shufflenet_v2_x2_0():numParameters())
function M.shufflenet_v2_x2_0(opts) return build('shufflenet_v2_x2_0', opts) end

return M
