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
                        'torch.torch7_extra', 'torch.autograd_functional', 'torch.checkpoint' }) do
  require(name)
end
-- Convolution and pooling functions (torch.conv2d, torch.maxPool2d...).
require 'torch.conv'
-- Being written (loaded when present).
for _, name in ipairs({ 'torch.serialize', 'torch.misc_pytorch', 'torch.misc_scatter', 'torch.linalg_more',
                        'torch.tensor_pytorch', 'torch.sparse' }) do
  if package.searchpath(name, package.path) then require(name) end
end

-- Note [Lazy namespaces]: namespaces that nothing at start-up needs load on their first use
-- (torch.special, torch.func, torch.distributions...): together they cost ~5 ms of every start.
-- A missing key of torch (or torch.utils) runs the table's __index, which requires the module
-- that defines the key. The names are listed in the metatable's __lazy, which the REPL's
-- completion reads (lua/tocha/complete.lua), so they complete before they are loaded.
local function lazy(tbl, names)
  local mt = getmetatable(tbl) or {}
  mt.__lazy = names
  mt.__index = function(t, k)
    local mod = names[k]
    if mod == nil then return nil end
    names[k] = nil
    -- a module that is loading (required directly) may test its own name: no second require
    if package.loaded[mod] == nil then require(mod) end
    return rawget(t, k)
  end
  setmetatable(tbl, mt)
end
lazy(torch, { distributions = 'torch.distributions', special = 'torch.special', func = 'torch.func',
              profiler = 'torch.profiler', onnx = 'torch.onnx', fft = 'torch.fft',
              -- torch.fft's complex helpers and short-time transforms
              complex = 'torch.complex', polar = 'torch.complex', real = 'torch.complex', imag = 'torch.complex',
              complexAbs = 'torch.complex', complexAngle = 'torch.complex', complexMul = 'torch.complex',
              complexConj = 'torch.complex', stft = 'torch.fft_stft', istft = 'torch.fft_stft',
              viewAsReal = 'torch.complex_views', viewAsComplex = 'torch.complex_views',
              histogramdd = 'torch.histogramdd', svdLowrank = 'torch.lowrank', pcaLowrank = 'torch.lowrank' })
torch.utils = torch.utils or {}
lazy(torch.utils, { tensorboard = 'torch.tensorboard' })

--- torch.vmap(func[, opts]): torch.func.vmap (PyTorch 2's alias); loads torch.func on first use.
--- Example: torch.vmap(torch.dot)(torch.randn(4, 3), torch.randn(4, 3))
function torch.vmap(...)
  return torch.func.vmap(...)
end

torch._loaded = true
_G.torch = torch
-- Torch7's torch/init.lua loaded its paths package: scripts call paths.concat after require 'torch'.
require 'paths'
return torch
