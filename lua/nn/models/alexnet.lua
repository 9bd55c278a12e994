-- torchvision 0.14's AlexNet (alexnet.py): nn.models.alexnet, the "one weird trick" variant, with
-- torchvision's layer indices and PyTorch's default initialization.
local C = require 'nn.models.common'
local M = nn.models

local AlexNet = torch.class('nn.models.AlexNet', 'nn.models.VGG')
function AlexNet:__init(opts)
  local o = C.options('nn.models.alexnet', opts, { numClasses = 1000, dropout = 0.5 })
  local features = nn.Sequential()
      :add(nn.Conv2d(3, 64, 11, { stride = 4, padding = 2 })):add(nn.ReLU()):add(nn.MaxPool2d(3, 2))
      :add(nn.Conv2d(64, 192, 5, { padding = 2 })):add(nn.ReLU()):add(nn.MaxPool2d(3, 2))
      :add(nn.Conv2d(192, 384, 3, { padding = 1 })):add(nn.ReLU())
      :add(nn.Conv2d(384, 256, 3, { padding = 1 })):add(nn.ReLU())
      :add(nn.Conv2d(256, 256, 3, { padding = 1 })):add(nn.ReLU()):add(nn.MaxPool2d(3, 2))
  local classifier = nn.Sequential()
      :add(nn.Dropout(o.dropout)):add(nn.Linear(256 * 6 * 6, 4096)):add(nn.ReLU())
      :add(nn.Dropout(o.dropout)):add(nn.Linear(4096, 4096)):add(nn.ReLU())
      :add(nn.Linear(4096, o.numClasses))
  nn.models.Named.__init(self, { { 'features', features }, { 'avgpool', nn.AdaptiveAvgPool2d({ 6, 6 }) },
                                 { 'classifier', classifier } })
end

--- nn.models.alexnet([opts]): torchvision's AlexNet; opts {numClasses = 1000, dropout = 0.5}.
--- Inputs of at least 63x63.
--- Example: local m = nn.models.alexnet():eval() print(m:forward(torch.randn(1, 3, 63, 63)):size())
function M.alexnet(opts) return nn.models.AlexNet(opts) end

return M
