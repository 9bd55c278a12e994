-- tnt.TransformDataset (Torch7 torchnet's dataset/transformdataset.lua): applies a closure to
-- each sample (or to one field of it, or one closure per field) when it is fetched.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local utils = require 'torchnet.utils'
require 'torchnet.dataset'

local TransformDataset = torch.class('tnt.TransformDataset', 'tnt.Dataset', tnt)

local one_args = argcheck.parser{ name = 'tnt.TransformDataset',
  { name = 'dataset', type = 'tnt.Dataset' },
  { name = 'transform', type = 'function' },
  { name = 'key', type = 'string', opt = true },
}
local many_args = argcheck.parser{ name = 'tnt.TransformDataset',
  { name = 'dataset', type = 'tnt.Dataset' },
  { name = 'transforms', type = 'table' },
}

local function missing(self, key)
  error(string.format('[tnt.TransformDataset.get] missing key %s in sample', tostring(key)), 3)
end

--- tnt.TransformDataset{dataset=, transform=[, key=]} or tnt.TransformDataset{dataset=, transforms=}:
--- get(idx) is transform(sample, idx), or with key the sample with sample[key] = transform(sample[key], idx);
--- with transforms (field -> closure) each listed field is replaced by its closure's result.
--- Example: local tnt = require 'torchnet'
---   local t = tnt.TransformDataset{dataset = tnt.TableDataset{data = {{x = 2}}}, transform = function(x) return x * 10 end, key = 'x'}  -- t:get(1).x == 20
function TransformDataset:__init(...)
  local first, second = ...
  local many = (select('#', ...) == 1 and argcheck.isplain(first) and first.transforms ~= nil)
    or (select('#', ...) >= 2 and type(second) == 'table')
  if many then
    local dataset, transforms = many_args(...)
    for k, v in pairs(transforms) do
      if type(v) ~= 'function' then
        error(string.format('[tnt.TransformDataset] transforms should map fields to functions, %s is a %s',
          tostring(k), torch.type(v)), 2)
      end
    end
    transforms = utils.table.copy(transforms)
    self.dataset = dataset
    self.__transform = function(z)
      for key, fn in pairs(transforms) do
        if z[key] == nil then missing(self, key) end
        z[key] = fn(z[key])
      end
      return z
    end
  else
    local dataset, transform, key = one_args(...)
    self.dataset = dataset
    if key then
      self.__transform = function(z, idx)
        if z[key] == nil then missing(self, key) end
        z[key] = transform(z[key], idx)
        return z
      end
    else
      self.__transform = transform
    end
  end
end

--- transformdataset:size(): the underlying dataset's size.
--- Example: local tnt = require 'torchnet'; local n = tnt.TransformDataset{dataset = tnt.TableDataset{data = {1, 2}}, transform = tostring}:size()  -- 2
function TransformDataset:size()
  return self.dataset:size()
end

--- transformdataset:get(idx): the transformed sample idx.
--- Example: local tnt = require 'torchnet'; local s = tnt.TransformDataset{dataset = tnt.TableDataset{data = {1, 2}}, transform = tostring}:get(2)  -- '2'
function TransformDataset:get(idx)
  return self.__transform(self.dataset:get(idx), idx)
end

return TransformDataset
