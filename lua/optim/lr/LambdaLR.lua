-- optim.lr.LambdaLR and optim.lr.MultiplicativeLR: rates from user functions of the epoch.
local LambdaLR, Scheduler = torch.class('optim.lr.LambdaLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

-- The function for group i: lrLambda is one function or a table of one per group.
local function lambda_of(self, i)
  local f = self.lrLambda
  if type(f) == 'table' then f = f[i] end
  return f
end

local function check_lambdas(self, name)
  local f = self.lrLambda
  if type(f) == 'table' then
    if #f ~= #self._groups then
      lib.fail(name, 'lrLambda has %d functions for %d parameter groups', #f, #self._groups)
    end
    for i, g in ipairs(f) do
      if type(g) ~= 'function' then lib.fail(name, 'lrLambda[%d] must be a function, got %s', i, type(g)) end
    end
  elseif type(f) ~= 'function' then
    lib.fail(name, 'lrLambda must be a function or a table of functions, got %s', type(f))
  end
end

local function init(self, name, target, options)
  if type(options) ~= 'table' or options.lrLambda == nil then lib.fail('optim.lr.' .. name, 'options.lrLambda is required') end
  -- bind first to know the groups, then check the functions before the rate of epoch 0 is applied
  local base, o = options.lrLambda, {}
  for k, v in pairs(options) do o[k] = v end
  o.lrLambda = function() return 1 end
  Scheduler.__init(self, name, target, o, { lrLambda = 'any' }, {})
  self.lrLambda = base
  check_lambdas(self, self._name)
  self:_apply()
end

--- optim.lr.LambdaLR(target, {lrLambda=}): lr = base * lrLambda(epoch); lrLambda is a function or a
--- table of one per parameter group (PyTorch's LambdaLR).
--- Example: local opt = optim.SGD(torch.zeros(2), {lr = 0.1})
--- local sched = optim.lr.LambdaLR(opt, {lrLambda = function(e) return 0.95 ^ e end})
function LambdaLR:__init(target, options) init(self, 'LambdaLR', target, options) end

function LambdaLR:lrAt(epoch, i)
  local v = lambda_of(self, i)(epoch)
  if type(v) ~= 'number' then lib.fail(self._name, 'lrLambda(%d) returned %s, not a number', epoch, type(v)) end
  return self.baseLrs[i] * v
end

--- sched:state(): the schedule's progress without its functions (as PyTorch's state_dict, which
--- keeps only callable objects): a table of one function per group made the state unsaveable by
--- torch.save; loadState keeps the functions the schedule was built with.
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.LambdaLR(o, {lrLambda = {function(e) return 1 end}}):state()
function LambdaLR:state()
  local s = Scheduler.state(self)
  s.lrLambda = nil
  return s
end

local MultiplicativeLR = torch.class('optim.lr.MultiplicativeLR', 'optim.lr.LambdaLR')

--- optim.lr.MultiplicativeLR(target, {lrLambda=}): each step multiplies the rate by
--- lrLambda(epoch) (PyTorch's MultiplicativeLR): lr = base * prod_{e=1..epoch} lrLambda(e).
function MultiplicativeLR:__init(target, options) init(self, 'MultiplicativeLR', target, options) end

-- The product so far is kept per group (self._prod[i] = {epoch, base, lr, lrLambda}) so that a step calls
-- lrLambda once, as PyTorch's does: recomputing it from epoch 1 made n steps cost n^2 / 2 calls.
function MultiplicativeLR:lrAt(epoch, i)
  local lr = self.baseLrs[i]
  local f = lambda_of(self, i)
  self._prod = self._prod or {}
  local c, from = self._prod[i], 1
  if c and c[1] <= epoch and c[2] == lr and c[4] == f then lr, from = c[3], c[1] + 1 end
  for e = from, epoch do
    local v = f(e)
    if type(v) ~= 'number' then lib.fail(self._name, 'lrLambda(%d) returned %s, not a number', e, type(v)) end
    lr = lr * v
  end
  self._prod[i] = { epoch, self.baseLrs[i], lr, f }
  return lr
end

-- PyTorch 1.13's MultiplicativeLR.get_lr (Note [Back-to-back schedules] in Scheduler.lua).
function MultiplicativeLR:_recur(lr, epoch, i)
  if epoch == 0 then return lr end
  local v = lambda_of(self, i)(epoch)
  if type(v) ~= 'number' then lib.fail(self._name, 'lrLambda(%d) returned %s, not a number', epoch, type(v)) end
  return lr * v
end
MultiplicativeLR._apply = Scheduler._recurApply

--- sched:loadState(s): restores state() and the rates the schedule set last.
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.MultiplicativeLR(o, {lrLambda = function() return 0.9 end}); s:loadState(s:state())
function MultiplicativeLR:loadState(s) self:_loadStateAndRates(s) end
