-- The rest of PyTorch's torch.nn.init: truncNormal, sparse, dirac, eye, calculateGain with every
-- nonlinearity name PyTorch knows, and calculateFanInAndFanOut. Each init fills its tensor in place
-- and returns it, without recording (as PyTorch's run under no_grad), on any device.
--
-- Note [Fans of Tocha's weight layouts]: nn.Linear, nn.SpatialConvolution, nn.VolumetricConvolution
-- and the full (transposed) convolutions hold their weights as PyTorch does (out x in x k...,
-- in x out x k... for the transposed ones), so the fans agree. nn.SpatialConvolutionMM and
-- nn.TemporalConvolution keep Torch7's 2D layout (out x in*k): fan_in agrees, but fan_out is
-- size(1) where PyTorch's 3D/4D weight gives out * k. Pass a view of the PyTorch shape
-- (m.weight:view(nOut, nIn, kH, kW)) to get PyTorch's fans, dirac and the like on such a weight:
-- the view shares storage, so initializing it fills the weight.
require 'nn.init_weights'
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local init = nn.init
local fail = lib.fail

local function tensor(op, t)
  if not torch.isTensor(t) then fail(op, 'expected a tensor, got %s', describe(t)) end
  return t
end
local number = torch._arg_checks.number  -- lua/torch/linalg_ns.lua

--- nn.init.calculateFanInAndFanOut(t): fan_in, fan_out of a weight of at least 2 dims, PyTorch's
--- rule: size(2) and size(1) times the product of the other dims (Note [Fans of Tocha's weight layouts]).
--- Example: print(nn.init.calculateFanInAndFanOut(torch.Tensor(5, 3, 2, 2)))
function init.calculateFanInAndFanOut(t)
  local op = 'nn.init.calculateFanInAndFanOut'
  tensor(op, t)
  if t:dim() < 2 then fail(op, 'fan in and fan out need a tensor with at least 2 dims, got %dD', t:dim()) end
  local receptive = 1
  for d = 3, t:dim() do receptive = receptive * t:size(d) end
  return t:size(2) * receptive, t:size(1) * receptive
end

local unit = { linear = true, sigmoid = true, conv1d = true, conv2d = true, conv3d = true,
  conv_transpose1d = true, conv_transpose2d = true, conv_transpose3d = true,
  convTranspose1d = true, convTranspose2d = true, convTranspose3d = true }

--- nn.init.calculateGain(nonlinearity [, param]): PyTorch's recommended gain: 1 for 'linear',
--- 'sigmoid' and the convolutions ('conv2d', 'conv_transpose2d' or 'convTranspose2d'...), 5/3 for
--- 'tanh', sqrt(2) for 'relu', sqrt(2 / (1 + param^2)) for 'leaky_relu' / 'leakyRelu' (param
--- default 0.01), 3/4 for 'selu'.
--- Example: print(nn.init.calculateGain('leaky_relu', 0.2))
function init.calculateGain(nonlinearity, param)
  local op = 'nn.init.calculateGain'
  if nonlinearity == nil or unit[nonlinearity] then return 1 end
  if nonlinearity == 'tanh' then return 5 / 3 end
  if nonlinearity == 'relu' then return math.sqrt(2) end
  if nonlinearity == 'selu' then return 3 / 4 end
  if nonlinearity == 'leaky_relu' or nonlinearity == 'leakyRelu' then
    local a = param == nil and 0.01 or param
    if type(a) ~= 'number' then fail(op, 'the negative slope must be a number, got %s', describe(param)) end
    return math.sqrt(2 / (1 + a * a))
  end
  fail(op, 'unsupported nonlinearity %s', type(nonlinearity) == 'string' and ("'" .. nonlinearity .. "'") or describe(nonlinearity))
end

-- Phi(x) of the standard normal, from erf on a one-element double tensor (Lua's math has no erf).
local function norm_cdf(x)
  return (1 + torch.erf(torch.DoubleTensor({ x / math.sqrt(2) }))[1]) / 2
end

--- nn.init.truncNormal(t [, mean=0, std=1, a=-2, b=2]): fills t from N(mean, std^2) truncated to
--- [a, b] by PyTorch's inverse-CDF method: uniform draws between Phi((a - mean) / std) and
--- Phi((b - mean) / std), mapped through erfinv, then clamped to [a, b] against rounding.
--- Example: print(nn.init.truncNormal(torch.Tensor(5), 0, 1, -1, 1))
function init.truncNormal(t, mean, std, a, b)
  local op = 'nn.init.truncNormal'
  tensor(op, t)
  mean, std = number(op, 'mean', mean, 0), number(op, 'std', std, 1)
  a, b = number(op, 'a', a, -2), number(op, 'b', b, 2)
  if not (std > 0) then fail(op, 'std must be positive, got %s', tostring(std)) end
  if not (a < b) then fail(op, 'a must be below b, got a = %s and b = %s', tostring(a), tostring(b)) end
  local l, u = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
  if mean < a - 2 * std or mean > b + 2 * std then
    io.stderr:write(string.format('[nn.init.truncNormal] warning: mean %g is more than 2 std from [%g, %g]: '
      .. 'the values may be inaccurate\n', mean, a, b))
  end
  torch.noGrad(function()
    t:uniform(2 * l - 1, 2 * u - 1)
    t:erfinv()
    t:mul(std * math.sqrt(2)):add(mean)
    t:clamp(a, b)
  end)
  return t
end

--- nn.init.sparse(t, sparsity [, std=0.01]): a 2D t from N(0, std^2) with ceil(sparsity * rows)
--- entries of each column set to zero, at rows drawn without replacement (Martens, 2010; PyTorch's).
--- Example: print(nn.init.sparse(torch.Tensor(4, 3), 0.5))
function init.sparse(t, sparsity, std)
  local op = 'nn.init.sparse'
  tensor(op, t)
  if t:dim() ~= 2 then fail(op, 'only 2D tensors are supported, got %dD', t:dim()) end
  sparsity = number(op, 'sparsity', sparsity, nil)
  if sparsity == nil or sparsity < 0 or sparsity > 1 then
    fail(op, 'sparsity must be a number in [0, 1], got %s', tostring(sparsity))
  end
  std = number(op, 'std', std, 0.01)
  local rows, cols = t:size(1), t:size(2)
  local zeros = math.ceil(sparsity * rows)
  torch.noGrad(function()
    t:normal(0, std)
    if zeros == 0 then return end
    -- one random permutation per column, its first `zeros` rows zeroed: a 0/1 mask built on the CPU
    local keep = torch.DoubleTensor(rows, cols):fill(1)
    for c = 1, cols do
      keep:select(2, c):indexFill(1, torch.randperm(rows):narrow(1, 1, zeros):long(), 0)
    end
    t:cmul(keep:typeAs(t))
  end)
  return t
end

--- nn.init.dirac(t [, groups=1]): a 3, 4 or 5D convolution weight (out x in x k...) that maps each
--- input channel to the output channel of the same index within its group (a one at the kernel's
--- centre, index floor(k / 2) + 1), zeros elsewhere: such a convolution keeps the input.
--- Example: print(nn.init.dirac(torch.Tensor(2, 2, 3)))
function init.dirac(t, groups)
  local op = 'nn.init.dirac'
  tensor(op, t)
  if t:dim() < 3 or t:dim() > 5 then fail(op, 'only 3, 4 and 5D tensors are supported, got %dD', t:dim()) end
  groups = number(op, 'groups', groups, 1)
  if groups < 1 or groups ~= math.floor(groups) or t:size(1) % groups ~= 0 then
    fail(op, 'the %d output channels must divide into groups, got groups = %s', t:size(1), tostring(groups))
  end
  local per = t:size(1) / groups
  local n = math.min(per, t:size(2))
  torch.noGrad(function()
    t:zero()
    for g = 0, groups - 1 do
      for d = 1, n do
        local s = t:select(1, g * per + d):select(1, d)
        for k = 3, t:dim() do s = s:select(1, math.floor(t:size(k) / 2) + 1) end
        s:fill(1)
      end
    end
  end)
  return t
end

--- nn.init.eye(t): a 2D t set to the identity (ones on the main diagonal of a rectangular one too),
--- keeping the identity of the inputs in a Linear layer.
--- Example: print(nn.init.eye(torch.Tensor(2, 3)))
function init.eye(t)
  local op = 'nn.init.eye'
  tensor(op, t)
  if t:dim() ~= 2 then fail(op, 'only 2D tensors are supported, got %dD', t:dim()) end
  torch.noGrad(function()
    t:zero()
    t:diagonal(0, 1, 2):fill(1)
  end)
  return t
end

return init
