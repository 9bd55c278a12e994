-- nn.Trainer's optimizer steps inside fit: gradient accumulation (fit's accumulate), the
-- schedule's steps per epoch, and the history a fit continues (after a resume or initialEpoch).
-- Part of nn.Trainer (nn/Trainer.lua requires it after defining the class).
local Trainer = nn.Trainer
local split_batch, groups, fail = Trainer._splitBatch, Trainer._groups, Trainer._fail

-- Note [Accumulated gradients are a big batch's]: with accumulate = k, fit zeroes the gradients
-- before the first batch of each group of k, runs forward and backward on every batch with the
-- criterion's gradient times 1/k (the loss / k of a PyTorch loop), and steps the optimizer once
-- after the k-th, so k batches of size b move a mean-reduced criterion's model as one batch of
-- k*b would (up to rounding). A sum-reduced criterion (sizeAverage = false, reduction = 'sum') is not
-- scaled: the big batch's loss is the sum of the k sums. The last group of an epoch may hold m < k
-- batches: it is still stepped, its gradients scaled by k/m first, i.e. by its own count 1/m
-- (PyTorch Lightning divides by k there, which shrinks that step by m/k). Each batch of a group
-- weighs the same, as batches do without accumulation, so a smaller last batch matches the big
-- batch only when the group's batches are equal. A stop (trainer.stopTraining) inside a group
-- drops that group's gradients unstepped. The epoch loss and metrics are the batches' own,
-- unscaled. Torch7's functional optimizers get a feval that returns the accumulated gradients;
-- one that evaluates it twice (optim.lbfgs, optim.cg) is refused then.

function Trainer._isSumReduced(crit)
  return crit.reduction == 'sum' or (crit.reduction == nil and crit.sizeAverage == false)
end

-- The criterion's gradient times s: a new tensor (the criterion's gradInput is left as it is), or a
-- table of them for a table output.
local function scaled(g, s)
  if torch.isTensor(g) then return torch.mul(g, s) end
  if type(g) == 'table' then
    local r = {}
    for i, x in pairs(g) do r[i] = scaled(x, s) end
    return r
  end
  return g
end

-- The gradients the optimizer reads: the flat vector of a functional optimizer, else each
-- parameter group's .grad, else the model's gradient tensors (each once).
function Trainer:_gradients()
  local opt = self.optimizer
  if type(opt.method) == 'function' then local _, g = self:_flat() return { g } end
  local list, seen = {}, {}
  local gs = groups(opt)
  if type(gs) == 'table' then
    for _, g in ipairs(gs) do
      for _, p in ipairs(g.params or {}) do
        if torch.isTensor(p.grad) and not seen[p.grad] then seen[p.grad] = true list[#list + 1] = p.grad end
      end
    end
    return list
  end
  local _, grads = self.model:parameters()
  for _, g in ipairs(grads or {}) do
    if not seen[g] then seen[g] = true list[#list + 1] = g end
  end
  return list
end

-- Forward and backward of one batch of an accumulation group (gradients zeroed before the first),
-- the criterion's gradient times scale; returns the loss and the output.
function Trainer:_accumulateBatch(batch, scale, first)
  local input, target = split_batch(batch)
  local model, crit, opt = self.model, self.criterion, self.optimizer
  if not crit then fail('training needs a criterion') end
  if not opt then fail('training needs an optimizer') end
  if first then
    if type(opt.method) == 'function' then local _, grads = self:_flat() grads:zero()
    elseif type(opt.zeroGrad) == 'function' then opt:zeroGrad()
    else model:zeroGradParameters() end
  end
  local output = model:forward(input)
  local loss = crit:forward(output, target)
  local g = crit:backward(output, target)
  if scale ~= 1 then g = scaled(g, scale) end
  model:backward(input, g)
  return loss, output
end

-- One optimizer step on the accumulated gradients (loss: the group's last batch loss, which a
-- functional optimizer's feval returns).
function Trainer:_accumulatedStep(loss, k)
  local opt = self.optimizer
  self.globalStep = (self.globalStep or 0) + 1
  if type(opt.method) ~= 'function' then opt:step() return end
  local params, grads = self:_flat()
  local evals = 0
  local function feval()
    evals = evals + 1
    if evals > 1 then
      fail('accumulate = %d needs an optimizer that evaluates the loss once per step; the functional '
        .. 'method evaluated it again (optim.lbfgs, optim.cg: use accumulate = 1)', k)
    end
    return loss, grads
  end
  opt.state = opt.state or {}
  opt.method(feval, params, opt.config or {}, opt.state)
end

-- The history a fit starting after epoch `first` appends to: a new one from epoch 1, else the
-- trainer's rows up to that epoch (a resume from an earlier checkpoint drops the later rows).
function Trainer:_startingHistory(first)
  local old = self.history
  local h = { epoch = {} }
  if first == 0 or type(old) ~= 'table' or type(old.epoch) ~= 'table' then return h end
  local rows = 0
  while old.epoch[rows + 1] ~= nil and old.epoch[rows + 1] <= first do rows = rows + 1 end
  for k, list in pairs(old) do
    if type(list) == 'table' then
      h[k] = {}
      for r = 1, rows do h[k][r] = list[r] end
    end
  end
  return h
end

-- Steps an epoch-interval scheduler at the end of an epoch (a ReduceLROnPlateau with the
-- monitored log).
function Trainer:_epochSchedule(logs)
  local sched = self.scheduler
  if not sched or self.schedulerInterval ~= 'epoch' then return end
  if torch.isTypeOf(sched, 'optim.lr.ReduceLROnPlateau') then
    local name = self.schedulerMonitor or (logs.val_loss ~= nil and 'val_loss' or 'loss')
    local v = logs[name]
    if type(v) ~= 'number' then
      local names = {}
      for k, x in pairs(logs) do if type(x) == 'number' then names[#names + 1] = k end end
      table.sort(names)
      fail('schedulerMonitor %s is not among the epoch logs (%s)', name, table.concat(names, ', '))
    end
    sched:step(v)
  else
    sched:step()
  end
end

return Trainer
