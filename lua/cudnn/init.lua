-- cudnn: Torch7's cudnn.torch package names over nn. Each cudnn.X is a subclass of the nn module
-- that computes the same thing (torch.class with nn.X as parent), since Tocha's nn modules already
-- run through cuDNN on CUDA tensors; so cudnn.convert(net, cudnn) and cudnn.convert(net, nn) swap
-- classes both ways keeping the parameters, and modules saved as cudnn.X load back once 'cudnn' is
-- required. Needs cutorch, so it fails to load without a GPU as Torch7's did (Note [cutorch
-- without a device] in lua/cutorch/init.lua).
local ok, err = pcall(require, 'cutorch')
if not ok then package.loaded.cudnn = nil error(err, 0) end
require 'nn'

local cudnn = rawget(_G, 'cudnn') or {}
_G.cudnn = cudnn

-- Note [cudnn flags]: cudnn.benchmark is torch.backends.cudnn.benchmark (each convolution shape
-- times cuDNN's algorithms on its first call and keeps the fastest, as Torch7's flag did).
-- cudnn.fastest and cudnn.verbose are kept as plain fields: Tocha chooses algorithms by cuDNN's
-- heuristics (or benchmark) whatever fastest says, and prints nothing about the choice.
local flags = { fastest = false, verbose = false }
setmetatable(cudnn, {
  __index = function(_, k)
    if k == 'benchmark' then return torch.backends.cudnn.benchmark end
    return flags[k]
  end,
  __newindex = function(t, k, v)
    if k == 'benchmark' then torch.backends.cudnn.benchmark = v and true or false
    elseif k == 'fastest' or k == 'verbose' then flags[k] = v and true or false
    else rawset(t, k, v) end
  end,
})

require 'cudnn.modules'
require 'cudnn.softmax'
require 'cudnn.rnn'
require 'cudnn.convert'

-- Note [cudnn files]: without this package, nn registers cudnn.SpatialConvolution & co. as
-- aliases of their nn classes, so Torch7 models trained with cudnn load as nn. Once cudnn is
-- required, objects saved as cudnn.X load as cudnn.X again (same fields and computation).
if torch.serialization and torch.serialization.unregisterClassAlias then
  for _, name in ipairs(cudnn._classes) do torch.serialization.unregisterClassAlias('cudnn.' .. name) end
end

return cudnn
