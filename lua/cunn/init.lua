-- cunn: Torch7's package of nn's CUDA kernels. In Tocha nn's modules run on the GPU themselves
-- (module:cuda(), torch.CudaTensor inputs), and nn.DataParallelTable is in nn, so this only loads
-- cutorch and nn, as cunn did (and fails without a GPU as cunn did: Note [cutorch without a
-- device] in lua/cutorch/init.lua).
local ok, err = pcall(require, 'cutorch')
if not ok then package.loaded.cunn = nil error(err, 0) end
require 'nn'

local cunn = rawget(_G, 'cunn') or {}
_G.cunn = cunn

return cunn
