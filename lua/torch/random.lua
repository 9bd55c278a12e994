-- Random numbers (Torch7's random.md): torch.Generator objects, seeds and RNG state, scalar draws
-- (torch.uniform()...), in-place fills (x:uniform()...), torch.multinomial and torch.randperm.
-- Every function takes an optional torch.Generator as its first argument (after self for methods).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

-- ---- generators ----------------------------------------------------------------------------

local Generator = torch.class('torch.Generator', torch)
local release_generator = C.tocha_generator_release

-- The live Generator objects (weak keys): torch.func.vmap snapshots them with the default
-- generators, so a draw from one is seen by randomness = 'error' and repeated under 'same'.
local live_generators = setmetatable({}, { __mode = 'k' })

--- torch.Generator(['cpu']): an independent Mersenne Twister, seeded from /dev/urandom (Torch7).
--- CUDA draws use the device's generator (torch.cuda.manualSeed); torch.Generator('cuda') is refused.
function Generator:__init(device)
  if device ~= nil and device ~= 'cpu' then
    -- a silently returned CPU generator would draw CUDA tensors' values on the host
    lib.fail('Generator', "only CPU generators can be made ('cpu' or nothing); CUDA tensors draw from "
      .. "the device's generator (torch.cuda.manualSeed), got %s", tostring(device))
  end
  local g = C.tocha_generator_new()
  if g == nil then lib.raise() end
  self._g = ffi.gc(g, release_generator)
  live_generators[self] = true
end

-- torch._liveGenerators(): a list of the Generator objects not yet collected (for vmap).
function torch._liveGenerators()
  local list = {}
  for g in pairs(live_generators) do list[#list + 1] = g end
  return list
end

local function is_gen(x) return type(x) == 'table' and getmetatable(x) == Generator end
torch._is_generator = is_gen

-- Splits an optional leading generator off the arguments: returns its C pointer (nil for the
-- default generator) and the remaining arguments.
local function gen_and_args(a1, ...)
  if is_gen(a1) then return a1._g, ... end
  return nil, a1, ...
end
torch._gen_and_args = gen_and_args

local u64_out = ffi.new('uint64_t[1]')
local i64_out = ffi.new('int64_t[1]')
local d_out = ffi.new('double[1]')
local TWO63 = 2 ^ 63

-- A seed from Lua: an integer number in [-2^63, 2^64) (negative seeds wrap, as in C), or a
-- 64-bit cdata integer.
local function seed_arg(op, n)
  if type(n) == 'cdata' and (ffi.istype('uint64_t', n) or ffi.istype('int64_t', n)) then return n end
  if type(n) ~= 'number' then fail(op, 'expected a seed (an integer), got %s', describe(n)) end
  if n ~= math.floor(n) or n < -TWO63 or n >= 2 * TWO63 then
    fail(op, 'seed must be an integer in [-2^63, 2^64), got %s', tostring(n))
  end
  if n < 0 then return ffi.cast('uint64_t', ffi.new('int64_t', n)) end
  return ffi.new('uint64_t', n)
end

-- Seeds round-trip: one given as a negative number comes back negative.
local function seed_number(v)
  if v >= 0x8000000000000000ULL then return tonumber(ffi.cast('int64_t', v)) end
  return tonumber(v)
end

-- The generator of torch.seed/initialSeed/getRNGState([gen]), which take nothing else: torch.seed(42)
-- meaning manualSeed(42) silently drew an unrepeatable seed from /dev/urandom.
-- (nil stands for the default generator.)
local function only_gen(op, a1, a2)
  local extra = a2
  if a1 ~= nil and not is_gen(a1) then extra = a1 end
  if extra ~= nil then
    fail(op, 'takes only an optional torch.Generator, got %s%s', describe(extra),
      op == 'seed' and ' (torch.manualSeed(n) seeds with n)' or '')
  end
  return a1 and a1._g
end

--- torch.manualSeed([gen,] n): seeds the generator; the same seed gives the same numbers.
--- Example: torch.manualSeed(42)
function torch.manualSeed(...)
  local g, n = gen_and_args(...)
  check(C.tocha_generator_manual_seed(g, seed_arg('manualSeed', n)))
end
--- torch.seed([gen]): seeds from /dev/urandom and returns the seed.
--- Example: local state = torch.getRNGState(); local s = torch.seed(); torch.setRNGState(state)
function torch.seed(...)
  local g = only_gen('seed', ...)
  check(C.tocha_generator_seed(g, u64_out))
  return seed_number(u64_out[0])
end
--- torch.initialSeed([gen]): the last seed given to manualSeed or seed.
--- Example: torch.manualSeed(7); assert(torch.initialSeed() == 7)
function torch.initialSeed(...)
  local g = only_gen('initialSeed', ...)
  check(C.tocha_generator_initial_seed(g, u64_out))
  return seed_number(u64_out[0])
end
--- torch.getRNGState([gen]): a ByteTensor snapshot of the whole generator state.
--- Example: local state = torch.getRNGState(); local a = torch.rand(2); torch.setRNGState(state); assert(torch.equal(a, torch.rand(2)))
function torch.getRNGState(...)
  local g = only_gen('getRNGState', ...)
  return wrap(C.tocha_generator_get_state(g))
end
--- torch.setRNGState([gen,] state): restores a snapshot (checked: type, size and checksum).
--- Example: local state = torch.getRNGState(); torch.rand(3); torch.setRNGState(state)
function torch.setRNGState(...)
  local g, state = gen_and_args(...)
  if not is_tensor(state) then
    fail('setRNGState', 'expected a torch.ByteTensor %s, got %s', g and 'state after the generator' or 'from getRNGState',
      describe(state))
  end
  check(C.tocha_generator_set_state(g, state.p))
  return state
end

-- Methods mirroring the torch.* functions, and a copy of the state. self is checked: g.manualSeed(3)
-- (a dot for the colon) passed 3 as self, so torch.manualSeed(3) seeded the default generator.
local function self_gen(op, g)
  if not is_gen(g) then fail(op, 'expected a torch.Generator as self (g:%s(...)), got %s', op, describe(g)) end
  return g
end
function Generator:manualSeed(n) torch.manualSeed(self_gen('manualSeed', self), n) return self end
function Generator:seed() return torch.seed(self_gen('seed', self)) end
function Generator:initialSeed() return torch.initialSeed(self_gen('initialSeed', self)) end
function Generator:getRNGState() return torch.getRNGState(self_gen('getRNGState', self)) end
function Generator:setRNGState(state) torch.setRNGState(self_gen('setRNGState', self), state) return self end
--- g:getState() and g:setState(state): PyTorch's names (get_state, set_state) of g:getRNGState()
--- and g:setRNGState(state); setState returns g.
--- Example: local g = torch.Generator(); local s = g:getState(); torch.rand(g, 2); g:setState(s)
Generator.getState = Generator.getRNGState
Generator.setState = Generator.setRNGState
--- g:clone(): a new generator that continues exactly as g would.
function Generator:clone()
  self_gen('clone', self)
  local c = torch.Generator()
  check(C.tocha_generator_copy(c._g, self._g))
  return c
end
-- Serialization hooks (Torch7's object write/read protocol): the state tensor.
function Generator:write(file) file:writeObject(torch.getRNGState(self)) end
function Generator:read(file)
  self:__init()
  torch.setRNGState(self, file:readObject())
end

-- ---- argument helpers ------------------------------------------------------------------------

local function number(op, v, default, what)
  if v == nil then
    if default == nil then fail(op, 'expected %s (a number)', what) end
    return default
  end
  if type(v) ~= 'number' then fail(op, '%s must be a number, got %s', what, describe(v)) end
  return v
end

local function integer(op, v, what)
  if type(v) ~= 'number' then fail(op, 'expected %s (an integer), got %s', what, describe(v)) end
  if v ~= math.floor(v) or v < -TWO63 or v >= TWO63 then fail(op, '%s must be an integer, got %s', what, tostring(v)) end
  return v
end

local function no_more(op, v)
  if v ~= nil then fail(op, 'too many arguments (unexpected %s)', describe(v)) end
end

-- ---- distributions: x:f([gen,] params) fills x; torch.f([gen,] params) draws a number ----------

-- names: the parameters' names; defaults: their defaults (nil: required).
local function install_distribution(name, cfill, cdraw, names, defaults)
  local n1, n2, d1, d2 = names[1], names[2], defaults[1], defaults[2]
  local function fill(x, g, a, b, extra)
    a = number(name, a, d1, n1)
    if n2 then
      no_more(name, extra)
      check(cfill(x.p, g, a, number(name, b, d2, n2)))
    else
      no_more(name, b)
      check(cfill(x.p, g, a))
    end
    return x
  end
  methods[name] = function(x, ...)
    local g, a, b, extra = gen_and_args(...)
    return fill(x, g, a, b, extra)
  end
  methods[name .. '_'] = methods[name]
  torch[name] = function(...)
    local g, a1, a2, a3, a4 = gen_and_args(...)
    if is_tensor(a1) then return fill(a1, g, a2, a3, a4) end
    local a = number(name, a1, d1, n1)
    if n2 then
      no_more(name, a3)
      check(cdraw(g, a, number(name, a2, d2, n2), d_out))
    else
      no_more(name, a2)
      check(cdraw(g, a, d_out))
    end
    return d_out[0]
  end
end

--- torch.uniform([gen,] [x,] [a, b]): a number drawn uniformly from [a, b) (default [0, 1)); given
--- a floating tensor x, fills x in place with such draws and returns x. gen is an optional
--- torch.Generator (else the default one). x:uniform([gen,] [a, b]) is the same fill.
--- Example: torch.uniform(torch.Tensor(3), -1, 1)
install_distribution('uniform', C.tocha_uniform_, C.tocha_draw_uniform, { 'a', 'b' }, { 0, 1 })
--- torch.normal([gen,] [x,] [mean, std]): a number drawn from the normal distribution with mean
--- (default 0) and standard deviation std (default 1); given a floating tensor x, fills x in place
--- and returns x. gen is an optional torch.Generator. x:normal([gen,] [mean, std]) is the same fill.
--- Example: torch.normal(torch.Tensor(3), 10, 2)
install_distribution('normal', C.tocha_normal_, C.tocha_draw_normal, { 'mean', 'std' }, { 0, 1 })
--- torch.exponential([gen,] [x,] [lambda]): a number drawn from the exponential distribution with
--- rate lambda (default 1, mean 1 / lambda); given a floating tensor x, fills x in place and
--- returns x. gen is an optional torch.Generator. x:exponential([gen,] [lambda]) is the same fill.
--- Example: torch.exponential(torch.Tensor(3), 2)
install_distribution('exponential', C.tocha_exponential_, C.tocha_draw_exponential, { 'lambda' }, { 1 })
--- torch.cauchy([gen,] [x,] [median, sigma]): a number drawn from the Cauchy distribution with
--- location median (default 0) and scale sigma (default 1); given a floating tensor x, fills x in
--- place and returns x. gen is an optional torch.Generator. x:cauchy([gen,] [median, sigma]) is
--- the same fill.
--- Example: torch.cauchy(torch.Tensor(3), 0, 1)
install_distribution('cauchy', C.tocha_cauchy_, C.tocha_draw_cauchy, { 'median', 'sigma' }, { 0, 1 })
--- torch.logNormal([gen,] [x,] [mean, std]): a number drawn from the log-normal distribution
--- whose values have mean (default 1) and standard deviation std (default 2), both positive (as
--- in Torch7, not the parameters of the underlying normal); given a floating tensor x, fills x in
--- place and returns x. gen is an optional torch.Generator. x:logNormal([gen,] [mean, std]) is
--- the same fill.
--- Example: torch.logNormal(torch.Tensor(3), 1, 0.5)
install_distribution('logNormal', C.tocha_log_normal_, C.tocha_draw_log_normal, { 'mean', 'std' }, { 1, 2 })
--- torch.geometric([gen,] [x,] [p]): an integer i >= 1 drawn with probability (1 - p) * p^(i - 1)
--- (Torch7's geometric; p in (0, 1), default 0.5); given a numeric tensor x (any type but bool),
--- fills x in place and returns x. gen is an optional torch.Generator. x:geometric([gen,] [p]) is
--- the same fill.
--- Example: torch.geometric(torch.LongTensor(4), 0.5)
install_distribution('geometric', C.tocha_geometric_, C.tocha_draw_geometric, { 'p' }, { 0.5 })

-- Note [PyTorch's parameters under PyTorch's names]: x:geometric_ and x:logNormal_ are PyTorch's
-- geometric_(p) (p the success probability: P(k) = (1 - p)^(k - 1) p) and log_normal_(mean, std)
-- (exp of a normal with that mean and std), where Torch7's geometric(p) draws P(k) = (1 - p) p^(k - 1)
-- and logNormal(mean, std) takes the log-normal's own mean and std; as aliases of the Torch7 fills
-- they drew another distribution for ported PyTorch code (as random_ did: Note [random_ is PyTorch's]).
--- x:geometric_([gen,] p): fills x with draws k >= 1 of P(k) = (1 - p)^(k - 1) p, p in (0, 1] (PyTorch's).
--- Example: torch.Tensor(4):geometric_(0.5)
function methods.geometric_(x, ...)
  local g, p, extra = gen_and_args(...)
  no_more('geometric_', extra)
  p = number('geometric_', p, nil, 'p')
  if not (p > 0 and p <= 1) then fail('geometric_', 'p must be in (0, 1], got %s', tostring(p)) end
  if p == 1 then return x:fill(1) end
  check(C.tocha_geometric_(x.p, g, 1 - p))
  return x
end
--- x:logNormal_([gen,] [mean = 1] [, std = 2]): fills x with exp of normal draws of that mean and std (PyTorch's).
--- Example: torch.Tensor(4):logNormal_(0, 0.25)
function methods.logNormal_(x, ...)
  local g, mean, std, extra = gen_and_args(...)
  no_more('logNormal_', extra)
  mean, std = number('logNormal_', mean, 1, 'mean'), number('logNormal_', std, 2, 'std')
  check(C.tocha_normal_(x.p, g, mean, std))
  return x:exp()
end

-- bernoulli: p is a number (default 0.5) or, for fills, a tensor of per-element probabilities.
local function bernoulli_fill(x, g, p, extra)
  no_more('bernoulli', extra)
  if is_tensor(p) then check(C.tocha_bernoulli_tensor_(x.p, g, p.p))
  else check(C.tocha_bernoulli_(x.p, g, number('bernoulli', p, 0.5, 'p'))) end
  return x
end
function methods.bernoulli(x, ...)
  local g, p, extra = gen_and_args(...)
  return bernoulli_fill(x, g, p, extra)
end
methods.bernoulli_ = methods.bernoulli
--- torch.bernoulli([gen,] [x,] [p]): 1 with probability p (default 0.5), else 0, as a number;
--- given a tensor x (any type, bool included), fills x in place and returns x, where p may also
--- be a tensor of per-element probabilities (broadcast to x or with as many elements). gen is an
--- optional torch.Generator. x:bernoulli([gen,] [p]) is the same fill.
--- Example: torch.bernoulli(torch.Tensor(4), torch.Tensor({0, 1, 0, 1}))
function torch.bernoulli(...)
  local g, a1, a2, a3 = gen_and_args(...)
  if is_tensor(a1) then return bernoulli_fill(a1, g, a2, a3) end
  no_more('bernoulli', a2)
  check(C.tocha_draw_bernoulli(g, number('bernoulli', a1, 0.5, 'p'), d_out))
  return d_out[0]
end

-- random: () is Torch7's default range, (b) is [1, b], (a, b) is [a, b], inclusive.
local function random_fill(x, g, a, b, extra)
  no_more('random', extra)
  if a == nil then check(C.tocha_random_default_(x.p, g))
  elseif b == nil then check(C.tocha_random_(x.p, g, 1, integer('random', a, 'b')))
  else check(C.tocha_random_(x.p, g, integer('random', a, 'a'), integer('random', b, 'b'))) end
  return x
end
function methods.random(x, ...)
  local g, a, b, extra = gen_and_args(...)
  return random_fill(x, g, a, b, extra)
end
-- Note [random_ is PyTorch's]: the underscore name is PyTorch's x.random_(to) / x.random_(from, to),
-- whose upper bound is excluded ([0, to) and [from, to)), where Torch7's x:random(b) / random(a, b)
-- include theirs ([1, b], [a, b]); an alias of random made ported code draw 10 from random_(10).
-- With no bounds it fills Torch7's default range, as random() does.
--- x:random_([gen,] [from,] to): fills x with integers in [from, to) (from 0 by default), PyTorch's
--- random_; x:random() is Torch7's inclusive form.
--- Example: local x = torch.LongTensor(5):random_(10)
function methods.random_(x, ...)
  local g, a, b, extra = gen_and_args(...)
  no_more('random_', extra)
  if a == nil then check(C.tocha_random_default_(x.p, g)) return x end
  local lo, hi = 0, integer('random_', a, 'to')
  if b ~= nil then lo, hi = hi, integer('random_', b, 'to') end
  if lo >= hi then lib.fail('random_', "expects 'from' to be less than 'to', got from = %d, to = %d", lo, hi) end
  check(C.tocha_random_(x.p, g, lo, hi - 1))
  return x
end
--- torch.random([gen,] [a,] [b]): an integer in [0, 2^32) (no bounds), [1, b] or [a, b].
--- Example: torch.manualSeed(1); local die = torch.random(1, 6)
function torch.random(...)
  local g, a1, a2, a3, a4 = gen_and_args(...)
  if is_tensor(a1) then return random_fill(a1, g, a2, a3, a4) end
  no_more('random', a3)
  local lo, hi
  if a1 == nil then lo, hi = 0, 4294967295
  elseif a2 == nil then lo, hi = 1, integer('random', a1, 'b')
  else lo, hi = integer('random', a1, 'a'), integer('random', a2, 'b') end
  check(C.tocha_draw_integer(g, lo, hi, i64_out))
  return tonumber(i64_out[0])
end

-- ---- sampling ---------------------------------------------------------------------------------

--- torch.multinomial([res,] [gen,] probs, n [, replacement=false]): n 1-based LongTensor indices
--- drawn from each row of a 1D or 2D tensor of non-negative weights.
--- Example: torch.manualSeed(1); local i = torch.multinomial(torch.Tensor({0.2, 0.8}), 3, true)
function torch.multinomial(a1, a2, a3, a4, a5, a6)
  local res
  if is_tensor(a1) and (is_tensor(a2) or (is_gen(a2) and is_tensor(a3))) then
    res, a1, a2, a3, a4, a5 = a1, a2, a3, a4, a5, a6
  end
  local g, probs, n, replacement, extra = gen_and_args(a1, a2, a3, a4, a5)
  no_more('multinomial', extra)
  if not is_tensor(probs) then fail('multinomial', 'expected a tensor of weights, got %s', describe(probs)) end
  n = integer('multinomial', n, 'the number of samples')
  if replacement ~= nil and type(replacement) ~= 'boolean' then
    fail('multinomial', 'replacement must be a boolean, got %s', describe(replacement))
  end
  local repl = replacement and 1 or 0
  if res then
    check(C.tocha_multinomial_out(res.p, probs.p, g, n, repl, 1))
    return res
  end
  return wrap(C.tocha_multinomial(probs.p, g, n, repl, 1))
end
-- probs:multinomial([gen,] n) draws from probs; res:multinomial([gen,] probs, n) writes into res.
-- (The generator follows self, as in every method here; torch.multinomial takes it before probs.)
function methods.multinomial(x, a2, a3, ...)
  if is_gen(a2) and not is_tensor(a3) then return torch.multinomial(a2, x, a3, ...) end
  return torch.multinomial(x, a2, a3, ...)
end

--- torch.randperm([res,] [gen,] n [, typename]): a random permutation of 1..n (a LongTensor
--- unless res, or of the type typename names: Torch7's nn.StochasticGradient asks for
--- torch.randperm(n, 'torch.LongTensor')).
--- Example: torch.manualSeed(1); local p = torch.randperm(5)
function torch.randperm(a1, a2, a3, a4)
  local res
  if is_tensor(a1) then res, a1, a2, a3 = a1, a2, a3, a4 end
  local typename
  if type(a3) == 'string' then typename, a3 = a3, nil
  elseif a3 == nil and type(a2) == 'string' then typename, a2 = a2, nil end
  local g, n, extra = gen_and_args(a1, a2, a3)
  no_more('randperm', extra)
  n = integer('randperm', n, 'n')
  if res then
    if typename then lib.fail('randperm', 'got a result tensor and a type name (%s)', typename) end
    check(C.tocha_randperm_out(res.p, n, g, 1))
    return res
  end
  local p = wrap(C.tocha_randperm(n, g, lib.dtype.i64, 1))
  if typename then
    if not types.dtype_of_name[typename] then lib.fail('randperm', 'unknown tensor type %s', typename) end
    return p:type(typename)
  end
  return p
end
methods.randperm = torch.randperm

require 'torch.random_pytorch'  -- Note [PyTorch's sampling forms]
return torch
