-- Pieces shared by nn.models' families (torchvision's classification zoo): nn.models.Named (a
-- module whose children carry torchvision's attribute names), Conv2dNormActivation, the
-- squeeze-and-excitation block, options parsing and the weight-initialization walk.
--
-- Note [Named children]: torchvision's state-dict keys come from attribute names
-- ('layer1.0.conv1.weight', 'features.denseblock1.denselayer1.norm1.weight'). A Named module holds
-- each child in a field of that name (Note [Submodules in fields], nn/field_children.lua; the
-- classes here live under lua/nn, so they set _fieldChildren) and keeps the order the children run
-- in, which sorted field names would lose (denselayer10 sorts before denselayer2), in _order.
-- The names and shapes are torchvision's, the order of m:namedParameters() is not (fields come
-- by sorted name: 'bn1' before 'conv1'); named:orderedChildren() lists torchvision's order. A
-- state dict is a table by name, so loading does not depend on order.
-- Children are plain Torch7 modules and each runs once per forward; activations that torchvision
-- applies twice through one module (BasicBlock's relu) go through nn.functional in the forward, so
-- no module's output is overwritten inside one graph. The blocks are differentiated by autograd
-- (Note [Modules and autograd]): train with loss:backward() (or torch.autograd.grad); Torch7's
-- model:backward replays the forward (Note [Torch7 calls on autograd modules]), which draws new
-- dropout masks and moves batch-norm statistics a second time.
require 'nn'
-- the namespace first, with rawset: torch.class('nn.models.X') would otherwise run nn's lazy
-- __index (lua/nn/init.lua) while a family file is being required on its own
if rawget(nn, 'models') == nil then rawset(nn, 'models', {}) end
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
local F = nn.functional
local C = {}

local Named, parent = torch.class('nn.models.Named', 'nn.Module')
Named._fieldChildren = true

-- list: {{name, module}, ...} in the order they run.
function Named:__init(list)
  parent.__init(self)
  self._order = {}
  for _, e in ipairs(list or {}) do self:_put(e[1], e[2]) end
end

-- Adds child m under name (run after the others); returns self.
function Named:_put(name, m)
  if type(name) ~= 'string' or name == '' or name:byte(1) == 95 or name:find('.', 1, true) then
    lib.fail(torch.typename(self), 'bad child name %s', tostring(name))
  end
  if self[name] ~= nil then lib.fail(torch.typename(self), 'child name %q hides a field or method', name) end
  self[name] = m
  self._order[#self._order + 1] = name
  return self
end

-- Runs the children from..to (names; default all) in order on x.
function Named:_run(x, from, to)
  local on = from == nil
  for _, name in ipairs(self._order) do
    if name == from then on = true end
    if on then x = self[name]:forward(x) end
    if name == to then break end
  end
  return x
end

function Named:updateOutput(x)
  self.output = self:_run(x)
  return self.output
end

-- The ONNX export of a plain Named: its children in order (Note [ONNX export of custom forwards],
-- lua/torch/onnx_custom.lua). A subclass with its own forward defines onnxExport next to it; one
-- that does not is an error naming it, never a graph that skips what its forward does.
function Named:onnxExport(E, x)
  if self.updateOutput ~= Named.updateOutput then
    E:fail('its forward (updateOutput) is its own and it has no onnxExport method to export it')
  end
  return E:run(x, unpack(self._order))
end

function Named:__tostring__()
  local lines = { torch.typename(self) .. ' {' }
  for _, name in ipairs(self._order) do
    lines[#lines + 1] = '  (' .. name .. '): ' .. tostring(self[name]):gsub('\n', '\n  ')
  end
  return table.concat(lines, '\n') .. '\n}'
end

--- named:orderedChildren(): an iterator over (name, module) in the order they run (torchvision's
--- registration order; m:namedChildren() lists fields by sorted name).
--- Example: for name in nn.models.resnet18():orderedChildren() do print(name) end
function Named:orderedChildren()
  local i = 0
  return function()
    i = i + 1
    local name = self._order[i]
    if name then return name, self[name] end
  end
end

-- ---- options -------------------------------------------------------------------------------

-- C.options(fn, opts, spec): opts (a table or nil) checked against spec {name = default, ...}
-- ('nn.models.resnet18', {numClasses = 10}); unknown keys and non-table opts fail naming fn.
function C.options(fn, opts, spec)
  if opts ~= nil and (type(opts) ~= 'table' or torch.isTensor(opts)) then
    lib.fail(fn, 'expected an options table, got %s', nn.utils.describe(opts))
  end
  local names = {}
  for k in pairs(spec) do names[#names + 1] = k end
  table.sort(names)
  local o = P.parse(fn, names, opts or {})
  for k, v in pairs(spec) do if o[k] == nil then o[k] = v end end
  if o.numClasses ~= nil then o.numClasses = P.int(fn, 'numClasses', o.numClasses) end
  if o.dropout ~= nil then
    o.dropout = P.number(fn, 'dropout', o.dropout)
    if o.dropout < 0 or o.dropout >= 1 then lib.fail(fn, 'dropout must be in [0, 1), got %g', o.dropout) end
  end
  return o
end
C.int, C.bool, C.number = P.int, P.bool, P.number

-- ---- layers --------------------------------------------------------------------------------

-- C.conv(inC, outC, k, {stride, padding, groups, dilation, bias = false}): nn.Conv2d without bias
-- unless asked.
function C.conv(inC, outC, k, o)
  o = o or {}
  return nn.Conv2d(inC, outC, k, { stride = o.stride or 1, padding = o.padding or 0, groups = o.groups or 1,
                                   dilation = o.dilation or 1, bias = o.bias or false })
end

-- C.bn(n[, eps, momentum]): nn.BatchNorm2d.
function C.bn(n, eps, momentum)
  return nn.BatchNorm2d(n, { eps = eps or 1e-5, momentum = momentum or 0.1 })
end

-- C.convNormAct(inC, outC, k, {stride, groups, dilation, act = 'ReLU'|'ReLU6'|'Hardswish'|'SiLU'|false,
-- eps, momentum}): torchvision's Conv2dNormActivation, an nn.Sequential (conv, bn[, act]) with
-- padding (k - 1) / 2 * dilation and no conv bias.
function C.convNormAct(inC, outC, k, o)
  o = o or {}
  local d = o.dilation or 1
  local s = nn.Sequential()
  s:add(C.conv(inC, outC, k, { stride = o.stride, padding = math.floor((k - 1) / 2) * d, groups = o.groups,
                               dilation = d }))
  s:add(C.bn(outC, o.eps, o.momentum))
  local act = o.act == nil and 'ReLU' or o.act
  if act then s:add(nn[act]()) end
  return s
end

-- C.makeDivisible(v, divisor[, minValue]): torchvision's _make_divisible (channels rounded to a
-- multiple of divisor, never below 90% of v).
function C.makeDivisible(v, divisor, minValue)
  minValue = minValue or divisor
  local new = math.max(minValue, math.floor(v + divisor / 2) - math.floor(v + divisor / 2) % divisor)
  if new < 0.9 * v then new = new + divisor end
  return new
end

-- ---- squeeze and excitation ------------------------------------------------------------------

-- torchvision.ops.SqueezeExcitation: avgpool, fc1 (1x1 conv), activation, fc2, scale_activation;
-- the input scaled channel-wise by the result.
local SE = torch.class('nn.models.SqueezeExcitation', 'nn.models.Named')

function SE:__init(inC, squeezeC, act, scaleAct)
  nn.models.Named.__init(self, {
    { 'avgpool', nn.AdaptiveAvgPool2d(1) },
    { 'fc1', nn.Conv2d(inC, squeezeC, 1) },
    { 'fc2', nn.Conv2d(squeezeC, inC, 1) },
    { 'activation', nn[act or 'ReLU']() },
    { 'scale_activation', nn[scaleAct or 'Sigmoid']() },
  })
end

function SE:updateOutput(x)
  local s = F.adaptiveAvgPool2d(x, 1)
  s = self.fc1:forward(s)
  s = self.activation:forward(s)
  s = self.fc2:forward(s)
  s = self.scale_activation:forward(s)
  self.output = torch.cmul(x, s)
  return self.output
end
function SE:onnxExport(E, x)
  local s = E:run(E:globalAvgPool(x), 'fc1', 'activation', 'fc2', 'scale_activation')
  return E:mul(x, s)
end

-- ---- initialization --------------------------------------------------------------------------

-- C.initWeights(model, {conv = fn(m), bn = fn(m), linear = fn(m)}): runs the function for each
-- module of that kind, as torchvision's `for m in self.modules()` loops; no gradient is recorded.
function C.initWeights(model, fns)
  torch.noGrad(function()
    for _, m in model:namedModules() do
      local t = torch.typename(m)
      local fn = (t == 'nn.Conv2d' and fns.conv) or (t == 'nn.BatchNorm2d' and fns.bn) or (t == 'nn.Linear' and fns.linear)
      if fn then fn(m) end
    end
  end)
  return model
end

-- The common choices.
function C.kaimingFanOut(m)
  nn.init.kaimingNormal(m.weight, 0, 'fan_out', 'relu')
  if m.bias then m.bias:zero() end
end
function C.bnOnes(m)
  m.weight:fill(1)
  m.bias:zero()
end

-- C.flatten(x): x as N x (the rest) (torch.flatten(x, 1) in torchvision). The rest is counted,
-- not -1: an empty batch (N = 0) cannot infer it, and torchvision's models take empty batches.
function C.flatten(x)
  local rest = 1
  for d = 2, x:dim() do rest = rest * x:size(d) end
  return x:reshape(x:size(1), rest)
end

return C
