-- The Lua half of the embedding example: loads a classifier checkpoint written by torch.save
-- (e.g. by examples/fashion_mnist_mlp.lua) and predicts classes for images the host passes in.
require 'nn'

local model

--- load_model(path): loads the checkpoint (a model, or a table with a `model` field).
function load_model(path)
  local obj = torch.load(path)
  if torch.isTypeOf(obj, 'nn.Module') then model = obj
  elseif type(obj) == 'table' and torch.isTypeOf(obj.model, 'nn.Module') then model = obj.model
  else error(path .. ' holds a ' .. torch.type(obj) .. ', not an nn model', 2) end
  model:evaluate()
  return true
end

--- predict(images): the 1-based class of each image (images: N x H x W or N x D, any float type).
function predict(images)
  assert(model, 'call load_model(path) first')
  local n = images:size(1)
  local params = model:parameters()
  local input = images:contiguous():view(n, -1)
  if params and params[1] then input = input:typeAs(params[1]) end
  local scores = torch.noGrad(function() return model:forward(input) end)
  local _, classes = scores:max(2)
  return classes:view(n):double()
end
