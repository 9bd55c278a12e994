-- nn.init: weight initializations usable on any parameter tensor (each fills it in place and
-- returns it). Fans follow PyTorch: fan_in = size(2) * receptive field, fan_out = size(1) * ...
local init = {}
nn.init = init

local function fans(t)
  if t:dim() < 2 then error('[nn.init] fan in/out need a tensor with at least 2 dims, got ' .. t:dim(), 0) end
  local receptive = 1
  for d = 3, t:dim() do receptive = receptive * t:size(d) end
  return t:size(2) * receptive, t:size(1) * receptive
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
  error('[nn.init] unknown nonlinearity ' .. tostring(nonlinearity), 0)
end
init.calculateGain = gain_of

--- nn.init.uniform(t[, a = 0, b = 1]), nn.init.normal(t[, mean = 0, std = 1]), nn.init.constant(t, v).
function init.uniform(t, a, b) return t:uniform(a or 0, b or 1) end
function init.normal(t, mean, std) return t:normal(mean or 0, std or 1) end
function init.constant(t, v) return t:fill(v) end
function init.zeros(t) return t:zero() end
function init.ones(t) return t:fill(1) end

--- nn.init.xavierUniform(t[, gain]) / xavierNormal (Glorot): variance 2 / (fan_in + fan_out).
function init.xavierUniform(t, gain)
  local fi, fo = fans(t)
  local a = (gain or 1) * math.sqrt(6 / (fi + fo))
  return t:uniform(-a, a)
end
function init.xavierNormal(t, gain)
  local fi, fo = fans(t)
  return t:normal(0, (gain or 1) * math.sqrt(2 / (fi + fo)))
end
init.glorotUniform, init.glorotNormal = init.xavierUniform, init.xavierNormal

--- nn.init.kaimingUniform(t[, a = 0][, mode = 'fan_in'][, nonlinearity = 'leaky_relu']) / kaimingNormal (He).
function init.kaimingUniform(t, a, mode, nonlinearity)
  local fi, fo = fans(t)
  local fan = mode == 'fan_out' and fo or fi
  local bound = gain_of(nonlinearity or 'leaky_relu', a or 0) * math.sqrt(3 / fan)
  return t:uniform(-bound, bound)
end
function init.kaimingNormal(t, a, mode, nonlinearity)
  local fi, fo = fans(t)
  local fan = mode == 'fan_out' and fo or fi
  return t:normal(0, gain_of(nonlinearity or 'leaky_relu', a or 0) / math.sqrt(fan))
end
init.heUniform, init.heNormal = init.kaimingUniform, init.kaimingNormal

--- nn.init.orthogonal(t[, gain]): a (semi-)orthogonal matrix from the QR of a Gaussian one.
function init.orthogonal(t, gain)
  if t:dim() < 2 then error('[nn.init] orthogonal needs a tensor with at least 2 dims', 0) end
  local rows = t:size(1)
  local cols = t:nElement() / rows
  local flat = torch.randn(rows, cols):double()
  local transposed = rows < cols
  if transposed then flat = flat:t():contiguous() end
  local q, r = torch.qr(flat)
  local d = torch.diag(r):sign()
  q:cmul(d:view(1, -1):expandAs(q))
  if transposed then q = q:t() end
  t:view(rows, cols):copy(q:mul(gain or 1))
  return t
end

return init
