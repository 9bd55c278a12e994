-- optim.swa: weight averaging (PyTorch's torch.optim.swa_utils): optim.AveragedModel keeps a copy
-- of a model whose parameters are the running average (SWA) or exponential moving average (EMA)
-- of the model's, optim.swa.updateBn (optim/swa_bn.lua) recomputes batch-norm statistics for them,
-- and optim.lr.SWALR (optim/lr/SWALR.lua) is the schedule that goes with them.
require 'nn'
local lib = require 'torch.lib'
local describe = require('torch.types').describe
require 'optim.lr.SWALR'

local swa = {}
optim.swa = swa

-- Note [Averaging in place]: every update runs under torch.noGrad and writes into the copy's own
-- tensors (add, mul, copy), so the averaged parameters stay leaves with their gradients linked,
-- nothing is recorded, and a CUDA copy is averaged on the GPU (a model on another device is
-- converted to the copy's type first, as PyTorch's p_model.to(device)).

--- optim.swa.emaAvgFn(decay): PyTorch's get_ema_avg_fn: function(avg, p, n) returning
--- decay * avg + (1 - decay) * p, for optim.AveragedModel's avgFn.
--- Example: local f = optim.swa.emaAvgFn(0.9); print(f(torch.zeros(2), torch.ones(2), 1))
function swa.emaAvgFn(decay)
  if type(decay) ~= 'number' or not (decay >= 0 and decay <= 1) then
    lib.fail('optim.swa.emaAvgFn', 'decay must be a number in [0, 1], got %s', describe(decay))
  end
  return function(avg, p) return torch.add(torch.mul(avg, decay), 1 - decay, p) end
end

--- optim.swa.emaMultiAvgFn(decay): PyTorch's get_ema_multi_avg_fn: function(avgs, ps, n) that sets
--- every avgs[i] to decay * avgs[i] + (1 - decay) * ps[i] in place, for AveragedModel's multiAvgFn.
--- Example: local f = optim.swa.emaMultiAvgFn(0.9); local a = {torch.zeros(2)}; f(a, {torch.ones(2)}, 1)
function swa.emaMultiAvgFn(decay)
  if type(decay) ~= 'number' or not (decay >= 0 and decay <= 1) then
    lib.fail('optim.swa.emaMultiAvgFn', 'decay must be a number in [0, 1], got %s', describe(decay))
  end
  return function(avgs, ps)
    for i = 1, #avgs do avgs[i]:mul(decay):add(1 - decay, ps[i]) end
  end
end

-- Note [Tied tensors are averaged once]: PyTorch's model.parameters() lists a tied parameter (one
-- Parameter in two modules) once. Tocha's :share() gives each module its own tensor viewing the
-- same memory, and a module added twice lists its tensors twice, so model:parameters() can hold
-- one memory region several times; averaging each entry moved the tied weight again for every
-- extra listing (the SWA mean of w and w + 1 came out w + 0.75). Entries are kept once per region
-- (storage, offset, sizes and strides); the copy, cloned from the model, shares the same way.
local function region_key(t)
  if t:nElement() == 0 then return nil end
  local parts = { tostring(torch.pointer(t:storage())), t:type(), t:storageOffset() }
  for d = 1, t:dim() do parts[#parts + 1] = t:size(d) .. 'x' .. t:stride(d) end
  return table.concat(parts, ':')
end
local function once_per_region(list)
  local out, seen = {}, {}
  for _, t in ipairs(list) do
    local k = region_key(t)
    if k == nil or not seen[k] then
      if k then seen[k] = true end
      out[#out + 1] = t
    end
  end
  return out
end

--- optim.swa.buffers(model): the buffers of every module of model, in order: the names a class
--- lists in _stateBuffers, else running_mean and running_var (the batch normalizations).
--- Example: print(#optim.swa.buffers(nn.Sequential():add(nn.Linear(2, 2)):add(nn.BatchNormalization(2))))
function swa.buffers(model)
  if not torch.isTypeOf(model, 'nn.Module') then lib.fail('optim.swa.buffers', 'expected a module, got %s', describe(model)) end
  local list, seen = {}, {}
  for _, m in ipairs(model:listModules()) do
    for _, name in ipairs(m._stateBuffers or { 'running_mean', 'running_var' }) do
      local t = m[name]
      if torch.isTensor(t) and not seen[t] then
        seen[t] = true
        list[#list + 1] = t
      end
    end
  end
  return once_per_region(list)
end

local AveragedModel, parent = torch.class('optim.AveragedModel', 'nn.Decorator')
swa.AveragedModel = AveragedModel

local kinds = { avgFn = 'function', multiAvgFn = 'function', useBuffers = 'boolean', decay = 'number' }

--- optim.AveragedModel(model[, {avgFn=, multiAvgFn=, useBuffers=false, decay=}]): a module holding
--- a deep copy of model (avg.module) whose parameters avg:updateParameters(model) averages with
--- model's: the equal running average by default (SWA), decay * avg + (1 - decay) * p with decay=
--- (EMA), avgFn(avgParam, modelParam, nAveraged) returning the new value, or multiAvgFn(avgParams,
--- modelParams, nAveraged) updating the lists in place. useBuffers averages the buffers (batch
--- norm's running statistics) too; without it they are copied from model at each update (PyTorch
--- 2's behaviour). avg:forward(x) runs the copy; avg.nAveraged counts the updates.
--- Example: local avg = optim.AveragedModel(nn.Linear(2, 1)); avg:updateParameters(nn.Linear(2, 1))
function AveragedModel:__init(model, options)
  local name = 'optim.AveragedModel'
  if not torch.isTypeOf(model, 'nn.Module') then lib.fail(name, 'expected a module to average, got %s', describe(model)) end
  options = options or {}
  if type(options) ~= 'table' then lib.fail(name, 'options must be a table, got %s', describe(options)) end
  for k, v in pairs(options) do
    local kind = kinds[k]
    if not kind then lib.fail(name, 'unknown option %s (expected avgFn, multiAvgFn, useBuffers or decay)', tostring(k)) end
    if type(v) ~= kind then lib.fail(name, 'option %s must be a %s, got %s', k, kind, describe(v)) end
  end
  local nfn = (options.avgFn and 1 or 0) + (options.multiAvgFn and 1 or 0) + (options.decay and 1 or 0)
  if nfn > 1 then lib.fail(name, 'give at most one of avgFn, multiAvgFn and decay') end
  if options.decay and not (options.decay >= 0 and options.decay <= 1) then
    lib.fail(name, 'decay must be in [0, 1], got %s', tostring(options.decay))
  end
  parent.__init(self, model:clone())
  self.avgFn, self.multiAvgFn = options.avgFn, options.multiAvgFn
  self.decay = options.decay
  self.useBuffers = options.useBuffers == true
  self.nAveraged = 0
end

-- The tensors averaged: the parameters, then the buffers when useBuffers.
local function averaged(self, model)
  local ps = model:parameters() or {}
  local list = {}
  for i = 1, #ps do list[i] = ps[i] end
  if self.useBuffers then
    for _, b in ipairs(swa.buffers(model)) do list[#list + 1] = b end
  end
  return once_per_region(list)  -- Note [Tied tensors are averaged once]
end

local function check_match(mine, theirs, what)
  local op = 'optim.AveragedModel.updateParameters'
  if #mine ~= #theirs then
    lib.fail(op, 'the model has %d %s but the averaged copy has %d: pass a model of the same architecture', #theirs, what, #mine)
  end
  for i = 1, #mine do
    if mine[i]:nElement() ~= theirs[i]:nElement() then
      lib.fail(op, '%s %d is %s in the model but %s in the averaged copy', what, i, describe(theirs[i]), describe(mine[i]))
    end
  end
end

-- model's tensors as the copy's type and device (views of model's own when they already are).
local function aligned(mine, theirs)
  local out = {}
  for i = 1, #mine do
    local t = theirs[i]
    if torch.type(t) ~= torch.type(mine[i]) then t = t:typeAs(mine[i]) end
    out[i] = t:view(mine[i]:size())
  end
  return out
end

function AveragedModel:_average(model)
  local mine, theirs = averaged(self, self.module), averaged(self, model)
  check_match(mine, theirs, self.useBuffers and 'parameters and buffers' or 'parameters')
  theirs = aligned(mine, theirs)
  local n = self.nAveraged
  if n == 0 then
    for i = 1, #mine do mine[i]:copy(theirs[i]) end
  elseif self.multiAvgFn then
    self.multiAvgFn(mine, theirs, n)
  elseif self.avgFn then
    for i = 1, #mine do
      local v = self.avgFn(mine[i], theirs[i], n)
      if not torch.isTensor(v) then
        lib.fail('optim.AveragedModel.updateParameters', 'avgFn must return a tensor, got %s', describe(v))
      end
      mine[i]:copy(v)
    end
  elseif self.decay then
    for i = 1, #mine do mine[i]:mul(self.decay):add(1 - self.decay, theirs[i]) end
  else
    -- avg + (p - avg) / (n + 1), PyTorch's formula: the mean of the n + 1 models seen
    for i = 1, #mine do mine[i]:add(1 / (n + 1), torch.csub(theirs[i], mine[i])) end
  end
  -- Note [Buffers follow the model]: without useBuffers the copy's buffers are the model's latest
  -- (PyTorch 2; 1.13 left them as they were when the copy was made), so the average evaluates
  -- with current batch statistics until optim.swa.updateBn recomputes them for its own weights.
  if not self.useBuffers then
    local bm, bt = swa.buffers(self.module), swa.buffers(model)
    check_match(bm, bt, 'buffers')
    bt = aligned(bm, bt)
    for i = 1, #bm do bm[i]:copy(bt[i]) end
  end
  self.nAveraged = n + 1
end

--- avg:updateParameters(model): folds model's parameters (and buffers) into the average; the first
--- call copies them. A number instead of a model is Torch7's SGD step on the copy (a container
--- holding an AveragedModel may call it so).
--- Example: local m = nn.Linear(2, 1); local avg = optim.AveragedModel(m); avg:updateParameters(m)
function AveragedModel:updateParameters(model)
  if type(model) == 'number' then return parent.updateParameters(self, model) end
  if not torch.isTypeOf(model, 'nn.Module') then
    lib.fail('optim.AveragedModel.updateParameters', 'expected the model being averaged, got %s', describe(model))
  end
  torch.noGrad(self._average, self, model)
  return self
end

function AveragedModel:__tostring__()
  return string.format('optim.AveragedModel(%s, %d averaged) @ %s',
    self.decay and ('EMA ' .. self.decay) or ((self.avgFn or self.multiAvgFn) and 'custom' or 'SWA'),
    self.nAveraged, tostring(self.module))
end

require 'optim.swa_bn'

return swa
