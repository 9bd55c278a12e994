-- nn.init: weight initializations usable on any parameter tensor (each fills it in place and
-- returns it). Fans follow PyTorch: fan_in = size(2) * receptive field, fan_out = size(1) * ...
-- (nn/init_more.lua adds truncNormal, sparse, dirac, eye and the full calculateGain).
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local init = {}
nn.init = init

local function tensor(op, t)
  if not torch.isTensor(t) then lib.fail(op, 'expected a tensor, got %s', describe(t)) end
  return t
end

local function fans(op, t)
  if t:dim() < 2 then lib.fail(op, 'fan in and fan out need a tensor with at least 2 dims, got %dD', t:dim()) end
  local receptive = 1
  for d = 3, t:dim() do receptive = receptive * t:size(d) end
  return t:size(2) * receptive, t:size(1) * receptive
end

-- Note [Init of empty tensors]: as PyTorch's kaiming_* and orthogonal_ ("Initializing zero-element
-- tensors is a no-op"), a tensor without elements is returned as it is: its fans can be 0, which
-- made the bounds infinite (uniform refused them) and orthogonal's column count 0 / 0.
local function empty(t) return t:nElement() == 0 end

-- PyTorch's mode strings, and their camelCase spellings (as 'leakyRelu' for 'leaky_relu').
local modes = { fan_in = 'in', fanIn = 'in', fan_out = 'out', fanOut = 'out' }
local function fan_of(op, t, mode)
  local fi, fo = fans(op, t)
  local m = modes[mode == nil and 'fan_in' or mode]
  if not m then
    lib.fail(op, "mode must be 'fan_in' or 'fan_out' ('fanIn' / 'fanOut'), got %s",
      type(mode) == 'string' and ("'" .. mode .. "'") or describe(mode))
  end
  return m == 'in' and fi or fo
end

local function gain_of(nonlinearity, param)
  if nonlinearity == nil or nonlinearity == 'linear' or nonlinearity == 'sigmoid' then return 1 end
  if nonlinearity == 'tanh' then return 5 / 3 end
  if nonlinearity == 'relu' then return math.sqrt(2) end
  if nonlinearity == 'leaky_relu' or nonlinearity == 'leakyRelu' then
    local a = param or 0.01
    return math.sqrt(2 / (1 + a * a))
  end
  if nonlinearity == 'selu' then return 3 / 4 end
  lib.fail('nn.init.calculateGain', 'unsupported nonlinearity %s', tostring(nonlinearity))
end
init.calculateGain = gain_of  -- replaced by nn/init_more.lua's, which knows every PyTorch name

--- nn.init.uniform(t [, a = 0, b = 1]): fills t from U(a, b) in place and returns it.
--- Example: print(nn.init.uniform(torch.Tensor(3), -1, 1))
function init.uniform(t, a, b) return tensor('nn.init.uniform', t):uniform(a or 0, b or 1) end
--- nn.init.normal(t [, mean = 0, std = 1]): fills t from N(mean, std^2) in place and returns it.
--- Example: print(nn.init.normal(torch.Tensor(3), 0, 0.1))
function init.normal(t, mean, std) return tensor('nn.init.normal', t):normal(mean or 0, std or 1) end
--- nn.init.constant(t, v): fills t with v in place and returns it.
--- Example: print(nn.init.constant(torch.Tensor(3), 0.5))
function init.constant(t, v)
  tensor('nn.init.constant', t)
  if type(v) ~= 'number' then lib.fail('nn.init.constant', 'the value must be a number, got %s', describe(v)) end
  return t:fill(v)
end
--- nn.init.zeros(t): fills t with zeros in place and returns it.
--- Example: print(nn.init.zeros(torch.Tensor(3)))
function init.zeros(t) return tensor('nn.init.zeros', t):zero() end
--- nn.init.ones(t): fills t with ones in place and returns it.
--- Example: print(nn.init.ones(torch.Tensor(3)))
function init.ones(t) return tensor('nn.init.ones', t):fill(1) end

--- nn.init.xavierUniform(t [, gain = 1]) (Glorot): U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)).
--- Example: print(nn.init.xavierUniform(torch.Tensor(3, 4)))
function init.xavierUniform(t, gain)
  local op = 'nn.init.xavierUniform'
  local fi, fo = fans(op, tensor(op, t))
  if empty(t) then return t end
  local a = (gain or 1) * math.sqrt(6 / (fi + fo))
  return t:uniform(-a, a)
end
--- nn.init.xavierNormal(t [, gain = 1]) (Glorot): N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)).
--- Example: print(nn.init.xavierNormal(torch.Tensor(3, 4)))
function init.xavierNormal(t, gain)
  local op = 'nn.init.xavierNormal'
  local fi, fo = fans(op, tensor(op, t))
  if empty(t) then return t end
  return t:normal(0, (gain or 1) * math.sqrt(2 / (fi + fo)))
end
init.glorotUniform, init.glorotNormal = init.xavierUniform, init.xavierNormal

-- Note [Kaiming gains and modes]: the gain is nn.init.calculateGain's, so every nonlinearity PyTorch
-- accepts works ('linear', 'conv2d'... were refused by a smaller table here), and mode is checked:
-- an unknown mode (a misspelt 'fanOut' among them) silently used fan_in; PyTorch raises.
--- nn.init.kaimingUniform(t [, a = 0] [, mode = 'fan_in'] [, nonlinearity = 'leaky_relu']) (He):
--- U(-b, b), b = gain * sqrt(3 / fan), gain = calculateGain(nonlinearity, a), fan by mode ('fan_in'
--- or 'fan_out', also 'fanIn' / 'fanOut').
--- Example: print(nn.init.kaimingUniform(torch.Tensor(3, 4), 0, 'fan_out', 'relu'))
function init.kaimingUniform(t, a, mode, nonlinearity)
  local op = 'nn.init.kaimingUniform'
  local fan = fan_of(op, tensor(op, t), mode)
  local gain = init.calculateGain(nonlinearity or 'leaky_relu', a or 0)
  if empty(t) then return t end
  local bound = gain * math.sqrt(3 / fan)
  return t:uniform(-bound, bound)
end
--- nn.init.kaimingNormal(t [, a = 0] [, mode = 'fan_in'] [, nonlinearity = 'leaky_relu']) (He):
--- N(0, std^2), std = calculateGain(nonlinearity, a) / sqrt(fan).
--- Example: print(nn.init.kaimingNormal(torch.Tensor(3, 4)))
function init.kaimingNormal(t, a, mode, nonlinearity)
  local op = 'nn.init.kaimingNormal'
  local fan = fan_of(op, tensor(op, t), mode)
  local gain = init.calculateGain(nonlinearity or 'leaky_relu', a or 0)
  if empty(t) then return t end
  return t:normal(0, gain / math.sqrt(fan))
end
init.heUniform, init.heNormal = init.kaimingUniform, init.kaimingNormal

--- nn.init.orthogonal(t [, gain = 1]): a (semi-)orthogonal matrix (t viewed as size(1) x the rest)
--- from the QR of a Gaussian one, times gain; t may be non-contiguous.
--- Example: local q = nn.init.orthogonal(torch.Tensor(3, 5)); print(q * q:t())
function init.orthogonal(t, gain)
  local op = 'nn.init.orthogonal'
  tensor(op, t)
  if t:dim() < 2 then lib.fail(op, 'only tensors with 2 or more dims are supported, got %dD', t:dim()) end
  if empty(t) then return t end
  local rows = t:size(1)
  local cols = t:nElement() / rows
  local flat = torch.randn(rows, cols):double()
  local transposed = rows < cols
  if transposed then flat = flat:t():contiguous() end
  local q, r = torch.qr(flat)
  local d = torch.diag(r):sign()
  q:cmul(d:view(1, -1):expandAs(q))
  if transposed then q = q:t() end
  -- q is a fresh tensor: viewed to t's shape, it copies into any layout of t
  torch.noGrad(function() t:copy(q:mul(gain or 1):contiguous():view(t:size())) end)
  return t
end

return init
