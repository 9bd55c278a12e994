-- Writes what the embedding install test needs: a small trained classifier checkpoint, images
-- as raw float32 (N x 28 x 28) and the classes Lua itself predicts for them.
-- Usage: tocha make_model.lua MODEL.t7 IMAGES.f32 EXPECTED.txt N
local model_path, images_path, expected_path, n = arg[1], arg[2], arg[3], tonumber(arg[4] or '16')
require 'nn'
torch.manualSeed(11)
local model = nn.Sequential():add(nn.Linear(784, 32)):add(nn.ReLU())
  :add(nn.Linear(32, 10)):add(nn.LogSoftMax())
local crit = nn.ClassNLLCriterion()
local x = torch.rand(64, 784)
local y = torch.LongTensor(64):random(1, 10)
for _ = 1, 20 do
  model:zeroGradParameters()
  crit(model(x), y):backward()
  model:updateParameters(0.1)
end
torch.save(model_path, model)

local images = torch.rand(n, 28, 28)
local f = assert(io.open(images_path, 'wb'))
local ffi = require 'ffi'
f:write(ffi.string(images:data(), n * 784 * 4))
f:close()
model:evaluate()
local _, classes = torch.noGrad(function() return model:forward(images:view(n, 784)) end):max(2)
local out = assert(io.open(expected_path, 'w'))
for i = 1, n do out:write(classes[i][1], '\n') end
out:close()
