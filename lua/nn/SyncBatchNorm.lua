-- nn.SyncBatchNorm(numFeatures [, eps = 1e-5, momentum = 0.1, affine = true, trackRunningStats =
-- true, processGroup]): PyTorch's SyncBatchNorm, a batch norm of N x C x * inputs over N and every
-- trailing dim (weight 1, bias 0, state dict as PyTorch's: weight, bias, running_mean,
-- running_var), and nn.SyncBatchNorm.convertSyncBatchnorm(module).
--
-- Note [SyncBatchNorm statistics]: in training mode each rank's per-channel count, mean and sum of
-- squared deviations are all-gathered across the torch.distributed job when one is initialized
-- with more than one process and combined (Note [SyncBatchNorm variance]), so every rank
-- normalizes with the statistics of the global batch, and the backward all-reduces the two
-- per-channel sums its input gradient needs (PyTorch's SyncBatchNorm). The weight and bias
-- gradients stay local, as PyTorch's: nn.DistributedDataParallel averages them with the other
-- gradients (the running statistics agree anyway, because every rank updates them from the same
-- global statistics; the DDP also broadcasts rank 0's, Note [DDP buffers]). In a single process
-- (no job, or a job of one) the same code runs without the reductions and equals nn.BatchNorm*d.
-- Only the whole job is supported as the group (processGroup must be nil). Torch7-style
-- forward/backward are its own (a coarse autograd node, Note [Modules and autograd]), written with
-- torch ops so they run on any device.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.BatchNormalization'
local SBN, parent = torch.class('nn.SyncBatchNorm', 'nn.BatchNormalization')
local NAME = 'nn.SyncBatchNorm'

function SBN:__init(...)
  local o = P.parse(NAME, { 'numFeatures', 'eps', 'momentum', 'affine', 'trackRunningStats', 'processGroup' }, ...)
  P.unsupported(NAME, 'trackRunningStats', o.trackRunningStats, true)
  if o.processGroup ~= nil then lib.fail(NAME, 'processGroup is not supported: the statistics are reduced over the whole job') end
  parent.__init(self, P.int(NAME, 'numFeatures', o.numFeatures), P.number(NAME, 'eps', o.eps, 1e-5),
    P.number(NAME, 'momentum', o.momentum, 0.1), P.bool(NAME, 'affine', o.affine, true))
end

--- m:reset(): weight 1, bias 0 and fresh running statistics (PyTorch's reset_parameters).
--- Example: nn.SyncBatchNorm(3):reset()
function SBN:reset()
  parent.reset(self)
  if self.weight then self.weight:fill(1) end
  return self
end

local function distributed()
  local dist = torch.distributed
  return dist and dist.isInitialized() and dist.size() > 1 and dist or nil
end

-- The input as N x C x L (L = 1 for N x C), checked.
function SBN:_flat(input, what)
  local c = self.running_mean:nElement()
  if not torch.isTensor(input) or input:dim() < 2 or input:size(2) ~= c then
    lib.fail(tostring(self), 'expected %s of size N x %d x ..., got %s', what or 'an input', c, nn.utils.describe(input))
  end
  nn.utils.checkFloatInput(self, input)
  -- L spelled out rather than -1: a rank whose share of the batch is empty (N = 0) still joins
  -- the reductions with zero sums and count, as PyTorch's SyncBatchNorm does.
  local L = 1
  for d = 3, input:dim() do L = L * input:size(d) end
  return input:reshape(input:size(1), c, L)
end

-- Sums over N and L of an N x C x L tensor (a C vector).
local function channel_sum(t) return t:sum(3):sum(1):view(-1) end
local function bcast(v, like) return v:view(1, -1, 1):expandAs(like) end

-- Note [SyncBatchNorm variance]: each rank takes its own mean and sum of squared deviations
-- from it (two passes), and the ranks' (count, mean, M2) are all-gathered and combined (Chan et
-- al.'s parallel variance), as PyTorch's batch_norm_gather_stats_with_counts. Reducing sums of x
-- and x^2 instead cancelled catastrophically when the mean is large against the spread: float32
-- inputs 1000 + 0.01 * randn were normalized with a variance off by orders of magnitude. f16 and
-- bf16 inputs are reduced in f32 (their x^2 and counts overflowed or rounded).
-- Returns the per-channel mean and biased variance of the global batch, and its size.
function SBN:_statistics(x)
  if x.p.dtype == lib.dtype.f16 or x.p.dtype == lib.dtype.bf16 then x = x:float() end
  local c = self.running_mean:nElement()
  local count = x:size(1) * x:size(3)
  local lmean = channel_sum(x):div(math.max(count, 1))  -- an empty share has mean 0, weight 0
  local centered = x - bcast(lmean, x)
  local stats = torch.cat({ lmean, channel_sum(torch.cmul(centered, centered)), x.new(1):fill(count) })
  local dist = distributed()
  local all = dist and dist.allGather(stats) or stats:view(1, -1)  -- ranks x (2C + 1)
  local counts = all:select(2, 2 * c + 1)
  local total = 0
  for r = 1, all:size(1) do total = total + counts[r] end
  if total <= 1 then lib.fail(tostring(self), 'expected more than 1 value per channel when training, got %d', total) end
  local w = counts:view(-1, 1):expandAs(all:narrow(2, 1, c))
  local means = all:narrow(2, 1, c)
  local mean = torch.cmul(means, w):sum(1):view(-1):div(total)
  local dev = means - mean:view(1, -1):expandAs(means)
  local m2 = all:narrow(2, c + 1, c):sum(1):view(-1) + torch.cmul(torch.cmul(dev, dev), w):sum(1):view(-1)
  return mean, m2:div(total), total
end

function SBN:updateOutput(input)
  local x = self:_flat(input)
  local mean, invstd
  if self.train then
    local total, var
    mean, var, total = self:_statistics(x)
    self.running_mean:mul(1 - self.momentum):add(self.momentum, mean:typeAs(self.running_mean))
    self.running_var:mul(1 - self.momentum):add(self.momentum * total / (total - 1), var:typeAs(self.running_var))
    mean, invstd = mean:typeAs(x), torch.rsqrt(var + self.eps):typeAs(x)
    self._total = total
  else
    mean = self.running_mean:typeAs(x)
    invstd = torch.rsqrt(self.running_var:typeAs(x) + self.eps)
  end
  self.save_mean, self.save_std = mean, invstd
  self._xhat = torch.cmul(x - bcast(mean, x), bcast(invstd, x))
  local y = self._xhat
  if self.weight then y = torch.add(torch.cmul(y, bcast(self.weight, x)), bcast(self.bias, x)) end
  self.output = y:viewAs(input)
  return self.output
end

function SBN:updateGradInput(input, gradOutput)
  local x = self:_flat(input)
  local g = self:_flat(gradOutput, 'gradOutput')
  if not self._xhat or not self._xhat:isSameSizeAs(x) then lib.fail(tostring(self), 'backward needs a forward of this input first') end
  local scale = self.save_std
  if self.weight then scale = torch.cmul(scale, self.weight) end
  local gi
  if self.train then
    local c = self.running_mean:nElement()
    local sums = torch.cat({ channel_sum(g), channel_sum(torch.cmul(g, self._xhat)) })
    local dist = distributed()
    if dist then dist.allReduce(sums) end
    local m1 = sums:narrow(1, 1, c) / self._total
    local m2 = sums:narrow(1, c + 1, c) / self._total
    gi = torch.cmul(g - bcast(m1, g) - torch.cmul(self._xhat, bcast(m2, g)), bcast(scale, g))
  else
    gi = torch.cmul(g, bcast(scale, g))
  end
  self.gradInput = gi:viewAs(input)
  return self.gradInput
end

-- The weight and bias gradients from the local batch (Note [SyncBatchNorm statistics]).
function SBN:accGradParameters(input, gradOutput, scale)
  if not self.weight then return end
  local g = self:_flat(gradOutput, 'gradOutput')
  scale = scale or 1
  self.gradWeight:add(scale, channel_sum(torch.cmul(g, self._xhat)):typeAs(self.gradWeight))
  self.gradBias:add(scale, channel_sum(g):typeAs(self.gradBias))
end

function SBN:clearState()
  self._xhat = nil
  return parent.clearState(self)
end

function SBN:__tostring__()
  return string.format('nn.SyncBatchNorm(%d, eps=%g, momentum=%g%s)', self.running_mean:nElement(), self.eps,
    self.momentum, self.affine and '' or ', affine=false')
end

local function is_bn(m)
  return torch.isTypeOf(m, 'nn.BatchNormalization') and not torch.isTypeOf(m, 'nn.SyncBatchNorm')
end

local function convert(m)
  if is_bn(m) then
    local s = nn.SyncBatchNorm(m.running_mean:nElement(), { eps = m.eps, momentum = m.momentum, affine = m.weight ~= nil })
    s:type(m.running_mean:type())
    torch.noGrad(function()
      if m.weight then s.weight:copy(m.weight) s.bias:copy(m.bias) end
      s.running_mean:copy(m.running_mean)
      s.running_var:copy(m.running_var)
    end)
    if m._frozen then s:requiresGrad(false) end
    if not m.train then s:evaluate() end
    nn.utils.linkGradients(s)
    return s
  end
  if type(m.modules) == 'table' then
    for i, c in ipairs(m.modules) do m.modules[i] = convert(c) end
  end
  for _, field in pairs(m._stateChildren or {}) do
    if torch.isTypeOf(m[field], 'nn.Module') then m[field] = convert(m[field]) end
  end
  local F = require 'nn.field_children'
  for _, e in ipairs(F.fields(m)) do
    local name, child = e[1], e[2]
    local new = convert(child)
    if new ~= child then
      if m._listChildren and tonumber(name) then m[tonumber(name) + 1] = new else m[name] = new end
    end
  end
  return m
end

--- nn.SyncBatchNorm.convertSyncBatchnorm(module): module with every batch norm inside it (the
--- nn.BatchNormalization family: BatchNorm1d/2d/3d, Spatial/VolumetricBatchNormalization) replaced by
--- an nn.SyncBatchNorm holding its parameters, running statistics, eps, momentum and mode; returns
--- the new module when module itself is a batch norm (PyTorch's convert_sync_batchnorm).
--- Example: local m = nn.SyncBatchNorm.convertSyncBatchnorm(nn.Sequential():add(nn.BatchNorm2d(3))) print(m)
function SBN.convertSyncBatchnorm(module)
  if not torch.isTypeOf(module, 'nn.Module') then
    lib.fail('nn.SyncBatchNorm.convertSyncBatchnorm', 'expected an nn.Module, got %s', nn.utils.describe(module))
  end
  return convert(module)
end

return SBN
