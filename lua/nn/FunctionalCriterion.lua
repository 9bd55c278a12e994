-- nn.FunctionalCriterion: the base of criteria computed by an nn.functional loss (HuberCriterion,
-- TripletMarginCriterion, PoissonNLLCriterion, GaussianNLLCriterion, KLDivCriterion). A subclass
-- defines _loss(input, target, reduction) with recorded ops; forward evaluates it without
-- recording (a number, Torch7's API) and updateGradInput differentiates it by autograd from
-- detached copies of the input (a tensor or a table of tensors), so c:backward, loss:backward()
-- through c(input, target) (Note [Losses and autograd]) and double backward of the functional
-- form all agree.
local A = require 'nn.functional_args'
local FC, parent = torch.class('nn.FunctionalCriterion', 'nn.Criterion')

function FC:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = A.bool(torch.typename(self), sizeAverage, 'sizeAverage', true)
end

function FC:_reduction() return self.sizeAverage and 'mean' or 'sum' end

local function number(l) return torch.isTensor(l) and l:item() or l end

function FC:updateOutput(input, target)
  local l = require('nn.functional_pool').call(self, torch.noGrad, self._loss, self, input, target, self:_reduction())
  self.output = number(l)
  return self.output
end

function FC:updateGradInput(input, target)
  local proxies = {}
  local function detach(x)
    if torch.isTensor(x) then
      local d = x:detach():requiresGrad()
      proxies[#proxies + 1] = d
      return d
    end
    local r = {}
    for i, v in ipairs(x) do r[i] = detach(v) end
    return r
  end
  if not torch.isTensor(input) and type(input) ~= 'table' then
    A.fail(tostring(self), 'expected a tensor or a table of tensors, got %s', nn.utils.describe(input))
  end
  local wrapped = detach(input)
  local grads = torch.enableGrad(function()
    local l = self:_loss(wrapped, target, self:_reduction())
    if not torch.isTensor(l) or not l:needsGrad() then return {} end
    return torch.autograd.grad({ l }, proxies, nil, { allowUnused = true })
  end)
  local k = 0
  local function gather(x)
    if torch.isTensor(x) then
      k = k + 1
      return grads[k] or proxies[k].new(proxies[k]:size()):zero()
    end
    local r = {}
    for i, v in ipairs(x) do r[i] = gather(v) end
    return r
  end
  self.gradInput = gather(input)
  return self.gradInput
end

return FC
