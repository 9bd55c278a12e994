-- The nn module: Torch7's neural-network modules and criterions on top of Tocha's autograd
-- (DESIGN.md decision 6). require 'nn' sets the global nn, like Torch7.
-- Every nn/*.lua file defines one class; a file whose class extends another requires that
-- class's file first (e.g. nn/Sequential.lua starts with require 'nn.Container').
require 'torch'
if rawget(_G, 'nn') and nn._loaded then return nn end
nn = rawget(_G, 'nn') or {}
nn._dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$')

for _, name in ipairs({ 'Module', 'Container', 'Criterion', 'utils', 'Jacobian', 'init_weights' }) do
  require('nn.' .. name)
end
local files = {}
for f in io.popen('ls "' .. nn._dir .. '"'):lines() do
  local name = f:match('^(.+)%.lua$')
  if name and name ~= 'init' then files[#files + 1] = name end
end
table.sort(files)
for _, name in ipairs(files) do require('nn.' .. name) end

-- nn.models (torchvision's classification models, lua/nn/models/) and nn.ops (torchvision.ops,
-- lua/nn/ops/) load on their first use, like
-- the namespaces of Note [Lazy namespaces] (lua/torch/init.lua); __lazy lists it for completion.
do
  local lazy = { models = 'nn.models', ops = 'nn.ops' }
  local mt = getmetatable(nn) or {}
  mt.__lazy = lazy
  mt.__index = function(t, k)
    local mod = lazy[k]
    if mod == nil then return nil end
    lazy[k] = nil
    if package.loaded[mod] == nil then require(mod) end
    return rawget(t, k)
  end
  setmetatable(nn, mt)
end

nn._loaded = true
return nn
