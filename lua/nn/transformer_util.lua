-- The machinery nn.TransformerEncoderLayer, nn.TransformerDecoderLayer, nn.TransformerEncoder and
-- nn.TransformerDecoder share (Note [Transformer layers and autograd]): parameters gathered from named children, the
-- forward as recorded ops, and Torch7's backward by recomputing that forward from detached inputs
-- with the dropout masks of the last forward.
--
-- Note [Transformer layers and autograd]: like nn.MultiHeadAttention (Note [Attention and
-- autograd]), a layer's forward is made of recorded ops, so loss:backward() and double backward
-- follow it; updateGradInput replays the last forward (same dropout masks, kept in a table keyed
-- by the dropout site) under autograd and accGradParameters adds the parameter gradients found.
local A = require 'nn.functional_args'
local T = {}

-- x * mask, the mask drawn once per forward and site (drops[key]) and reused when replaying.
function T.dropout(self, x, drops, key)
  if self.dropout == 0 or self.train == false then return x end
  local m = drops[key]
  if not m then
    m = x.new(x:size()):bernoulli(1 - self.dropout):div(1 - self.dropout)
    drops[key] = m
  end
  return torch.cmul(x, m)
end

function T.activation(self, x)
  local a = self.activation
  if a == 'relu' then return torch.relu(x) elseif a == 'gelu' then return torch.gelu(x) end
  return a(x)
end

-- The position-wise feed-forward block: linear2(dropout(act(linear1(x)))).
function T.feedForward(self, x, drops, prefix)
  local h = nn.functional.linear(x, self.linear1.weight, self.linear1.bias)
  h = T.dropout(self, T.activation(self, h), drops, prefix .. 'ff')
  return nn.functional.linear(h, self.linear2.weight, self.linear2.bias)
end

function T.layerNorm(m, x) return torch.layerNorm(x, 1, m.weight, m.bias, m.eps) end

-- The options common to both layer kinds, checked; sets the layer's fields and returns the options.
function T.init(self, name, dModel, nHead, opts, known)
  opts = A.opts(name, opts, known)
  if type(dModel) ~= 'number' or type(nHead) ~= 'number' or dModel < 1 or nHead < 1 or dModel % 1 ~= 0
      or nHead % 1 ~= 0 or dModel % nHead ~= 0 then
    A.fail(name, 'dModel (%s) must be a positive multiple of nHead (%s)', tostring(dModel), tostring(nHead))
  end
  self.dModel, self.nHead = dModel, nHead
  self.dimFeedforward = A.int(name, opts.dimFeedforward, 'dimFeedforward', 2048)
  if self.dimFeedforward < 1 then A.fail(name, 'dimFeedforward must be positive, got %d', self.dimFeedforward) end
  self.dropout = A.number(name, opts.dropout, 'dropout', 0.1)
  if self.dropout < 0 or self.dropout >= 1 then A.fail(name, 'dropout must be in [0, 1), got %g', self.dropout) end
  local act = opts.activation or 'relu'
  if act ~= 'relu' and act ~= 'gelu' and type(act) ~= 'function' then
    A.fail(name, "activation must be 'relu', 'gelu' or a function, got %s", tostring(act))
  end
  self.activation = act
  self.layerNormEps = A.number(name, opts.layerNormEps, 'layerNormEps', 1e-5)
  self.batchFirst = A.bool(name, opts.batchFirst, 'batchFirst', false)
  self.normFirst = A.bool(name, opts.normFirst, 'normFirst', false)
  self.bias = A.bool(name, opts.bias, 'bias', true)
  self.linear1 = nn.Linear(dModel, self.dimFeedforward, self.bias)
  self.linear2 = nn.Linear(self.dimFeedforward, dModel, self.bias)
  self._stateParams = {}
  return opts
end

-- Whether a and b hold the same tensors or equal values (elementwise in tables): the check that
-- a backward replays the forward whose dropout masks it reuses (a copy of the input is fine).
local input_keys = { 1, 2, 'srcMask', 'srcKeyPaddingMask', 'tgtMask', 'memoryMask', 'tgtKeyPaddingMask',
                     'memoryKeyPaddingMask' }
local function same_values(a, b)
  if rawequal(a, b) then return true end
  if torch.isTensor(a) and torch.isTensor(b) then
    return a:isSameSizeAs(b) and a.p.device_type == b.p.device_type and torch.equal(a, b)
  end
  if type(a) ~= 'table' or type(b) ~= 'table' then return false end
  for _, key in ipairs(input_keys) do
    if not same_values(a[key], b[key]) then return false end
  end
  return true
end

local function is_float(t) return torch.isTensor(t) and nn.utils.isFloating(t) end

-- Whether the last forward drew any dropout mask (nn.Transformer keeps one table per half, so
-- next(drops) held even without dropout and refused a backward on another input).
local function has_masks(drops)
  for _, m in pairs(drops) do
    if torch.isTensor(m) or (type(m) == 'table' and has_masks(m)) then return true end
  end
  return false
end

-- Installs forward/updateOutput/updateGradInput/accGradParameters/parameters/training/evaluate/
-- type/clearState on cls. cls._children lists the child fields in parameter order; cls:_parse(input)
-- returns (the float tensors the gradient flows to, the rest of the arguments); cls:_compute(xs,
-- extra, drops) the output.
function T.install(cls, parent)
  function cls:forward(input) return self:updateOutput(input) end

  function cls:parameters()
    local ps, gs = {}, {}
    for _, f in ipairs(self._children) do
      local p, g = self[f]:parameters()
      for k = 1, #(p or {}) do ps[#ps + 1], gs[#gs + 1] = p[k], g[k] end
    end
    return ps, gs
  end

  function cls:updateOutput(input)
    local xs, extra = self:_parse(input)
    local drops = {}
    self.output = self:_compute(xs, extra, drops)
    self._last = { input = input, drops = drops }
    return self.output
  end

  function cls:updateGradInput(input, gradOutput)
    local last = self._last
    if not last then A.fail(tostring(self), 'backward called before forward') end
    if has_masks(last.drops) and not same_values(last.input, input) then
      A.fail(tostring(self), 'backward got another input than the last forward, whose dropout masks it must reuse')
    end
    if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
      A.fail(tostring(self), 'gradOutput must be a tensor of the output size %s, got %s', A.shape(self.output),
        nn.utils.describe(gradOutput))
    end
    local xs, extra = self:_parse(input)
    local proxies, targets = {}, {}
    for i, x in ipairs(xs) do proxies[i] = x:detach():requiresGrad() targets[i] = proxies[i] end
    local params = self:parameters()
    for _, p in ipairs(params) do targets[#targets + 1] = p end
    local grads = torch.enableGrad(function()
      local out = self:_compute(proxies, extra, last.drops)
      return torch.autograd.grad({ out }, targets, { gradOutput }, { allowUnused = true })
    end)
    local gi = {}
    for i, x in ipairs(xs) do gi[i] = grads[i] or x.new(x:size()):zero() end
    self.gradInput = torch.isTensor(input) and gi[1] or gi
    last.gradOutput, last.paramGrads = gradOutput, {}
    for k = 1, #params do last.paramGrads[k] = grads[#xs + k] or false end
    return self.gradInput
  end

  function cls:accGradParameters(input, gradOutput, scale)
    local last = self._last
    if not last or not rawequal(last.gradOutput, gradOutput) then self:updateGradInput(input, gradOutput) end
    local _, gs = self:parameters()
    for k, g in ipairs(self._last.paramGrads) do if g then gs[k]:add(scale or 1, g) end end
  end

  function cls:training()
    parent.training(self)
    for _, f in ipairs(self._children) do self[f]:training() end
  end
  function cls:evaluate()
    parent.evaluate(self)
    for _, f in ipairs(self._children) do self[f]:evaluate() end
  end
  -- Note [Sharing attention weights] (nn/MultiHeadAttention.lua): nn.Module's share does not walk
  -- the children these classes name in _stateChildren, so clone('weight', 'bias') shared nothing.
  function cls:share(other, ...)
    if torch.typename(other) ~= torch.typename(self) then
      A.fail(tostring(self), 'share: expected another %s, got %s', torch.typename(self), nn.utils.describe(other))
    end
    for _, f in ipairs(self._children) do self[f]:share(other[f], ...) end
    nn.utils.linkGradients(self)
    return self
  end
  -- Note [Walking attention children] (nn/MultiHeadAttention.lua): apply, listModules and
  -- findModules reach the children (the layers' attention, linear and norm modules).
  function cls:apply(fn)
    fn(self)
    for _, f in ipairs(self._children) do self[f]:apply(fn) end
  end
  function cls:listModules()
    local list = { self }
    for _, f in ipairs(self._children) do
      for _, c in ipairs(self[f]:listModules()) do list[#list + 1] = c end
    end
    return list
  end
  function cls:findModules(typename, container)
    local nodes, containers = {}, {}
    if torch.typename(self) == typename then nodes[1], containers[1] = self, container end
    for _, f in ipairs(self._children) do
      local n, c = self[f]:findModules(typename, self)
      for i = 1, #n do nodes[#nodes + 1], containers[#containers + 1] = n[i], c[i] end
    end
    return nodes, containers
  end
  function cls:type(name, cache)
    if name then self._last = nil end
    return parent.type(self, name, cache)
  end
  function cls:clearState()
    self._last = nil
    for _, f in ipairs(self._children) do self[f]:clearState() end
    return parent.clearState(self)
  end
  function cls:reset()
    for _, f in ipairs(self._children) do self[f]:reset() end
    return self
  end
end

-- Checks that t is a float tensor of d features (length x batch x d, batch first, or length x d).
function T.check_seq(self, t, what, d)
  if not is_float(t) or (t:dim() ~= 3 and t:dim() ~= 2) or t:size(t:dim()) ~= d then
    A.fail(tostring(self), 'expected %s of size %s x %d (or without the batch dim), got %s', what,
      self.batchFirst and 'batch x length' or 'length x batch', d, nn.utils.describe(t))
  end
  -- the layers call the attention's computation directly, past its own type check
  local w = self.linear1.weight
  if torch.type(t) ~= torch.type(w) then
    A.fail(tostring(self), '%s is a %s but the parameters are %s', what, torch.type(t), torch.type(w))
  end
end

-- The stacks' constructor (nn.TransformerEncoder/Decoder): numLayers independent copies of layer
-- (a layerType), then an optional nn.LayerNormalization; PyTorch's child and state names.
function T.init_stack(self, name, layerType, layer, numLayers, norm)
  -- subclasses count: nn.LayerNorm (PyTorch's name) is an nn.LayerNormalization and was refused
  if not torch.isTypeOf(layer, layerType) then
    A.fail(name, 'expected an %s, got %s', layerType, nn.utils.describe(layer))
  end
  numLayers = A.int(name, numLayers, 'numLayers')
  if numLayers < 1 then A.fail(name, 'numLayers must be positive, got %d', numLayers) end
  if norm ~= nil and not torch.isTypeOf(norm, 'nn.LayerNormalization') then
    A.fail(name, 'norm must be an nn.LayerNormalization (or nn.LayerNorm), got %s', nn.utils.describe(norm))
  end
  -- the stack normalizes over the model dim only (T.layerNorm)
  if norm ~= nil and (#norm.normalizedShape ~= 1 or norm.normalizedShape[1] ~= layer.dModel) then
    A.fail(name, 'norm must normalize the %d model features, got normalizedShape %s', layer.dModel,
      table.concat(norm.normalizedShape:totable(), 'x'))
  end
  self.layers = nn.Container()
  for i = 1, numLayers do self.layers.modules[i] = layer:clone() end
  self.numLayers, self.norm = numLayers, norm
  self.batchFirst, self.dModel = layer.batchFirst, layer.dModel
  self._children = { 'layers' }
  if norm then self._children[2] = 'norm' end
  self._stateParams = {}
  self._stateChildren = { layers = 'layers', norm = norm and 'norm' or nil }
end

-- A stack's description: nn.TransformerEncoder(6 x <layer>, norm).
function T.stack_tostring(self, name)
  return string.format('%s(%d x %s%s)', name, self.numLayers, tostring(self.layers.modules[1]),
    self.norm and ', norm' or '')
end

return T
