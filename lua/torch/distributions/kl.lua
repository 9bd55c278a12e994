-- torch.distributions.klDivergence(p, q) and its registry (registerKl), with the closed forms for
-- the pairs of families defined in normal/uniform/bernoulli/categorical.lua; later files add more.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions

local registry = {}  -- 'P name|Q name' -> function(p, q)
local OP = 'distributions.klDivergence'

-- A class's full name, from its constructor table (torch.distributions.Normal) or a name.
local function class_name(C, what)
  if type(C) == 'string' then return C end
  local mt = type(C) == 'table' and getmetatable(C)
  local inner = mt and rawget(mt, '__index')
  local name = type(inner) == 'table' and rawget(inner, '__typename')
  if not name then util.fail('distributions.registerKl', '%s must be a distribution class, got %s', what, util.describe(C)) end
  return name
end

--- torch.distributions.registerKl(P, Q, fn): makes klDivergence(p, q) call fn(p, q) when p is a
--- P and q a Q (classes such as torch.distributions.Normal, or their names); the most specific
--- registered pair of parent classes is used otherwise.
--- Example: torch.distributions.registerKl(torch.distributions.Exponential, torch.distributions.Gamma, function(p, q) return torch.distributions.klDivergence(torch.distributions.Gamma(1, p.rate), q) end)
function D.registerKl(P, Q, fn)
  if type(fn) ~= 'function' then util.fail('distributions.registerKl', 'fn must be a function, got %s', util.describe(fn)) end
  registry[class_name(P, 'P') .. '|' .. class_name(Q, 'Q')] = fn
end

-- The class names of x and its parents, nearest first.
local function lineage(x)
  local names, mt = {}, getmetatable(x)
  while mt do
    names[#names + 1] = rawget(mt, '__typename')
    mt = rawget(mt, '__parent')
  end
  return names
end

--- torch.distributions.klDivergence(p, q): KL(p || q) = E_p[log p(x) - log q(x)] for each
--- distribution of the (broadcast) batch, from the closed form registered for (p's class, q's
--- class); an error naming both when none is.
--- Example: torch.distributions.klDivergence(torch.distributions.Normal(0, 1), torch.distributions.Normal(1, 2))
function D.klDivergence(p, q)
  if not torch.isTypeOf(p, 'torch.distributions.Distribution') then util.fail(OP, 'p must be a distribution, got %s', util.describe(p)) end
  if not torch.isTypeOf(q, 'torch.distributions.Distribution') then util.fail(OP, 'q must be a distribution, got %s', util.describe(q)) end
  -- PyTorch's rule: the match nearest to p's class, then to q's.
  local lp, lq = lineage(p), lineage(q)
  for _, a in ipairs(lp) do
    for _, b in ipairs(lq) do
      local fn = registry[a .. '|' .. b]
      if fn then return fn(p, q) end
    end
  end
  util.fail(OP, 'no KL divergence registered for %s and %s', torch.typename(p), torch.typename(q))
end

local inf = math.huge
local function where(mask, v, t) return torch.where(mask, v, t) end

-- Note [Normal KL log ratio]: PyTorch's (r + t1 - 1 - log r) / 2, r = (p.scale / q.scale)^2,
-- takes the log of r after squaring: r underflows to 0 (KL inf) once the scales differ by 1e154
-- in double, 1e19 in float, and overflows to inf (inf - inf = NaN). log r is taken as
-- 2 (log p.scale - log q.scale) instead: KL(N(0, 1e-300) || N(0, 1)) is 690.3, not inf.
D.registerKl('torch.distributions.Normal', 'torch.distributions.Normal', function(p, q)
  local ratio = torch.pow(p.scale / q.scale, 2)
  local t1 = torch.pow((p.loc - q.loc) / q.scale, 2)
  return (ratio + t1 - 1) * 0.5 - (torch.log(p.scale) - torch.log(q.scale))
end)

D.registerKl('torch.distributions.Uniform', 'torch.distributions.Uniform', function(p, q)
  local r = torch.log((q.high - q.low) / (p.high - p.low))
  return where(torch.logicalOr(torch.gt(q.low, p.low), torch.lt(q.high, p.high)), inf, r)
end)

-- p log(p/q) + (1-p) log((1-p)/(1-q)) from the logits; inf where q excludes what p allows.
local function kl_binary(p, q)
  local t1 = torch.cmul(p.probs, torch.softplus(-q.logits) - torch.softplus(-p.logits))
  t1 = where(torch.eq(p.probs, 0), 0, where(torch.eq(q.probs, 0), inf, t1))
  local t2 = torch.cmul(1 - p.probs, torch.softplus(q.logits) - torch.softplus(p.logits))
  t2 = where(torch.eq(p.probs, 1), 0, where(torch.eq(q.probs, 1), inf, t2))
  return t1 + t2
end
D._kl_binary = kl_binary
D.registerKl('torch.distributions.Bernoulli', 'torch.distributions.Bernoulli', kl_binary)

local function kl_categorical(p, q)
  local t = torch.cmul(p.probs, p.logits - q.logits)
  local shape = t:size()
  t = where(torch.eq(q.probs, 0):expand(shape), inf, t)
  t = where(torch.eq(p.probs, 0):expand(shape), 0, t)
  return util.sum_last(t)
end
D.registerKl('torch.distributions.Categorical', 'torch.distributions.Categorical', kl_categorical)
D.registerKl('torch.distributions.OneHotCategorical', 'torch.distributions.OneHotCategorical', kl_categorical)

return D.klDivergence
