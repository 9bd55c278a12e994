-- nn.models (lua/nn/models/): the parameter counts and sorted state-dict "key:shape" lines of
-- the big models (over ~40M parameters each) equal torchvision 0.14's (PyTorch 1.13); the small
-- ones, the forward agreement and the reference script are in test_vision_models.lua.
require 'nn'
-- One thread: building the models draws ~10^8 normal numbers in thousands of calls, and a
-- parallel tensor:normal() on a few thousand elements costs ~50x more on two busy threads.
torch.setnumthreads(1)
local tester = torch.Tester()
local tests = torch.TestSuite()

-- The shared key check (checkKeys) is in helpers/vision_models_checks.lua.
local V = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_models_checks.lua')
local checkKeys = V.checkKeys

-- torchvision's values: {parameters, state-dict entries, checksum, first line, last line}.
local KEYS = {
  resnet101 = { 44549160, 522, 992296339, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x512x1x1' },
  resnet152 = { 60192808, 777, 360527416, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x512x1x1' },
  resnext101_32x8d = { 88791336, 522, 279388354, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x2048x1x1' },
  resnext101_64x4d = { 83455272, 522, 727491176, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x2048x1x1' },
  wide_resnet50_2 = { 68883240, 267, 378419023, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x1024x1x1' },
  wide_resnet101_2 = { 126886696, 522, 539065162, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x1024x1x1' },
  vgg11 = { 132863336, 22, 436958400, 'classifier.0.bias:4096', 'features.8.weight:256x256x3x3' },
  vgg13 = { 133047848, 26, 196104804, 'classifier.0.bias:4096', 'features.7.weight:128x128x3x3' },
  vgg16 = { 138357544, 32, 258544454, 'classifier.0.bias:4096', 'features.7.weight:128x128x3x3' },
  vgg19 = { 143667240, 38, 904063286, 'classifier.0.bias:4096', 'features.7.weight:128x128x3x3' },
  vgg11_bn = { 132868840, 54, 736236136, 'classifier.0.bias:4096', 'features.9.weight:256' },
  vgg13_bn = { 133053736, 66, 165496579, 'classifier.0.bias:4096', 'features.8.weight:128' },
  vgg16_bn = { 138365992, 84, 93935545, 'classifier.0.bias:4096', 'features.8.weight:128' },
  vgg19_bn = { 143678248, 102, 315407986, 'classifier.0.bias:4096', 'features.8.weight:128' },
  efficientnet_b5 = { 30389784, 738, 24849637, 'classifier.1.bias:1000', 'features.8.1.weight:2048' },
  efficientnet_b6 = { 43040704, 852, 786168247, 'classifier.1.bias:1000', 'features.8.1.weight:2304' },
  efficientnet_b7 = { 66347960, 1037, 276720506, 'classifier.1.bias:1000', 'features.8.1.weight:2560' },
  efficientnet_v2_m = { 54139356, 963, 404818225, 'classifier.1.bias:1000', 'features.8.1.weight:1280' },
  efficientnet_v2_l = { 118515272, 1331, 844229253, 'classifier.1.bias:1000', 'features.8.1.weight:1280' },
}

for name, ref in pairs(KEYS) do
  tests['keys_' .. name] = function()
    checkKeys(tester, name, ref)
    collectgarbage()
    collectgarbage()
  end
end

tester:add(tests)
tester:run()
