-- The data module (local data = require 'data'): datasets, the DataLoader, dataset readers
-- (IDX/MNIST, CSV, CIFAR-10, image folders), preprocessing and image transforms.
-- It does not set a global: `data` is too common a variable name.
require 'torch'
local data = require 'data.env'
if data._loaded then return data end

for _, name in ipairs({ 'dataset', 'datasets', 'loader', 'idx', 'csv', 'cifar', 'image', 'imagefolder', 'preprocess',
                        'transforms', 'progress', 'sampler' }) do
  require('data.' .. name)
end

-- Being written (loaded when present).
for _, name in ipairs({ 'transforms_tv', 'samplers' }) do
  if package.searchpath('data.' .. name, package.path) then require('data.' .. name) end
end

data.collate = require('data.collate').default
data._loaded = true
package.loaded.data = data
return data
