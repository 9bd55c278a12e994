-- nn.Trainer's state: snapshots of a model's tensors (EarlyStopping's restoreBest) and checkpoints
-- of a whole run (stateDict/loadStateDict, save/resume): the model, the optimizer, the schedule,
-- the epoch and step counters, the history and the random generators. Part of nn.Trainer
-- (nn/Trainer.lua requires it after defining the class).
local Trainer = nn.Trainer
local fail = Trainer._fail

-- ---- model snapshots (EarlyStopping's restoreBest) -----------------------------------------

-- The tensors that make a module's state: parameters and buffers (running statistics...), not
-- outputs, gradients or private fields, as {module position, field, tensor} in a fixed order.
local function state_tensors(model)
  local list = {}
  local modules = type(model.listModules) == 'function' and model:listModules() or { model }
  for i, m in ipairs(modules) do
    local keys = {}
    for k, v in pairs(m) do
      if type(k) == 'string' and torch.isTensor(v) and not k:match('^_') and not k:match('^grad')
          and k ~= 'output' and k ~= 'gradInput' then
        keys[#keys + 1] = k
      end
    end
    table.sort(keys)
    for _, k in ipairs(keys) do list[#list + 1] = { i, k, m[k] } end
  end
  return list
end

--- nn.Trainer.stateSnapshot(model): copies of the model's state tensors.
--- Example: local m = nn.Linear(2, 2); local s = nn.Trainer.stateSnapshot(m); m.weight:zero(); nn.Trainer.stateRestore(m, s)
function Trainer.stateSnapshot(model)
  local out = {}
  for i, e in ipairs(state_tensors(model)) do out[i] = { e[1], e[2], e[3]:clone() } end
  return out
end

-- Note [Snapshots of scratch tensors]: the heuristic above also takes a module's scratch
-- tensors (Dropout's noise, a pooling's indices), whose size follows the last batch: a predict
-- in a callback or a stop after a shorter batch made the restore fail ('cannot copy a tensor
-- of size 2 into one of size 4'). Entries are matched by module position and field, a scratch
-- tensor whose size changed is resized first, and a tensor created after the snapshot is left
-- alone.
--- nn.Trainer.stateRestore(model, snapshot): copies a snapshot back into the model.
--- Example: local m = nn.Linear(2, 2); local s = nn.Trainer.stateSnapshot(m); m.weight:zero(); nn.Trainer.stateRestore(m, s)
function Trainer.stateRestore(model, snap)
  local now = {}
  for _, e in ipairs(state_tensors(model)) do now[e[1] .. ':' .. e[2]] = e[3] end
  for _, e in ipairs(snap) do
    local t = now[e[1] .. ':' .. e[2]]
    if not t then fail('the model changed since the snapshot (module %d has no tensor %s)', e[1], e[2]) end
    if not t:isSameSizeAs(e[3]) then t:resize(e[3]:size()) end
    t:copy(e[3])
  end
end

-- ---- checkpoints of a run ---------------------------------------------------------------------------

-- Note [What a trainer state holds]: trainer:stateDict() is a plain table that torch.save writes:
-- the model's stateDict (parameters and buffers, cloned), the optimizer's state (an optim object's
-- stateDict(); Torch7's functional form: its config and state tables, and the optim function's
-- name; another optimizer table: its numbers, strings and booleans, such as the learningRate a
-- nn.LearningRateScheduler sets), the schedule's stateDict(), the epochs done, the optimizer steps
-- taken (globalStep), the history, the CPU generator's state (and the CUDA one of the model's
-- device), and the training loader's epoch count. Loaded into fresh objects built as the first
-- ones were, the next fit goes on exactly as the first run would have: same shuffles (an unseeded
-- loader draws each epoch's seed from the restored generator; a seeded one from its restored epoch
-- count), same dropout masks, same updates, value for value. Not held: callbacks' own progress
-- (EarlyStopping's patience, a CSVLogger's file), a loader's own torch.Generator, math.random's
-- state, a sampler's setEpoch, and the CUDA generators of other devices (a CUDA state is skipped
-- on a machine without CUDA). A state taken inside an epoch (in onBatchEnd) records the
-- epochs completed before it with the weights of that moment, so the resumed run trains that
-- whole epoch again from those weights; one taken in onEpochEnd (or after fit) resumes exactly.

local FORMAT, VERSION = 'nn.Trainer', 1

-- An inner error's message without its 'file:line: ' prefix, to quote after ours.
local function bare(err) return (tostring(err):gsub('^[^%[]-:%d+: ', '')) end

-- A deep copy of plain data with tensors cloned; functions are left out (torch.save refuses them).
local function copy_data(v, seen)
  if torch.isTensor(v) then return v:clone() end
  if type(v) == 'function' then return nil end
  if type(v) ~= 'table' or torch.typename(v) then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local r = {}
  seen[v] = r
  for k, x in pairs(v) do r[k] = copy_data(x, seen) end
  return r
end

-- The name of a functional optimizer ('optim.sgd'), found in the optim table.
local function method_name(f)
  local names = {}
  for k, v in pairs(rawget(_G, 'optim') or {}) do
    if rawequal(v, f) and type(k) == 'string' then names[#names + 1] = k end
  end
  table.sort(names)
  return names[1] and 'optim.' .. names[1] or 'a function'
end

-- The kind of optimizer a state belongs to: the class name of an object, 'optim.sgd' for Torch7's
-- functional form, 'table' for another table.
local function optimizer_type(opt)
  if type(opt.method) == 'function' then return method_name(opt.method) end
  return torch.typename(opt) or 'table'
end

local function optimizer_state(opt)
  local s = { type = optimizer_type(opt) }
  if type(opt.method) == 'function' then
    s.config = copy_data(opt.config or {})
    if opt.state ~= nil and rawequal(opt.state, opt.config) then s.stateIsConfig = true
    else s.state = copy_data(opt.state or {}) end
  elseif type(opt.stateDict) == 'function' then s.state = opt:stateDict()
  elseif type(opt.state) == 'function' then s.state = opt:state()
  else
    s.fields = {}
    for k, v in pairs(opt) do
      if type(k) == 'string' and (type(v) == 'number' or type(v) == 'string' or type(v) == 'boolean') then s.fields[k] = v end
    end
  end
  return s
end

local function schedule_state(sched)
  if type(sched.stateDict) == 'function' then return sched:stateDict() end
  if type(sched.state) == 'function' then return sched:state() end
  return nil
end

-- The random generators: the CPU one, and the CUDA one of the model's device when it is there.
local function rng_state(model)
  local s = { cpu = torch.getRNGState() }
  local ps = type(model.parameters) == 'function' and model:parameters()
  local p = ps and ps[1]
  if p and p:isCuda() then s.cuda = { device = p:device(), state = torch.cuda.getRNGState(p:device()) } end
  return s
end

--- trainer:stateDict(): the run's state as a plain table for torch.save (Note [What a trainer
--- state holds]): {format, version, epoch, globalStep, model, optimizer, scheduler, history, rng,
--- loaderEpoch}, tensors cloned. trainer:loadStateDict restores it; trainer:save writes it.
--- Example: local m = nn.Linear(2, 1); local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, {lr = 0.1}))
--- local sd = t:stateDict(); t:loadStateDict(sd)
function Trainer:stateDict()
  if type(self.model.stateDict) ~= 'function' then
    fail('stateDict: the model (%s) has no stateDict()', torch.type(self.model))
  end
  local model = {}
  for name, t in pairs(self.model:stateDict()) do model[name] = t:clone() end
  local loader = self.trainLoader
  return {
    format = FORMAT, version = VERSION,
    epoch = self.epochsDone or 0, globalStep = self.globalStep or 0,
    model = model,
    optimizer = self.optimizer and optimizer_state(self.optimizer) or nil,
    scheduler = self.scheduler and { type = torch.typename(self.scheduler) or 'table', state = schedule_state(self.scheduler) } or nil,
    history = copy_data(self.history or {}),
    rng = rng_state(self.model),
    loaderEpoch = type(loader) == 'table' and type(loader.epoch) == 'number' and loader.epoch or nil,
  }
end

-- Refuses what does not fit this trainer before anything is changed.
local function check_state(self, sd)
  if type(sd) ~= 'table' or torch.typename(sd) or sd.format ~= FORMAT then
    fail('loadStateDict: expected the table of trainer:stateDict(), got %s', torch.typename(sd)
      or (type(sd) == 'table' and 'a table without format = ' .. FORMAT) or type(sd))
  end
  if type(sd.version) ~= 'number' or sd.version > VERSION then
    fail('loadStateDict: the state has version %s, this Tocha reads up to %d', tostring(sd.version), VERSION)
  end
  for _, k in ipairs({ 'epoch', 'globalStep' }) do
    local v = sd[k]
    if type(v) ~= 'number' or v < 0 or v ~= math.floor(v) then
      fail('loadStateDict: %s must be an integer >= 0, got %s', k, tostring(v))
    end
  end
  if type(sd.model) ~= 'table' then fail('loadStateDict: the state has no model tensors (got %s)', type(sd.model)) end
  if type(sd.history) ~= 'table' then fail('loadStateDict: the history must be a table, got %s', type(sd.history)) end
  if type(sd.rng) ~= 'table' or torch.typename(sd.rng.cpu) ~= 'torch.ByteTensor' then
    fail('loadStateDict: the state has no CPU generator state (rng.cpu, a torch.ByteTensor), got %s',
         type(sd.rng) == 'table' and torch.type(sd.rng.cpu) or type(sd.rng))
  end
  local opt, so = self.optimizer, sd.optimizer
  if opt and so ~= nil then
    if type(so) ~= 'table' then fail('loadStateDict: the optimizer state must be a table, got %s', type(so)) end
    local mine = optimizer_type(opt)
    if so.type ~= mine then
      fail("loadStateDict: the optimizer state is %s's, this trainer's optimizer is %s", tostring(so.type), mine)
    end
  elseif opt and torch.typename(opt) then
    fail('loadStateDict: the state has no optimizer state for this trainer\'s %s', torch.typename(opt))
  end
  local sched, ss = self.scheduler, sd.scheduler
  if sched and (type(ss) ~= 'table' or ss.type ~= (torch.typename(sched) or 'table')) then
    fail("loadStateDict: the state's schedule is %s, this trainer's is %s",
         type(ss) == 'table' and tostring(ss.type) or 'none', torch.typename(sched) or 'table')
  end
  if ss ~= nil and not sched then
    fail("loadStateDict: the state has a schedule (%s), this trainer has none (give it as the scheduler option)",
         type(ss) == 'table' and tostring(ss.type) or type(ss))
  end
end

-- Puts a saved table's contents into t in place (a schedule holds the config table), keeping t's
-- functions (not saved).
local function refill(t, saved)
  for k, v in pairs(t) do if type(v) ~= 'function' then t[k] = nil end end
  for k, v in pairs(saved) do t[k] = copy_data(v) end
end

local function load_optimizer(self, so)
  local opt = self.optimizer
  if type(opt.method) == 'function' then
    opt.config = opt.config or {}
    refill(opt.config, so.config or {})
    if so.stateIsConfig then opt.state = opt.config
    else
      opt.state = opt.state or {}
      refill(opt.state, so.state or {})
    end
    -- tensors saved on another device or as another type follow the parameters
    local ps = self.model:parameters()
    local p = ps and ps[1]
    for _, t in ipairs({ opt.config, opt.state }) do
      for k, v in pairs(t) do
        if p and torch.isTensor(v) and v:isFloatingPoint() and v:type() ~= p:type() then t[k] = v:typeAs(p) end
      end
    end
  elseif type(opt.loadStateDict) == 'function' then opt:loadStateDict(so.state)
  elseif type(opt.loadState) == 'function' then opt:loadState(so.state)
  else
    for k, v in pairs(so.fields or {}) do opt[k] = v end
  end
end

local function load_rng(rng)
  torch.setRNGState(rng.cpu)
  local c = rng.cuda
  if type(c) == 'table' and torch.cuda.isAvailable() then
    local ok, err = pcall(torch.cuda.setRNGState, c.state, c.device)
    if not ok then fail('loadStateDict: cannot restore the CUDA generator of %s: %s', tostring(c.device), bare(err)) end
  end
end

--- trainer:loadStateDict(sd): restores a trainer:stateDict() into this trainer, whose model,
--- optimizer and schedule are built as those of the saved one were (same shapes, same optimizer
--- and schedule types). The next fit continues from the saved epoch (see fit's initialEpoch).
--- Errors name what does not match: a tensor's size, the optimizer's or schedule's type.
--- Example: local m = nn.Linear(2, 1); local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, {lr = 0.1}))
--- t:loadStateDict(t:stateDict())
function Trainer:loadStateDict(sd)
  check_state(self, sd)
  if type(self.model.loadStateDict) ~= 'function' then
    fail('loadStateDict: the model (%s) has no loadStateDict()', torch.type(self.model))
  end
  local ok, err = pcall(self.model.loadStateDict, self.model, sd.model)
  if not ok then fail('loadStateDict: the model does not match the saved one: %s', bare(err)) end
  if self.optimizer and sd.optimizer ~= nil then
    ok, err = pcall(load_optimizer, self, sd.optimizer)
    if not ok then fail("loadStateDict: the optimizer's state does not fit: %s", bare(err)) end
  end
  if self.scheduler and sd.scheduler.state ~= nil then
    local sched = self.scheduler
    local load = sched.loadStateDict or sched.loadState
    if type(load) ~= 'function' then fail('loadStateDict: the schedule (%s) has no loadStateDict()', torch.type(sched)) end
    ok, err = pcall(load, sched, sd.scheduler.state)
    if not ok then fail("loadStateDict: the schedule's state does not fit: %s", bare(err)) end
  end
  self.epochsDone, self.epoch, self.globalStep = sd.epoch, sd.epoch, sd.globalStep
  self.history = copy_data(sd.history)
  self._resume = { epoch = sd.epoch, loaderEpoch = sd.loaderEpoch }
  load_rng(sd.rng)
  return self
end

--- trainer:save(path): writes trainer:stateDict() to path with torch.save (an atomic write), e.g.
--- from a callback's onEpochEnd; trainer:resume(path) reads it back.
--- Example: local m = nn.Linear(2, 1); local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, {lr = 0.1}))
--- local p = os.tmpname(); t:save(p); t:resume(p); os.remove(p)
function Trainer:save(path)
  if type(path) ~= 'string' then fail('save: expected a file name, got %s', torch.type(path)) end
  torch.save(path, self:stateDict())
  return path
end

--- trainer:resume(path): loads a file written by trainer:save into this trainer (built with a
--- model, optimizer and schedule like the saved run's) and returns it; a following
--- fit(train, {epochs = N}) runs the epochs after the saved one up to N, as PyTorch Lightning's
--- fit(ckpt_path=) does.
--- Example: local m = nn.Linear(2, 1); local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, {lr = 0.1}))
--- local p = os.tmpname(); t:save(p); nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, {lr = 0.1})):resume(p); os.remove(p)
function Trainer:resume(path)
  if type(path) ~= 'string' then fail('resume: expected a file name, got %s', torch.type(path)) end
  local ok, sd = pcall(torch.load, path)
  if not ok then fail('resume: cannot read a trainer state from %s: %s', path, bare(sd)) end
  if type(sd) ~= 'table' or torch.typename(sd) or sd.format ~= FORMAT then
    fail('resume: %s does not hold a trainer state (trainer:save), it holds %s', path,
         torch.typename(sd) or (type(sd) == 'table' and 'a table without format = ' .. FORMAT) or type(sd))
  end
  return self:loadStateDict(sd)
end

return Trainer
