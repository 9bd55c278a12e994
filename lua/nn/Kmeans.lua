-- nn.Kmeans(k, dim[, scale]): online hard k-means (Torch7). weight holds the k centres (k x dim);
-- forward assigns each row of an N x dim input to its nearest centre (output: N centre numbers,
-- loss: the sum of squared distances to them); accGradParameters sets up the update
-- c <- c + scale / n_c * sum_{x in c} (x - c) as a gradient step (gradWeight gets its negation),
-- so updateParameters(1) applies it. There is no input gradient (zeros).
local S = require 'nn.support'

local Kmeans, parent = torch.class('nn.Kmeans', 'nn.Module')

function Kmeans:__init(k, dim, scale)
  parent.__init(self)
  S.argInt('nn.Kmeans', 'k', k, 1)
  S.argInt('nn.Kmeans', 'dim', dim, 1)
  if scale ~= nil then S.argNumber('nn.Kmeans', 'scale', scale) end
  self.k, self.dim, self.scale = k, dim, scale
  self.weight = S.alloc('nn.Kmeans', k, dim)
  self.gradWeight = torch.Tensor(k, dim):zero()
  self.loss = 0  -- within-cluster error of the last forward
  self.clusterSampleCount = torch.Tensor(k):zero()
  self:reset()
end

local function name(self) return string.format('nn.Kmeans(%d, %d)', self.k, self.dim) end

--- km:reset([stdev=1]): centres drawn uniformly from [-stdev, stdev].
function Kmeans:reset(stdev)
  stdev = stdev or 1
  torch.noGrad(function() self.weight:uniform(-stdev, stdev) end)
  nn.utils.linkGradients(self)
  return self
end

local function check(self, input, need)
  if not torch.isTensor(input) or not nn.utils.isFloating(input) or input:dim() ~= 2 or input:size(2) ~= self.dim
      or input:size(1) < (need or 0) then
    S.fail(name(self), 'expected N x %d samples%s, got %s', self.dim,
      need and string.format(' with N >= %d', need) or '', S.describe(input))
  end
  return input:type() == self.weight:type() and input or input:typeAs(self.weight)
end

-- Squared distances of every sample to every centre (N x k).
local function sqdist(x, c)
  local N, K, D = x:size(1), c:size(1), x:size(2)
  local d = torch.csub(x:contiguous():view(N, 1, D):expand(N, K, D), c:view(1, K, D):expand(N, K, D))
  return d:cmul(d):sum(3):view(N, K)
end

--- km:initRandom(input): centres copied from k samples drawn at random (with replacement, Torch7).
function Kmeans:initRandom(input)
  local x = check(self, input, self.k)
  local idx = torch.LongTensor(self.k):random(1, x:size(1))
  torch.noGrad(function() self.weight:copy(x:index(1, nn.utils.longBuffer(nil, x):resize(self.k):copy(idx))) end)
  return self
end

--- km:initKmeansPlus(input[, p=0.95]): k-means++-style seeding (Torch7): the first centre is a random
--- sample; each next one is drawn among the ceil((1 - p) N) samples farthest from the centres so far.
function Kmeans:initKmeansPlus(input, p)
  self.p = p or self.p or 0.95
  if type(self.p) ~= 'number' or not (self.p >= 0 and self.p <= 1) then
    S.fail(name(self), 'p must be in [0, 1], got %s', tostring(self.p))
  end
  local x = check(self, input, 1)
  local N = x:size(1)
  local pcount = math.max(1, math.ceil((1 - self.p) * N))
  torch.noGrad(function()
    self.weight[1]:copy(x[torch.random(N)])
    local dist = x.new(N):fill(math.huge)
    for c = 2, self.k do
      dist = torch.cmin(dist, sqdist(x, self.weight:narrow(1, c - 1, 1)):view(N))
      local _, order = torch.sort(dist:double(), 1, true)
      self.weight[c]:copy(x[order[torch.random(pcount)]])
    end
  end)
  return self
end
--- km:initKmeansPP(input[, p]): the same as initKmeansPlus.
Kmeans.initKmeansPP = Kmeans.initKmeansPlus

-- The nearest centre of every sample (a LongTensor on the weight's device) and the distances.
local function assign(self, x)
  local d = sqdist(x, self.weight)
  local best, idx = torch.min(d, 2)
  return idx:view(-1), best
end

function Kmeans:updateOutput(input)
  local x = check(self, input)
  local idx, best = assign(self, x)
  self._minIndx = idx
  self.loss = x:size(1) > 0 and best:sum() or 0
  self.output = self.weight.new(idx:nElement()):copy(idx)
  return self.output
end

--- km:updateGradInput(input): zeros (k-means has its own update rule).
function Kmeans:updateGradInput(input, gradOutput)
  check(self, input)
  self.gradInput = input.new(input:size()):zero()
  return self.gradInput
end

--- km:accGradParameters(input, gradOutput[, scale]): gradWeight_c -= scale / n_c sum_{x in c} (x - c),
--- with self.scale (if set) over scale; clusterSampleCount gets the n_c.
function Kmeans:accGradParameters(input, gradOutput, scale)
  scale = self.scale or scale or 1
  if type(scale) ~= 'number' or not (scale > 0) then
    S.fail(name(self), 'scale has to be positive, got %s', S.describe(scale))
  end
  local x = check(self, input)
  torch.noGrad(function()
    local idx = assign(self, x)
    local ones = self.weight.new(x:size(1)):fill(1)
    self.clusterSampleCount = self.clusterSampleCount:typeAs(self.weight):zero():indexAdd(1, idx, ones)
    local g = torch.csub(x, self.weight:index(1, idx)):mul(-scale)
    local sum = self.weight.new(self.k, self.dim):zero():indexAdd(1, idx, g)
    local n = self.clusterSampleCount:clone():add(1e-7):view(self.k, 1)
    self.gradWeight:add(sum:cdiv(n:expandAs(sum)))
  end)
end

--- km:accUpdateGradParameters(input, gradOutput, lr): the centres move by -lr times the update of
--- accGradParameters (Module's version passed -lr as the scale, which k-means refuses).
function Kmeans:accUpdateGradParameters(input, gradOutput, lr)
  local gw = self.gradWeight
  self.gradWeight = self.weight.new(self.weight:size()):zero()
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, 1)
  local step = self.gradWeight
  self.gradWeight = gw
  if not ok then error(err, 0) end
  torch.noGrad(function() self.weight:add(-lr, step) end)
end

function Kmeans:clearState()
  self._minIndx = nil
  return parent.clearState(self)
end

return Kmeans
