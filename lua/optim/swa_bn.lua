-- optim.swa.updateBn (PyTorch's torch.optim.swa_utils.update_bn): recomputes the batch-norm
-- running statistics of a model, typically an optim.AveragedModel's copy, by a pass over data.
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local swa = optim.swa

-- The input a batch holds: the tensor itself, batch.input, or batch[1] ({input, target}).
local function batch_input(b, k)
  if torch.isTensor(b) then return b end
  if type(b) == 'table' then
    if b.input ~= nil then return b.input end
    if b[1] ~= nil then return b[1] end
  end
  lib.fail('optim.swa.updateBn', 'batch %d is %s: expected a tensor, {input, target} or {input=, ...}', k, describe(b))
end

-- An iterator over the loader's batches: a function, an object with iter() (data.DataLoader), or
-- an array of batches.
local function batches(loader)
  if type(loader) == 'function' then return loader end
  if type(loader) == 'table' and type(loader.iter) == 'function' then return loader:iter() end
  if type(loader) == 'table' and not torch.typename(loader) then
    local i = 0
    return function()
      i = i + 1
      return loader[i]
    end
  end
  lib.fail('optim.swa.updateBn', 'loader must be a data.DataLoader (or an object with iter()), an iterator function or an array of batches, got %s', describe(loader))
end

-- Note [Cumulative batch-norm statistics]: PyTorch's update_bn sets momentum = None, which makes
-- batch norm keep the plain average of the batch statistics. Tocha's batch norm takes a number, so
-- each BatchNormalization gets, for the duration of the pass, an instance updateOutput that sets
-- momentum = 1/k at its k-th forward: after the pass running = the mean over the batches, counted
-- per call as PyTorch's num_batches_tracked counts them.
local function pass(loader, model, bns, device)
  local count = {}
  for _, m in ipairs(bns) do
    count[m] = 0
    local own = m.updateOutput
    m.updateOutput = function(self, input)
      count[self] = count[self] + 1
      self.momentum = 1 / count[self]
      return own(self, input)
    end
  end
  local k = 0
  for b in batches(loader) do
    k = k + 1
    local x = batch_input(b, k)
    if device then x = x:to(device) end
    model:forward(x)
  end
end

--- optim.swa.updateBn(loader, model[, {device=}]): recomputes the running mean and variance of
--- every BatchNormalization in model by one pass over loader (a data.DataLoader, an iterator
--- function or an array; each batch a tensor, {input, target} or {input=}), as their plain average
--- over the batches; momentum and each module's train/evaluate mode are restored. Returns model.
--- Example: local m = nn.BatchNormalization(2); optim.swa.updateBn({torch.randn(4, 2)}, m)
function swa.updateBn(loader, model, options)
  local name = 'optim.swa.updateBn'
  if not torch.isTypeOf(model, 'nn.Module') then lib.fail(name, 'expected a model, got %s', describe(model)) end
  if options ~= nil and type(options) ~= 'table' then lib.fail(name, 'options must be a table, got %s', describe(options)) end
  local device = options and options.device
  local bns, momenta, modes = {}, {}, {}
  local all = model:listModules()
  for i, m in ipairs(all) do
    modes[i] = m.train
    if torch.isTypeOf(m, 'nn.BatchNormalization') then
      bns[#bns + 1] = m
      momenta[m] = m.momentum
    end
  end
  if #bns == 0 then return model end
  torch.noGrad(function()
    for _, m in ipairs(bns) do
      m.running_mean:zero()
      m.running_var:fill(1)
    end
  end)
  model:training()
  local ok, err = pcall(torch.noGrad, pass, loader, model, bns, device)
  for _, m in ipairs(bns) do
    m.updateOutput = nil
    m.momentum = momenta[m]
  end
  -- parents first: a container's mode call reaches its children, whose own call follows
  for i, m in ipairs(all) do
    if modes[i] then m:training() else m:evaluate() end
  end
  if not ok then error(err, 0) end
  return model
end

return swa
