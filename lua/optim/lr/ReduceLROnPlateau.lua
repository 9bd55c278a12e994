-- optim.lr.ReduceLROnPlateau: divides the rate when a monitored metric stops improving
-- (PyTorch's rules: patience, threshold modes, cooldown, minimum rate).
local ReduceLROnPlateau, Scheduler = torch.class('optim.lr.ReduceLROnPlateau', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

local kinds = { mode = 'any', factor = 'unit', patience = 'nonneg', threshold = 'nonneg', thresholdMode = 'any',
                cooldown = 'nonneg', minLr = 'any', eps = 'nonneg', verbose = 'boolean' }

--- optim.lr.ReduceLROnPlateau(target, {mode='min', factor=0.1, patience=10, threshold=1e-4,
--- thresholdMode='rel', cooldown=0, minLr=0, eps=1e-8, verbose=false}): call sched:step(metric)
--- after each evaluation; after more than `patience` epochs without improvement (by threshold,
--- relative or absolute) the rates are multiplied by factor (not below minLr, a number or one
--- per group), then `cooldown` epochs pass before counting again.
function ReduceLROnPlateau:__init(target, options)
  local name = 'optim.lr.ReduceLROnPlateau'
  options = options or {}
  if options.mode ~= nil and options.mode ~= 'min' and options.mode ~= 'max' then
    lib.fail(name, "mode must be 'min' or 'max', got %s", tostring(options.mode))
  end
  if options.thresholdMode ~= nil and options.thresholdMode ~= 'rel' and options.thresholdMode ~= 'abs' then
    lib.fail(name, "thresholdMode must be 'rel' or 'abs', got %s", tostring(options.thresholdMode))
  end
  Scheduler.__init(self, 'ReduceLROnPlateau', target, options, kinds,
                   { mode = 'min', factor = 0.1, patience = 10, threshold = 1e-4, thresholdMode = 'rel', cooldown = 0,
                     minLr = 0, eps = 1e-8, verbose = false })
  -- checked here: a bad minLr failed inside math.max at the first reduction, after reducing the
  -- groups before it
  self:_checkPerGroup(self.minLr, 'minLr')
  for i = 1, #self._groups do
    local m = type(self.minLr) == 'table' and self.minLr[i] or self.minLr
    if type(m) ~= 'number' or not (m >= 0) or m == math.huge then
      lib.fail(self._name, 'minLr must be a non-negative number or one per group, got %s for group %d', tostring(m), i)
    end
  end
  self.best = self.mode == 'min' and math.huge or -math.huge
  self.numBadEpochs = 0
  self.cooldownCounter = 0
end

function ReduceLROnPlateau:_apply() end  -- the rates only change in step

function ReduceLROnPlateau:_isBetter(a)
  local best, t = self.best, self.threshold
  if self.mode == 'min' then
    if self.thresholdMode == 'rel' then return a < best * (1 - t) end
    return a < best - t
  end
  if self.thresholdMode == 'rel' then return a > best * (t + 1) end
  return a > best + t
end

--- sched:step(metric): records one epoch's metric and reduces the rates after a plateau.
function ReduceLROnPlateau:step(metric)
  if torch.isTensor(metric) then metric = metric:item() end
  if type(metric) ~= 'number' or metric ~= metric then
    lib.fail(self._name, 'step(metric) needs the monitored value as a number, got %s', tostring(metric))
  end
  self.lastEpoch = self.lastEpoch + 1
  if self:_isBetter(metric) then
    self.best = metric
    self.numBadEpochs = 0
  else
    self.numBadEpochs = self.numBadEpochs + 1
  end
  if self.cooldownCounter > 0 then
    self.cooldownCounter = self.cooldownCounter - 1
    self.numBadEpochs = 0
  end
  if self.numBadEpochs > self.patience then
    for i, g in ipairs(self._groups) do
      local old = g[self._key]
      local floor = type(self.minLr) == 'table' and self.minLr[i] or self.minLr
      local new = math.max(old * self.factor, floor)
      if old - new > self.eps then
        g[self._key] = new
        if self.verbose then print(string.format('%s: reducing the rate of group %d to %.4e', self._name, i, new)) end
      end
    end
    self.cooldownCounter = self.cooldown
    self.numBadEpochs = 0
  end
end

--- sched:state(): progress, options and the current rates (which only this schedule knows).
function ReduceLROnPlateau:state()
  local s = Scheduler.state(self)
  s.lrs = self:getLastLr()
  return s
end

--- sched:loadState(s): restores state(), the reduced rates included.
function ReduceLROnPlateau:loadState(s)
  Scheduler.loadState(self, s)
  local lrs = self.lrs
  self.lrs = nil
  if type(lrs) == 'table' then
    for i, g in ipairs(self._groups) do
      if type(lrs[i]) == 'number' then g[self._key] = lrs[i] end
    end
  end
end
