-- nn.DistributedDataParallel(model [, {bucketMB=25}]): data-parallel training over the ranks of
-- torch.distributed: rank 0's parameters are broadcast at construction, and gradients are
-- averaged across ranks in buckets started during backward (Note [DDP gradient buckets]).
local DDP, parent = torch.class('nn.DistributedDataParallel', 'nn.Container')

-- Note [DDP gradient buckets]:
--  * Parameters are grouped, in reverse order (backward meets the last layers first) and by
--    dtype, into buckets of about bucketMB megabytes. Each bucket owns one flat buffer.
--  * A parameter's gradient is final ("ready") right after its module's accGradParameters (Torch7
--    modules, under model:backward and loss:backward alike: both call it), after the Torch7
--    backward of a module differentiated by autograd, or, under loss:backward, when the hook of
--    its tensor sees the incoming gradient g (its final value is then .grad + g, since the engine
--    adds g after the hook; the hook hands it zeros to add instead). The ready value is copied into the bucket, and a bucket whose
--    parameters are all ready starts an async all-reduce (sum) while backward goes on.
--  * When the last parameter is ready, the buckets are waited for, divided by the world size and
--    copied back into the gradients: so the averaged gradients are in place when backward
--    returns, before any optimizer step. Parameters that get no gradient in an iteration leave it
--    open: ddp:backward closes it itself; after loss:backward call ddp:syncGradients().
--  * A parameter made ready twice in one iteration (shared by several modules) makes the
--    iteration re-reduce every bucket from the final gradients, synchronously, at its end.
-- The buckets are copies, so gradients may be separate tensors or views of getParameters()'s
-- flat tensor alike.
--
-- Note [DDP buffers]: as PyTorch's DistributedDataParallel, the module's buffers (namedBuffers:
-- batch-norm running statistics) are broadcast from rank 0 with the parameters at construction,
-- and again before every forward unless {broadcastBuffers = false}: every rank then runs with
-- rank 0's running statistics, and a model saved on any rank is the same. (They used to be left
-- alone, so plain batch norms drifted apart on each rank's own batches.)
--
-- Note [DDP noSync]: ddp:noSync(fn, ...) runs fn (forwards and backwards) without averaging the
-- gradients, PyTorch's no_sync() context: they accumulate locally, and the first backward after
-- it averages the sum (averaging is linear, so this equals averaging every step).

local dist = torch.distributed
local watched = setmetatable({}, { __mode = 'k' })  -- module -> its DDP (weak keys)
local originals = {}                                -- wrapper -> the method it wraps

-- Wraps a class's method once so that instances watched by a DDP report after it runs.
local function patch(class, name)
  local current = class[name]
  if originals[current] and rawget(class, name) == current then return end
  local orig = originals[current] or current
  local wrapper = function(self, ...)
    local r = orig(self, ...)
    local ddp = watched[self]
    if ddp then ddp:_moduleReady(self) end
    return r
  end
  originals[wrapper] = orig
  class[name] = wrapper
end

-- Note [DDP shared gradients]: modules that share a gradient (Torch7's clone('weight', 'bias',
-- 'gradWeight', 'gradBias'), or the same tensors assigned to two modules) have one slot, keyed by
-- the gradient's memory, that is ready once every owner's accGradParameters has run: with a slot
-- per module, the first owner to finish (a ConcatTable's first branch) sent its partial sum and
-- its view was averaged and written back last, over the complete one. Parameters that need no
-- gradient (modules frozen with requiresGrad(false) when the DDP was made: Torch7's backward skips
-- their accGradParameters) get no slot, as in PyTorch.
local function memory_key(t)
  local ok, st = pcall(t.storage, t)
  local base = ok and st and torch.pointer(st) or torch.pointer(t)
  return string.format('%s:%d:%d', tostring(base), t:storageOffset(), t:nElement())
end

local function defines_backward(m) return m.updateGradInput ~= nn.Module.updateGradInput end

--- nn.DistributedDataParallel(model [, {bucketMB=25, broadcastBuffers=true}]): wraps model for
--- data-parallel training (torch.distributed.init must have run); forward/backward/parameters go
--- to model. broadcastBuffers: rank 0's buffers are copied to every rank before each forward.
function DDP:__init(model, opts)
  parent.__init(self)
  if type(model) ~= 'table' or not model.forward then
    error('[nn.DistributedDataParallel] expected a module, got ' .. torch.type(model), torch._lib.user_level())
  end
  if not dist.isInitialized() then
    error("[nn.DistributedDataParallel] torch.distributed is not initialized (call torch.distributed.init{backend='mpi'} "
          .. "or {backend='nccl'} first)", torch._lib.user_level())
  end
  opts = opts or {}
  self.modules[1] = model
  self.module = model
  self.bucketBytes = math.floor((opts.bucketMB or 25) * 1024 * 1024)
  self.broadcastBuffers = opts.broadcastBuffers ~= false
  self:_broadcastParameters()
  self:_broadcastBuffers()
  self:_buildBuckets()
end

--- ddp:_broadcastParameters(): copies rank 0's parameters into every rank's (all async, then waited).
function DDP:_broadcastParameters()
  local params = self.module:parameters() or {}
  local works = {}
  for i, p in ipairs(params) do
    local c = p:isContiguous() and p or p:contiguous()
    works[i] = { dist.broadcastAsync(c, 0), p, c }
  end
  for _, w in ipairs(works) do
    w[1]:wait()
    if w[3] ~= w[2] then w[2]:copy(w[3]) end
  end
end

-- Rank 0's buffers into every rank's (Note [DDP buffers]), in one broadcast per tensor type (a
-- ResNet's hundred batch norms would otherwise cost two hundred small broadcasts per forward).
function DDP:_broadcastBuffers()
  local groups, types = {}, {}
  for _, b in self.module:namedBuffers() do
    if torch.isTensor(b) and b:nElement() > 0 then
      local key = b:type()
      if not groups[key] then groups[key], types[#types + 1] = {}, key end
      local list = groups[key]
      list[#list + 1] = b
    end
  end
  local works = {}
  for i, key in ipairs(types) do
    local flat = {}
    for k, b in ipairs(groups[key]) do flat[k] = b:contiguous():view(-1) end
    local buf = torch.cat(flat)
    works[i] = { dist.broadcastAsync(buf, 0), groups[key], buf }
  end
  for _, w in ipairs(works) do
    w[1]:wait()
    local offset = 0
    for _, b in ipairs(w[2]) do
      local n = b:nElement()
      b:copy(w[3]:narrow(1, offset + 1, n):viewAs(b))
      offset = offset + n
    end
  end
end

function DDP:_buildBuckets()
  self._slots, self._buckets = {}, {}
  local slot_of = {}
  local leaves = {}
  for _, m in ipairs(self.module:listModules()) do
    local ps = not m.modules and m:parameters()
    if ps and #ps > 0 then leaves[#leaves + 1] = m end
  end
  self._leaves = leaves
  -- Slots in the order the leaves' parameters come, then bucketed from the end. One slot per
  -- gradient (Note [DDP shared gradients]); frozen parameters get none.
  self._module_slots = {}
  for _, m in ipairs(leaves) do
    local ps, gs = m:parameters()
    local mine = self._module_slots[m] or {}
    self._module_slots[m] = mine
    for i, p in ipairs(m._frozen and {} or ps) do
      local key = memory_key(gs and gs[i] or p)
      local s = slot_of[key]
      if not s then
        s = { param = p, module = m, index = i, numel = p:nElement(), owners = 0, reports = 0 }
        slot_of[key] = s
        self._slots[#self._slots + 1] = s
      end
      s.owners = s.owners + 1
      mine[#mine + 1] = s
    end
  end
  local open = {}  -- dtype -> bucket being filled
  for k = #self._slots, 1, -1 do
    local s = self._slots[k]
    local dtype = s.param:type()
    local b = open[dtype]
    if not b then
      b = { slots = {}, numel = 0, type = dtype }
      open[dtype] = b
      self._buckets[#self._buckets + 1] = b
    end
    s.bucket, s.offset = b, b.numel
    b.slots[#b.slots + 1] = s
    b.numel = b.numel + s.numel
    if b.numel * s.param:elementSize() >= self.bucketBytes then open[dtype] = nil end
  end
  -- param.new: a bucket of CUDA parameters lives on the current device, the NCCL communicator's.
  for _, b in ipairs(self._buckets) do b.buffer = b.slots[1].param.new(b.numel):zero() end
  for _, m in ipairs(leaves) do
    watched[m] = self
    local class = getmetatable(m)
    if defines_backward(m) then
      patch(class, 'accGradParameters')
    else
      patch(class, 'backward')
      for _, s in ipairs(self._module_slots[m]) do
        local slot = s
        if not s.hook and s.param:needsGrad() then
          s.hook = s.param:registerHook(function(g) return self:_hookReady(slot, g) end)
        end
      end
    end
  end
  self:_resetIteration()
end

function DDP:_resetIteration()
  self._ready, self._launched, self._redo = 0, 0, false
  for _, s in ipairs(self._slots) do s.ready, s.reports = false, 0 end
  for _, b in ipairs(self._buckets) do b.ready, b.work = 0, nil end
end

local function grad_of(s)
  local _, grads = s.module:parameters()
  return grads and grads[s.index] or s.param.grad
end

local function view(s) return s.bucket.buffer:narrow(1, s.offset + 1, s.numel) end

function DDP:_slotReady(s)
  if s.ready then self._redo = true return end
  s.ready = true
  self._ready = self._ready + 1
  local b = s.bucket
  b.ready = b.ready + 1
  if b.ready == #b.slots and not self._redo then
    if self._ready == #self._slots then
      -- The last bucket has no backward left to overlap with and is waited for at once: the
      -- synchronous call takes MPI's blocking fast path (Note [Blocking fast path]).
      dist.allReduce(b.buffer)
    else
      b.work = dist.allReduceAsync(b.buffer)
    end
    self._launched = self._launched + 1
  end
  if self._ready == #self._slots then self:_finish() else dist.progress() end
end

-- A gradient shared by several modules is final once each of them has reported (Note [DDP
-- shared gradients]); a report beyond that (a module used twice) re-reduces the iteration.
function DDP:_moduleReady(m)
  if self._noSync then return end
  for _, s in ipairs(self._module_slots[m] or {}) do
    s.reports = s.reports + 1
    if s.reports >= s.owners then
      local g = grad_of(s)
      if g then view(s):copy(g) else view(s):zero() end
      self:_slotReady(s)
    end
  end
end

-- The hook sees g before the engine adds it to .grad. It adds g into .grad itself and hands the
-- engine zeros instead: .grad then holds the final gradient at once (a re-reduction at the end of
-- the iteration reads it from there), and an iteration finishing inside this very hook (the
-- averaged gradient is then written into .grad) is not followed by the engine adding g on top.
-- Without a .grad yet, the engine stores what the hook returns: the average when this hook
-- finished the iteration, g otherwise (averaged into .grad when the iteration ends).
function DDP:_hookReady(s, g)
  if self._noSync then return nil end
  local v, cur = view(s), s.param.grad
  if not cur then
    v:copy(g)
    self:_slotReady(s)
    if not s.ready then return torch.div(v, dist.size()):viewAs(g):typeAs(g) end  -- finished here
    return nil
  end
  cur:add(g)
  v:copy(cur)
  if not s.zeros or not s.zeros:isSameSizeAs(g) or s.zeros:type() ~= g:type() then s.zeros = g.new(g:size()):zero() end
  self:_slotReady(s)
  return s.zeros
end

function DDP:_finish()
  local n = dist.size()
  for _, b in ipairs(self._buckets) do
    if b.work then b.work:wait() end
  end
  if self._redo then  -- Note [DDP gradient buckets]: re-reduce from the final gradients
    for _, s in ipairs(self._slots) do
      local g = grad_of(s)
      if g then view(s):copy(g) end
    end
    for _, b in ipairs(self._buckets) do dist.allReduce(b.buffer) end
  end
  for _, b in ipairs(self._buckets) do
    for _, s in ipairs(b.slots) do
      local g = grad_of(s)
      if g then torch.div(g, view(s):viewAs(g), n) end  -- average and copy back in one pass
    end
  end
  self:_resetIteration()
end

--- ddp:syncGradients(): averages the gradients across ranks now, if a backward left some
--- parameters without a gradient (unused in this iteration); a no-op otherwise.
function DDP:syncGradients()
  if self._ready == 0 or self._noSync then return end
  for _, s in ipairs(self._slots) do
    if not s.ready then
      local g = grad_of(s)
      if g then view(s):copy(g) else view(s):zero() end
      self:_slotReady(s)
      if self._ready == 0 then return end  -- that finished the iteration
    end
  end
end

-- Note [DDP after torch.load and clone]: the modules a DDP watches and its gradient hooks live in
-- this process's tables and tensors, which torch.save, torch.load and clone() do not carry over
-- (saving failed on the hooks' functions; a cloned DDP's gradients were silently left
-- unaveraged). The buckets are not saved and are rebuilt on load and clone, and a forward that
-- finds its modules unwatched (a copy made another way) rebuilds them too. Nothing is exchanged
-- between ranks: a file may be loaded on one rank only.
local TRANSIENT = { _slots = true, _buckets = true, _module_slots = true, _leaves = true }

function DDP:_rebuild()
  for _, s in ipairs(self._slots or {}) do s.hook = nil end  -- handles of the original's tensors
  self._slots, self._buckets, self._module_slots, self._leaves = {}, {}, {}, {}
  self:_buildBuckets()
end

function DDP:_rebindIfCopied()
  local first = self._leaves and self._leaves[1]
  if first ~= nil and watched[first] ~= self then self:_rebuild() end
end

--- ddp:write(file): saves the DDP without its buckets and hooks (Note [DDP after torch.load and clone]).
function DDP:write(file) nn.utils.writeFieldsExcept(self, file, TRANSIENT) end

--- ddp:read(file): loads a saved DDP and rebuilds its buckets and hooks.
function DDP:read(file)
  nn.utils.readFields(self, file, 'nn.DistributedDataParallel')
  self:_rebuild()
end

--- ddp:clone(...): a copy whose gradients are averaged by its own buckets and hooks.
function DDP:clone(...)
  local copy = parent.clone(self, ...)
  copy:_rebuild()
  return copy
end

function DDP:updateOutput(input)
  self:_rebindIfCopied()
  if self._ready > 0 then
    error(string.format('[nn.DistributedDataParallel] the last backward gave gradients to %d of %d parameters, '
      .. 'so they were not averaged across ranks: call ddp:syncGradients() after backward', self._ready, #self._slots), torch._lib.user_level())
  end
  if self.broadcastBuffers then self:_broadcastBuffers() end
  self.output = self.module:forward(input)
  return self.output
end

--- ddp:noSync(fn, ...): runs fn(...) with gradient averaging off and returns its results: the
--- gradients of its backwards accumulate on each rank, and the next backward outside averages
--- them (PyTorch's no_sync(); Note [DDP noSync]).
function DDP:noSync(fn, ...)
  if type(fn) ~= 'function' then
    error('[nn.DistributedDataParallel.noSync] expected a function, got ' .. type(fn), torch._lib.user_level())
  end
  if self._ready > 0 then
    error(string.format('[nn.DistributedDataParallel.noSync] the last backward gave gradients to %d of %d parameters '
      .. 'and left them unaveraged: call ddp:syncGradients() first', self._ready, #self._slots), torch._lib.user_level())
  end
  local was = self._noSync
  self._noSync = true
  local res = { pcall(fn, ...) }
  self._noSync = was
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end

function DDP:updateGradInput(input, gradOutput)
  self.gradInput = self.module:updateGradInput(input, gradOutput)
  return self.gradInput
end

function DDP:accGradParameters(input, gradOutput, scale)
  self.module:accGradParameters(input, gradOutput, scale)
  self:syncGradients()
end

--- ddp:backward(input, gradOutput [, scale]): model:backward, then the gradients are averaged
--- across ranks (overlapped with the backward, waited for before it returns).
function DDP:backward(input, gradOutput, scale)
  self.gradInput = self.module:backward(input, gradOutput, scale)
  self:syncGradients()
  return self.gradInput
end

-- Note [DDP type]: ddp:type() (float(), double(), cuda(), to()) gives the model new parameter
-- tensors; the buckets, the gradient hooks and the slots held the old ones, so under
-- loss:backward an autograd module's gradients never reported again (no hook on the new
-- tensors) and were left unaveraged. The hooks are removed and the buckets rebuilt instead, and
-- the DDP's own tables are out of the conversion's way while it runs.
function DDP:type(name, cache)
  if not name then return parent.type(self) end
  for _, s in ipairs(self._slots or {}) do
    if s.hook then s.hook.remove() s.hook = nil end
  end
  self._slots, self._buckets, self._module_slots, self._leaves = {}, {}, {}, {}
  parent.type(self, name, cache)
  self:_buildBuckets()
  return self
end

function DDP:__tostring__()
  return string.format('nn.DistributedDataParallel(%d ranks, %d buckets) {\n  %s\n}', dist.size(),
                       #self._buckets, tostring(self.module):gsub('\n', '\n  '))
end
