-- optim.LBFGS: L-BFGS as an optimizer object: step(closure) runs optim.lbfgs on the parameters
-- seen as one flat vector, so both APIs follow the same trajectory without a line search; with
-- lineSearchFn = 'strong_wolfe' the search is PyTorch's (Note [PyTorch's strong Wolfe search] in
-- optim/lswolfe.lua), and maxEval defaults to PyTorch's floor(maxIter * 5 / 4).
local lib = require 'torch.lib'
local cfg = require 'optim.config'

local LBFGS, Optimizer = torch.class('optim.LBFGS', 'optim.Optimizer')

local kinds = { lr = 'nonneg', maxIter = 'count', maxEval = 'positive', toleranceGrad = 'nonneg',
                toleranceChange = 'nonneg', historySize = 'count', lineSearchFn = 'lineSearchFn' }

--- optim.LBFGS(params, {lr=1, maxIter=20, maxEval=floor(maxIter*5/4), toleranceGrad=1e-5,
--- toleranceChange=1e-9, historySize=100, lineSearchFn=nil|'strong_wolfe'}): L-BFGS with Torch7's
--- optim.lbfgs semantics (toleranceGrad bounds sum |g|, as tolFun does, and toleranceChange sum
--- |d| * t) and torch.optim.LBFGS's strong Wolfe line search. One parameter group;
--- step(closure) needs a closure that zeroes the gradients, recomputes the loss, calls backward
--- and returns the loss; it returns the first loss.
function LBFGS:__init(params, options)
  Optimizer.__init(self, 'LBFGS', params, options, kinds,
                   { lr = 1, maxIter = 20, toleranceGrad = 1e-5, toleranceChange = 1e-9, historySize = 100 })
  if #self.paramGroups ~= 1 then lib.fail(self._name, 'supports one parameter group, got %d', #self.paramGroups) end
  self._lbfgs = {}  -- optim.lbfgs's state table
end

function LBFGS:addParamGroup(group)
  if #self.paramGroups > 0 then lib.fail(self._name, 'supports one parameter group only') end
  Optimizer.addParamGroup(self, group)
end

-- Copies between the parameters (or their gradients) and one flat vector.
local function gather(params, flat, grads)
  local off = 0
  for _, p in ipairs(params) do
    local n = p:nElement()
    local dst = flat:narrow(1, off + 1, n)
    if grads then
      local g = p.grad
      -- a sparse gradient (Note [Sparse embedding gradients]) is made dense, as PyTorch's LBFGS does
      if torch.isSparse(g) then g = g:toDense() end
      if g then dst:copy(g:contiguous():view(-1)) else dst:zero() end
    else
      dst:copy(p:contiguous():view(-1))
    end
    off = off + n
  end
end
local function scatter(params, flat)
  local off = 0
  for _, p in ipairs(params) do
    local n = p:nElement()
    p:copy(flat:narrow(1, off + 1, n):viewAs(p))
    off = off + n
  end
end

--- opt:step(closure): up to maxIter L-BFGS iterations; returns the loss before them.
function LBFGS:step(closure)
  if type(closure) ~= 'function' then
    lib.fail(self._name, 'step needs a closure that re-evaluates the loss (zeroGrad, forward, backward, return loss)')
  end
  local group = self.paramGroups[1]
  self:_checkOptions(group)
  local params = group.params
  local n = 0
  for _, p in ipairs(params) do n = n + p:nElement() end
  if not self._x or self._x:nElement() ~= n then
    self._x = params[1].new(n)
    self._g = params[1].new(n)
  end
  local x, gflat = self._x, self._g
  torch.noGrad(gather, params, x)
  local first_loss
  local function opfunc(xv)
    torch.noGrad(scatter, params, xv)
    local loss = torch.enableGrad(closure)
    if first_loss == nil then first_loss = loss end
    torch.noGrad(gather, params, gflat, true)
    return cfg.number(loss), gflat
  end
  -- PyTorch's max_eval default (optim.lbfgs's maxIter * 1.25 allowed one more evaluation for
  -- maxIter = 5, 6, 7, 9...) and PyTorch's line search (Note [PyTorch's strong Wolfe search])
  local config = { learningRate = group.lr, maxIter = group.maxIter,
                   maxEval = group.maxEval or math.floor(group.maxIter * 5 / 4),
                   tolFun = group.toleranceGrad, tolX = group.toleranceChange, nCorrection = group.historySize,
                   lineSearch = group.lineSearchFn == 'strong_wolfe' and optim._strongWolfe or nil }
  optim.lbfgs(opfunc, x, config, self._lbfgs)
  torch.noGrad(scatter, params, x)
  return first_loss
end

--- opt:state(): a snapshot of the options and of optim.lbfgs's state (history included).
function LBFGS:state()
  local s = Optimizer.state(self)
  s.state = { lbfgs = Optimizer._copyValue(self._lbfgs) }
  return s
end

--- opt:loadState(s): restores a snapshot from state().
function LBFGS:loadState(s)
  self:_loadGroups(s)
  local saved = s.state.lbfgs
  if type(saved) ~= 'table' then lib.fail(self._name, 'loadState: the snapshot has no L-BFGS state') end
  local n = 0
  for _, p in ipairs(self.paramGroups[1].params) do n = n + p:nElement() end
  local function check(v, what)
    if torch.isTensor(v) and v:nElement() ~= n then
      lib.fail(self._name, 'loadState: %s has %d elements, the parameters %d', what, v:nElement(), n)
    end
  end
  for k, v in pairs(saved) do
    check(v, k)
    if type(v) == 'table' then for i, t in ipairs(v) do check(t, k .. '[' .. i .. ']') end end
  end
  self._lbfgs = Optimizer._copyValue(saved)
end
