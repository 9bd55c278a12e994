-- The torch module: require 'torch' loads the tensor library (Torch7's API on Tocha's engine)
-- and sets the global `torch`, like Torch7.
local torch = require 'torch.env'
if torch._loaded then return torch end

local lib = require 'torch.lib'
torch._lib = lib
require 'torch.class'
require 'torch.tensor'
require 'torch.storage'
require 'torch.views'
require 'torch.indexing'
require 'torch.ops'
require 'torch.print'
require 'torch.utils'
require 'torch.cuda'

for _, name in ipairs({ 'torch.reduce', 'torch.sort', 'torch.index', 'torch.linalg', 'torch.random',
                        'torch.factory', 'torch.timer', 'torch.cmdline', 'torch.tester', 'torch.autograd',
                        'torch.gradcheck', 'torch.functional', 'torch.loss', 'torch.rnn', 'torch.distributed',
                        'torch.normalization', 'torch.flip', 'torch.predicates', 'torch.det', 'torch.products',
                        'torch.arrange', 'torch.search', 'torch.pointwise_math', 'torch.linalg_ns', 'torch.linalg_extra',
                        'torch.shape', 'torch.index_extra', 'torch.creation', 'torch.stats', 'torch.stats_more', 'torch.doc',
                        'torch.conv_t7',
                        'torch.torch7_extra', 'torch.autograd_functional', 'torch.func', 'torch.checkpoint',
                        'torch.distributions', 'torch.profiler', 'torch.tensorboard' }) do
  require(name)
end
-- Convolution and pooling functions (torch.conv2d, torch.maxPool2d...).
require 'torch.conv'
-- Being written (loaded when present).
for _, name in ipairs({ 'torch.serialize', 'torch.special', 'torch.misc_pytorch', 'torch.misc_scatter',
                        'torch.linalg_more', 'torch.fft', 'torch.tensor_pytorch', 'torch.onnx', 'torch.sparse' }) do
  if package.searchpath(name, package.path) then require(name) end
end

torch._loaded = true
_G.torch = torch
return torch
