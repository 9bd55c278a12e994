-- The class builder behind the PyTorch-named losses (nn/pytorch_names_loss.lua,
-- nn/pytorch_names_loss_more.lua): PyTorch's constructor options and reductions on a Torch7
-- criterion parent, with nn.functional's loss where the parent cannot give PyTorch's value
-- (Note [PyTorch-named losses]).
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'

local M = {}
local REDUCTIONS = { mean = true, sum = true, none = true }
local describe = nn.utils.describe

--- M.reduction(name, o [, extra]): PyTorch's reduction from o.reduction and the legacy
--- sizeAverage/reduce flags (mapped as PyTorch maps them); extra names one more allowed value.
function M.reduction(name, o, extra)
  if o.sizeAverage ~= nil or o.reduce ~= nil then
    P.bool(name, 'sizeAverage', o.sizeAverage)
    P.bool(name, 'reduce', o.reduce)
    if o.reduce == false then return 'none' end
    return o.sizeAverage == false and 'sum' or 'mean'
  end
  local r = o.reduction == nil and 'mean' or o.reduction
  if not REDUCTIONS[r] and r ~= extra then
    lib.fail(name, "reduction must be 'mean', 'sum' or 'none'%s, got %s", extra and (" or '" .. extra .. "'") or '',
      tostring(r))
  end
  return r
end

-- PyTorch's keyword-only options (GaussianNLLLoss(*, full, eps, reduction)): only a trailing table.
local function keyword_only(name, ...)
  local n = select('#', ...)
  for i = 1, n do
    local v = select(i, ...)
    if v ~= nil and (i < n or type(v) ~= 'table' or torch.isTensor(v)) then
      lib.fail(name, 'takes its options as a table only (keyword-only in PyTorch), got %s as argument %d',
        describe(v), i)
    end
  end
end

local function is_pack(v) return type(v) == 'table' and not torch.isTensor(v) end

--- M.define(name, parentName, spec): a loss class. spec.names: PyTorch's argument order;
--- spec.init(self, o, r, parent) builds the parent; spec.functional(self, input, target) -> whether
--- the parent cannot compute this call; spec.f(self, input, target) -> the nn.functional loss with
--- self.reduction. Optional: spec.mean(self, loss, input, target) -> the parent's loss made
--- PyTorch's; spec.prepare(self, input, target) -> the input and target the parent and f see;
--- spec.call(...) -> input, target from PyTorch's call arguments; spec.keywordOnly; spec.extraReduction.
function M.define(name, parent_name, spec)
  local cls, parent = torch.class(name, parent_name)
  cls.__init = function(self, ...)
    if spec.keywordOnly then keyword_only(name, ...) end
    local o = P.parse(name, spec.names, ...)
    local r = M.reduction(name, o, spec.extraReduction)
    spec.init(self, o, r, parent)
    self.reduction = r
  end
  -- the parent's printout under this class's name
  function cls:__tostring__() return (parent.__tostring__(self):gsub('^nn%.[%w_]+', name, 1)) end
  local prepare = spec.prepare or function(_, input, target) return input, target end
  local function use_functional(self, input, target)
    return self.reduction == 'none' or (spec.functional ~= nil and spec.functional(self, input, target))
  end
  function cls:updateOutput(input, target)
    input, target = prepare(self, input, target)
    if not use_functional(self, input, target) then
      local l = parent.updateOutput(self, input, target)
      if spec.mean then
        l = spec.mean(self, l, input, target)
        self.output = l
      end
      return l
    end
    local l = torch.noGrad(function() return spec.f(self, input, target) end)
    if torch.isTensor(l) and self.reduction ~= 'none' then l = l:item() end
    self.output = l
    return l
  end
  function cls:updateGradInput(input, target)
    input, target = prepare(self, input, target)
    if not use_functional(self, input, target) then return parent.updateGradInput(self, input, target) end
    local proxies, wrapped = {}, {}
    local single = torch.isTensor(input)
    if not single and not is_pack(input) then
      lib.fail(name, 'expected a tensor or a table of tensors, got %s', describe(input))
    end
    for i, x in ipairs(single and { input } or input) do
      if not torch.isTensor(x) then lib.fail(name, 'expected input[%d] to be a tensor, got %s', i, describe(x)) end
      wrapped[i] = x:detach():requiresGrad()
      proxies[i] = wrapped[i]
    end
    local g = torch.enableGrad(function()
      local l = spec.f(self, single and wrapped[1] or wrapped, target)
      if not torch.isTensor(l) then return {} end
      if l:nElement() ~= 1 then l = l:sum() end
      return torch.autograd.grad({ l }, proxies, nil, { allowUnused = true })
    end)
    for i, x in ipairs(proxies) do g[i] = g[i] or torch.zeros(x:size()):typeAs(x) end
    self.gradInput = single and g[1] or g
    return self.gradInput
  end
  function cls:loss(input, target)
    input, target = prepare(self, input, target)
    if not use_functional(self, input, target) then
      local l = parent.loss(self, input, target)
      if spec.mean then
        l = spec.mean(self, l, input, target)
        if not torch.isTensor(l) then self.output = l elseif l.p.device_type == 0 then self.output = l:item() end
      end
      return l
    end
    return spec.f(self, input, target)
  end
  if spec.call then
    function cls:__call__(...) return self:loss(spec.call(...)) end
  end
  return cls
end

return M
