-- torch.optim 1.13's remaining names on Tocha's optimizer objects and schedules: stateDict /
-- loadStateDict (PyTorch's state_dict / load_state_dict) on every optimizer and schedule, and the
-- `maximize` option of SGD, Adam, AdamW, Adagrad and RMSprop (Adadelta, Adamax, ASGD and Rprop
-- already have it). Loaded by optim/init.lua after the optimizer and schedule classes.
--- opt:stateDict(): PyTorch's state_dict: the snapshot of opt:state() (for torch.save).
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = o:stateDict()
function optim.Optimizer:stateDict() return self:state() end
--- opt:loadStateDict(s): PyTorch's load_state_dict: opt:loadState(s).
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); o:loadStateDict(o:stateDict())
function optim.Optimizer:loadStateDict(s) return self:loadState(s) end
--- sched:stateDict(): PyTorch's state_dict: the schedule's sched:state() (not the optimizer's).
--- Example: local s = optim.lr.StepLR(optim.SGD(torch.zeros(2), {lr = 0.1}), {stepSize = 2}):stateDict()
function optim.lr.Scheduler:stateDict() return self:state() end
--- sched:loadStateDict(s): PyTorch's load_state_dict: sched:loadState(s).
--- Example: local sc = optim.lr.StepLR(optim.SGD(torch.zeros(2), {lr = 0.1}), {stepSize = 2}); sc:loadStateDict(sc:stateDict())
function optim.lr.Scheduler:loadStateDict(s) return self:loadState(s) end

-- Note [Maximize by a negated gradient]: torch.optim 1.13's SGD, Adam, AdamW, Adagrad and RMSprop
-- negate the gradient first when maximize is set (weight decay is added after), so the update
-- ascends. The fused updates here take the gradient as given, so _update gets -grad (a new
-- tensor, made before the fused call as Note [Multi-tensor optimizer steps] requires); the kinds
-- table of each instance gains 'maximize' (a copy: the class's table is shared and unchanged),
-- and 'foreach', accepted and ignored as by Adadelta, Adamax, ASGD and Rprop (CUDA steps are
-- batched anyway): torch.optim 1.13's SGD(foreach=False) was refused as an unknown option.
local function with_maximize(cls)
  local check, update = cls._checkOptions, cls._update
  cls._checkOptions = function(self, options)
    if self._kinds.maximize == nil then
      local k = { maximize = 'boolean', foreach = 'boolean' }
      for name, kind in pairs(self._kinds) do k[name] = kind end
      self._kinds = k
    end
    return check(self, options)
  end
  cls._update = function(self, p, g, s, group)
    -- a sparse gradient's updates apply maximize themselves (lua/torch/sparse_grad_optim.lua)
    if group.maximize and not torch.isSparse(g) then g = torch.neg(g) end
    return update(self, p, g, s, group)
  end
end
for _, name in ipairs({ 'SGD', 'Adam', 'Adagrad', 'RMSprop' }) do with_maximize(optim[name]) end
-- AdamW inherits Adam's _update and _checkOptions, so it has maximize too.

return optim
