-- Shared helpers of torch.distributions: argument parsing (positional, named, options table),
-- broadcasting of parameters to one dtype/device/shape, shapes, dtype limits, probs <-> logits.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'

local util = {}
local fail, describe = lib.fail, types.describe
util.fail, util.describe = fail, describe

local function is_tensor(x) return torch.isTensor(x) end
util.is_tensor = is_tensor
local function is_plain_table(x) return type(x) == 'table' and getmetatable(x) == nil end

-- Note [Distribution arguments]: constructors take PyTorch's positional order, and a trailing
-- plain table of options that may name any parameter and validateArgs:
-- Normal(0, 1), Normal(0, 1, {validateArgs=false}), Normal({loc=0, scale=1}),
-- Categorical({logits=l}), MultivariateNormal(mu, {scaleTril=L}). A parameter given both ways,
-- an unknown option or an extra argument is an error.
function util.args(name, names, ...)
  local n = select('#', ...)
  local args = { ... }
  local opts = {}
  if n > 0 and is_plain_table(args[n]) then
    opts = args[n]
    n = n - 1
  end
  if n > #names then fail(name, 'expected at most %d parameters (%s), got %d', #names, table.concat(names, ', '), n) end
  local out, known = {}, { validateArgs = true }
  for i, k in ipairs(names) do
    known[k] = true
    if i <= n then out[k] = args[i] end
  end
  for k, v in pairs(opts) do
    if not known[k] then
      fail(name, 'unknown option %s (expected %s or validateArgs)', tostring(k), table.concat(names, ', '))
    end
    if k ~= 'validateArgs' then
      if out[k] ~= nil then fail(name, '%s given both as an argument and as an option', k) end
      out[k] = v
    end
  end
  if opts.validateArgs ~= nil and type(opts.validateArgs) ~= 'boolean' then
    fail(name, 'validateArgs must be a boolean, got %s', describe(opts.validateArgs))
  end
  return out, opts.validateArgs
end

-- The floating tensor type parameters end up in: the widest floating type among the tensors,
-- else the default tensor type (numbers and integer tensors take it, as PyTorch's broadcast_all).
local rank = { ['torch.HalfTensor'] = 1, ['torch.BFloat16Tensor'] = 1, ['torch.FloatTensor'] = 2,
               ['torch.DoubleTensor'] = 3 }
-- The CPU type name of a tensor's dtype ('torch.FloatTensor' for a CUDA float tensor too).
function util.cpu_type(x) return types.tensor_name[x.p.dtype] end
function util.is_float(x) return rank[util.cpu_type(x)] ~= nil end
function util.float_type(values)
  local best, tname
  for _, v in ipairs(values) do
    if is_tensor(v) then
      local t = util.cpu_type(v)
      local r = rank[t]
      if r and (not best or r > best) then best, tname = r, t
      elseif r and r == best and t ~= tname then tname = 'torch.FloatTensor' end  -- half with bf16
    end
  end
  return tname or torch.getdefaulttensortype()
end

-- A 0-dim tensor holding v, of type tname on ref's device (CPU without ref).
function util.scalar(v, tname, ref)
  -- made in tname itself: through the default (float) type, 0.7 became 0.69999998807907 in a
  -- DoubleTensor distribution
  local t = torch.Tensor():type(tname):resize(torch.LongStorage()):fill(v)
  if ref and ref:device() ~= 'cpu' then t = t:to(ref:device()) end
  return t
end

-- Converts numbers and tensors (list `values`, names `names` for messages) to tensors of one
-- floating type on one device, broadcast to one shape (views). Returns the list and the shape.
function util.broadcast_all(name, names, values)
  local out, ref = util.convert(name, names, values)
  local sizes = {}
  for i = 1, #names do sizes[i] = out[i]:size() end
  local ok, shape = pcall(torch.broadcastShapes, unpack(sizes))
  if not ok then
    local parts = {}
    for i, k in ipairs(names) do parts[i] = k .. ' ' .. util.shape_str(sizes[i]) end
    fail(name, 'parameters do not broadcast: %s', table.concat(parts, ', '))
  end
  for i = 1, #names do out[i] = out[i]:expand(shape) end
  return out, shape
end

-- The conversion part of broadcast_all: tensors of one floating type on one device, unexpanded;
-- nil values stay nil. Also returns the first tensor (the device reference).
function util.convert(name, names, values)
  local ref
  for i, k in ipairs(names) do
    local v = values[i]
    if is_tensor(v) then
      if ref and v:device() ~= ref:device() then
        fail(name, '%s is on %s but %s is on %s', k, v:device(), names[1], ref:device())
      end
      ref = ref or v
    elseif type(v) ~= 'number' then
      fail(name, '%s must be a number or a tensor, got %s', k, describe(v))
    end
  end
  local tname = util.float_type(values)
  local out = {}
  for i = 1, #names do
    local v = values[i]
    out[i] = is_tensor(v) and v:to(tname) or util.scalar(v, tname, ref)
  end
  return out, ref
end

-- Shapes are LongStorages; these build and print them.
function util.shape_str(s)
  local parts = {}
  for i = 1, #s do parts[i] = tostring(s[i]) end
  return '[' .. table.concat(parts, 'x') .. ']'
end
function util.cat(...)
  local t = {}
  for i = 1, select('#', ...) do
    local s = select(i, ...)
    for j = 1, #s do t[#t + 1] = s[j] end
  end
  return torch.LongStorage(t)
end
-- Dims first..last of s (negative from the end; empty when last < first).
function util.slice(s, first, last)
  local n = #s
  if first < 0 then first = n + first + 1 end
  if last < 0 then last = n + last + 1 end
  local t = {}
  for i = math.max(first, 1), math.min(last, n) do t[#t + 1] = s[i] end
  return torch.LongStorage(t)
end
function util.same_shape(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

-- A sample shape given as nil, a table of sizes or a LongStorage, as a LongStorage.
function util.sample_shape(name, s)
  if s == nil then return torch.LongStorage() end
  if type(s) == 'number' then s = { s } end
  if torch.typename(s) == 'torch.LongStorage' then s = s:totable() end
  if not is_plain_table(s) then
    fail(name, 'sample shape must be a table or a LongStorage of sizes, got %s', describe(s))
  end
  for i = 1, table.maxn(s) do
    local v = s[i]
    if type(v) ~= 'number' or v < 0 or v ~= math.floor(v) then
      fail(name, 'sample shape entry %d must be a non-negative integer, got %s', i, tostring(v))
    end
  end
  return torch.LongStorage(s)
end

-- A new uninitialized tensor of ref's type and device with the given shape (a LongStorage).
function util.empty(ref, shape)
  return torch.emptyLike(ref):resize(shape)
end

-- Sums out the last n dims (keeping none of them).
function util.sum_rightmost(x, n)
  for _ = 1, n do
    local d = x:dim()
    x = torch.sum(x, d):squeeze(d)
  end
  return x
end
-- Sums over the last dim, dropping it.
function util.sum_last(x) return util.sum_rightmost(x, 1) end

-- Machine epsilon and smallest normal number of a tensor's dtype (torch.finfo's eps and tiny).
local finfo = {
  ['torch.DoubleTensor'] = { 2.220446049250313e-16, 2.2250738585072014e-308, 1.7976931348623157e308 },
  ['torch.FloatTensor'] = { 1.1920928955078125e-07, 1.1754943508222875e-38, 3.4028234663852886e38 },
  ['torch.HalfTensor'] = { 0.0009765625, 6.103515625e-05, 65504 },
  ['torch.BFloat16Tensor'] = { 0.0078125, 1.1754943508222875e-38, 3.3895313892515355e38 },
}
local function info(x) return finfo[util.cpu_type(x)] or finfo['torch.FloatTensor'] end
function util.eps(x) return info(x)[1] end
function util.tiny(x) return info(x)[2] end
function util.max(x) return info(x)[3] end

-- PyTorch's probs_to_logits / logits_to_probs: probabilities clamped to [eps, 1 - eps] first,
-- so that probs 0 or 1 give finite logits.
function util.clamp_probs(p)
  local e = util.eps(p)
  return torch.clamp(p, e, 1 - e)
end
function util.probs_to_logits(p, binary)
  local c = util.clamp_probs(p)
  if binary then return torch.log(c) - torch.log1p(-c) end
  return torch.log(c)
end
function util.logits_to_probs(l, binary)
  if binary then return torch.sigmoid(l) end
  return torch.softmax(l, l:dim())
end

-- Note [Softplus kink]: softplus(x) = max(x, 0) + log1p(exp(-|x|)) is exact for every x (no
-- threshold, unlike torch.softplus's x above 20), but as written its autograd derivative at x = 0
-- is 1 (clampMin passes its gradient at the bound, abs has none there) for sigmoid(0) = 1/2: the
-- logProb gradients of Bernoulli, ContinuousBernoulli, Binomial and NegativeBinomial were wrong
-- at probs = 1/2 exactly (Bernoulli(0.5):logProb(1) had d/dprobs 0 for 2). max(x, 0) is taken
-- with derivative 1/2 at 0 instead, as PyTorch's _clamp_by_zero, by selection (its
-- (clampMin(x, 0) + x - clampMax(x, 0)) / 2 is NaN at x = -inf).
function util.clamp_by_zero(x)
  return torch.where(torch.gt(x, 0), x, torch.where(torch.lt(x, 0), 0, x * 0.5))
end
--- (internal) log(1 + exp(x)), exact for every x, derivative sigmoid(x) (Note [Softplus kink]).
function util.softplus(x)
  return util.clamp_by_zero(x) + torch.log1p(torch.exp(-torch.abs(x)))
end

-- softplus(l) - l * v: binary cross-entropy with logits, elementwise.
-- Note [Infinite logits]: at l = +-inf the formula is inf - inf (NaN); its limit is taken there
-- instead: (1 - v) inf for l = +inf (0 at v = 1), v inf for l = -inf (0 at v = 0). So
-- Bernoulli({logits = inf}):logProb(0) is -inf and its entropy 0 (PyTorch 1.13: -inf and NaN;
-- NaN for logProb(1), and for every value at logits = -inf).
function util.bce_with_logits(l, v)
  local r = util.softplus(l) - torch.cmul(l, v)
  local pinf, ninf = torch.eq(l, math.huge), torch.eq(l, -math.huge)
  if not (torch.any(pinf) or torch.any(ninf)) then return r end
  local inf = math.huge
  local top = torch.where(torch.eq(v, 1), 0, (-v + 1) * inf)
  local bottom = torch.where(torch.eq(v, 0), 0, v * inf)
  return torch.where(pinf, top, torch.where(ninf, bottom, r))
end

-- Standard gamma draws (rate 1) for each element of alpha (positive), by Marsaglia and Tsang's
-- method: a rejection loop over whole tensors (every element draws each round until accepted;
-- about 2 to 4 rounds for a million elements); alpha < 1 takes Gamma(alpha + 1) * u^(1/alpha).
-- No gradient (the differentiable draw is gamma_grad.lua's, Note [Gamma rsample]).
function util.standard_gamma(alpha)
  return torch.noGrad(function()
    local boost = torch.lt(alpha, 1)
    local a = torch.where(boost, alpha + 1, alpha)
    local d = a - 1 / 3
    local c = torch.pow(d * 9, -0.5)
    local out, done = torch.zerosLike(a), torch.lt(a, 0)
    for _ = 1, 1000 do
      local x = torch.emptyLike(a):normal()
      local v = torch.pow(torch.cmul(c, x) + 1, 3)
      local u = torch.emptyLike(a):uniform()
      local bound = torch.pow(x, 2) * 0.5 + d - torch.cmul(d, v) + torch.cmul(d, torch.log(v))
      local ok = torch.logicalAnd(torch.gt(v, 0), torch.lt(torch.log(u), bound))
      out = torch.where(torch.logicalAnd(ok, torch.logicalNot(done)), torch.cmul(d, v), out)
      done = torch.logicalOr(done, ok)
      if torch.all(done) then break end
    end
    if not torch.all(done) then fail('distributions.Gamma', 'the rejection sampler did not finish in 1000 rounds') end
    local u = torch.emptyLike(a):uniform()
    out = torch.where(boost, torch.cmul(out, torch.pow(u, torch.pow(alpha, -1))), out)
    return torch.clampMin(out, util.tiny(out))
  end)
end

-- log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b).
function util.lbeta(a, b)
  return torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b)
end

return util
