-- torch.cuda.GradScaler (issue 9): dynamic loss scaling for f16 mixed precision, PyTorch's
-- algorithm and defaults. The loss is multiplied by the scale before backward so that small f16
-- gradients do not flush to zero; step() divides the gradients by the scale and skips the update
-- when any of them is inf or NaN (the scale was too large); update() halves the scale after such a
-- step and doubles it after growthInterval clean steps in a row. Works on gradients of any device
-- (the tests run it on CPU tensors), with optimizer objects (optim.SGD...) or, Torch7 style, with
-- a flat gradient tensor and a function that runs the functional optimizer.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local fail = lib.fail

local GradScaler = {}
GradScaler.__index = GradScaler

local defaults = { initScale = 65536, growthFactor = 2, backoffFactor = 0.5, growthInterval = 2000 }

local function positive(op, name, v, lo)
  if type(v) ~= 'number' or v ~= v or v <= (lo or 0) then
    fail(op, '%s must be a number > %s, got %s', name, tostring(lo or 0), tostring(v))
  end
  return v
end

local function check_options(op, o)
  positive(op, 'initScale', o.initScale)
  positive(op, 'growthFactor', o.growthFactor, 1)
  if type(o.backoffFactor) ~= 'number' or not (o.backoffFactor > 0 and o.backoffFactor < 1) then
    fail(op, 'backoffFactor must be a number in (0, 1), got %s', tostring(o.backoffFactor))
  end
  if type(o.growthInterval) ~= 'number' or o.growthInterval < 1 or o.growthInterval % 1 ~= 0 then
    fail(op, 'growthInterval must be a positive integer, got %s', tostring(o.growthInterval))
  end
end

--- torch.cuda.GradScaler([opts]): a loss scaler; opts: initScale (65536), growthFactor (2),
--- backoffFactor (0.5), growthInterval (2000), enabled (true; false makes every method a
--- pass-through). Use: scaler:scale(loss):backward(); scaler:step(opt); scaler:update().
--- Example: local scaler = torch.cuda.GradScaler({ initScale = 1024 })
local function new(opts)
  if opts ~= nil and type(opts) ~= 'table' then fail('GradScaler', 'expected a table of options, got %s', type(opts)) end
  opts = opts or {}
  local self = setmetatable({}, GradScaler)
  for k, v in pairs(opts) do
    if defaults[k] == nil and k ~= 'enabled' then fail('GradScaler', 'unknown option %s', tostring(k)) end
  end
  for k, v in pairs(defaults) do self[k] = opts[k] == nil and v or opts[k] end
  check_options('GradScaler', self)
  self.enabled = opts.enabled ~= false
  self.scaleValue = self.initScale
  self.growthTracker = 0
  self._perOptimizer = {}  -- optimizer (or gradient tensor) -> { unscaled = bool, foundInf = bool, stepped }
  return self
end

--- scaler:scale(loss): loss times the current scale (a tensor, a number, or a table of them); the
--- loss itself when the scaler is disabled.
--- Example: local scaler, model = torch.cuda.GradScaler(), nn.Linear(3, 2)
--- local loss = model(torch.randn(4, 3)):sum(); scaler:scale(loss):backward()
function GradScaler:scale(loss)
  if not self.enabled then return loss end
  if type(loss) == 'number' then return loss * self.scaleValue end
  if type(loss) == 'table' then
    local out = {}
    for i, l in ipairs(loss) do out[i] = self:scale(l) end
    return out
  end
  if not torch.isTensor(loss) then fail('GradScaler.scale', 'expected a tensor, a number or a table, got %s', type(loss)) end
  return torch.mul(loss, self.scaleValue)
end

-- The gradients an optimizer object updates, or the tensors given directly.
local function gradients_of(op, target)
  if torch.isTensor(target) then return { target } end
  if type(target) ~= 'table' then fail(op, 'expected an optimizer, a gradient tensor or a table of them, got %s', type(target)) end
  local grads = {}
  if target.paramGroups then
    for _, group in ipairs(target.paramGroups) do
      for _, p in ipairs(group.params) do
        if p.grad then grads[#grads + 1] = p.grad end
      end
    end
  else
    for i, g in ipairs(target) do
      if not torch.isTensor(g) then fail(op, 'element %d is not a tensor (%s)', i, type(g)) end
      grads[i] = g
    end
  end
  return grads
end

-- Divides every gradient by the scale in place; true when any element is inf or NaN. x*0 is 0
-- for finite x and NaN otherwise, so the sum of g*0 tells. The sums stay on each gradient's
-- device (a sum along dim 1 is a tensor, not a number) and add up there, so a whole optimizer
-- costs one synchronization per device, not one per parameter.
local function unscale_and_check(grads, inv)
  local found, acc = false, {}
  torch.noGrad(function()
    for _, g in ipairs(grads) do
      g:mul(inv)
      if g:nElement() > 0 then
        local s = torch.sum(torch.mul(g, 0):view(-1), 1):to('torch.FloatTensor')
        local dev = g:device()
        if acc[dev] then acc[dev]:add(s) else acc[dev] = s end
      end
    end
    for _, a in pairs(acc) do
      local v = a:float()[1]
      if v ~= 0 then found = true end  -- NaN ~= 0 too
    end
  end)
  return found
end

local function state_for(self, target)
  local st = self._perOptimizer[target]
  if not st then
    st = { unscaled = false, foundInf = false, stepped = false }
    self._perOptimizer[target] = st
  end
  return st
end

--- scaler:unscale(optimizer | grads): divides the gradients (of an optimizer object, or a tensor or
--- table of tensors) by the scale in place, e.g. before clipping them; returns true when one of
--- them holds inf or NaN. At most once per target between two update() calls.
--- Example: local model = nn.Linear(3, 2); local opt = optim.SGD(model:parameters(), {lr = 0.1})
--- local scaler = torch.cuda.GradScaler(); scaler:scale(model(torch.randn(4, 3)):sum()):backward()
--- scaler:unscale(opt); nn.utils.clipGradNorm(model:parameters(), 1); scaler:step(opt)
function GradScaler:unscale(target)
  if not self.enabled then return false end
  local st = state_for(self, target)
  if st.unscaled then fail('GradScaler.unscale', 'unscale() was already called for this target since the last update()') end
  if st.stepped then fail('GradScaler.unscale', 'unscale() is called after step(); call update() first') end
  st.foundInf = unscale_and_check(gradients_of('GradScaler.unscale', target), 1 / self.scaleValue)
  st.unscaled = true
  return st.foundInf
end

--- scaler:step(optimizer, ...) runs optimizer:step(...) unless a gradient is inf or NaN (unscaling
--- them first if unscale() was not called); scaler:step(fn, grads) does the same for a function
--- that runs a functional optimizer (Torch7 style) with a flat gradient tensor. Returns the
--- step's results, or nothing when the step was skipped.
--- Example: local model = nn.Linear(3, 2); local opt = optim.SGD(model:parameters(), {lr = 0.1})
--- local scaler = torch.cuda.GradScaler(); scaler:scale(model(torch.randn(4, 3)):sum()):backward()
--- scaler:step(opt); scaler:update()
function GradScaler:step(target, ...)
  local op = 'GradScaler.step'
  local run, key
  if type(target) == 'function' then
    local grads = ...
    if grads == nil then fail(op, 'step(fn, grads) needs the gradients that fn updates with') end
    key, run = grads, function() return target() end
  elseif type(target) == 'table' and type(target.step) == 'function' then
    local args = { n = select('#', ...), ... }
    key, run = target, function() return target:step(unpack(args, 1, args.n)) end
  else
    fail(op, 'expected an optimizer object or a function and its gradients, got %s', type(target))
  end
  if not self.enabled then return run() end
  local st = state_for(self, key)
  if st.stepped then fail(op, 'step() was already called for this optimizer since the last update()') end
  if not st.unscaled then self:unscale(key) end
  st.stepped = true
  if st.foundInf then return end
  return run()
end

--- scaler:update([newScale]): after the steps of an iteration, backs the scale off (times
--- backoffFactor) if a step found inf/NaN gradients, or grows it (times growthFactor) after
--- growthInterval clean iterations in a row; newScale sets it directly.
--- Example: local model = nn.Linear(3, 2); local opt = optim.SGD(model:parameters(), {lr = 0.1})
--- local scaler = torch.cuda.GradScaler(); scaler:scale(model(torch.randn(4, 3)):sum()):backward()
--- scaler:step(opt); scaler:update()
function GradScaler:update(newScale)
  if not self.enabled then return end
  if newScale ~= nil then
    if torch.isTensor(newScale) then newScale = newScale:item() end
    self.scaleValue = positive('GradScaler.update', 'newScale', newScale)
  else
    local checked, found = false, false
    for _, st in pairs(self._perOptimizer) do
      if st.unscaled then checked = true end
      if st.foundInf then found = true end
    end
    if not checked then fail('GradScaler.update', 'no inf checks were recorded: call step() or unscale() first') end
    if found then
      self.scaleValue = self.scaleValue * self.backoffFactor
      self.growthTracker = 0
    else
      self.growthTracker = self.growthTracker + 1
      if self.growthTracker >= self.growthInterval then
        self.scaleValue = self.scaleValue * self.growthFactor
        self.growthTracker = 0
      end
    end
  end
  self._perOptimizer = {}
end

--- scaler:getScale(): the current scale (1 when disabled).
--- Example: torch.cuda.GradScaler({initScale = 1024}):getScale()
function GradScaler:getScale() return self.enabled and self.scaleValue or 1 end
--- scaler:isEnabled(): whether the scaler scales.
--- Example: torch.cuda.GradScaler({enabled = false}):isEnabled()
function GradScaler:isEnabled() return self.enabled end
--- scaler:foundInf(optimizer): whether the last unscale of that optimizer found inf/NaN gradients.
--- Example: local model = nn.Linear(3, 2); local opt = optim.SGD(model:parameters(), {lr = 0.1})
--- local scaler = torch.cuda.GradScaler(); scaler:scale(model(torch.randn(4, 3)):sum()):backward()
--- scaler:unscale(opt); local bad = scaler:foundInf(opt)
function GradScaler:foundInf(target)
  local st = self._perOptimizer[target]
  return st ~= nil and st.foundInf
end

--- scaler:state(): a plain table (scale, growthFactor, backoffFactor, growthInterval,
--- growthTracker) to save with a checkpoint; empty when disabled, like PyTorch.
--- Example: local p = os.tmpname(); torch.save(p, torch.cuda.GradScaler({initScale = 1024}):state()); os.remove(p)
function GradScaler:state()
  if not self.enabled then return {} end
  return { scale = self.scaleValue, growthFactor = self.growthFactor, backoffFactor = self.backoffFactor,
           growthInterval = self.growthInterval, growthTracker = self.growthTracker }
end

--- scaler:loadState(state): restores what state() returned.
--- Example: local state = torch.cuda.GradScaler({initScale = 1024}):state()
--- local scaler = torch.cuda.GradScaler(); scaler:loadState(state)  -- scale 1024
function GradScaler:loadState(s)
  local op = 'GradScaler.loadState'
  if type(s) ~= 'table' then fail(op, 'expected a table from state(), got %s', type(s)) end
  if not self.enabled then return end
  if next(s) == nil then fail(op, 'the state is empty (it was saved from a disabled scaler)') end
  local o = { initScale = s.scale, growthFactor = s.growthFactor, backoffFactor = s.backoffFactor,
              growthInterval = s.growthInterval }
  check_options(op, o)
  if type(s.growthTracker) ~= 'number' or s.growthTracker < 0 then
    fail(op, 'growthTracker must be a number >= 0, got %s', tostring(s.growthTracker))
  end
  self.scaleValue, self.growthFactor, self.backoffFactor = s.scale, s.growthFactor, s.backoffFactor
  self.growthInterval, self.growthTracker = s.growthInterval, s.growthTracker
end

torch.cuda = torch.cuda or {}
torch.cuda.GradScaler = new
return GradScaler
