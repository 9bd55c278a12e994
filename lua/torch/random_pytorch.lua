-- PyTorch's forms of torch.normal and torch.bernoulli, beside Torch7's (lua/torch/random.lua).
--
-- Note [PyTorch's sampling forms]: Torch7's torch.normal(x, mean, std) and torch.bernoulli(x, p)
-- fill x in place; PyTorch's torch.normal(meanTensor, std) and torch.bernoulli(probs) draw a new
-- tensor whose elements have those means or probabilities. Taken as Torch7's fill, a PyTorch
-- call silently overwrote the user's means or probabilities with N(std, 1) or Bernoulli(0.5)
-- draws. DESIGN.md's contract (torch.f(x) returns a new tensor) settles the forms where the two
-- read differently:
--   torch.bernoulli(probs)            new tensor of Bernoulli(probs) draws; probs untouched
--   torch.normal(mean)                new tensor, N(mean, 1)
--   torch.normal(mean, std)           new tensor, N(mean, std): mean or std (or both) a tensor,
--                                     broadcast together
--   torch.normal(mean, std, size)     numbers and a size: a new tensor of the default type
-- Gradients are PyTorch's: a draw from mean or std (or probs) that require grad requires grad
-- too, and they get zero gradients from it (derivatives.yaml: normal and bernoulli give
-- zeros_like). It is not reparameterized (torch.distributions.Normal:rsample is): code ported
-- from PyTorch that scores its own draws (REINFORCE: logProb(torch.normal(mu, sigma))) would
-- otherwise differentiate through the draw and get a wrong gradient for mu and sigma.
-- Torch7's unambiguous forms stay: torch.normal(x, mean, std) and torch.bernoulli(x, p) fill x,
-- and without a tensor they draw one number.
local torch = require 'torch.env'
local types = require 'torch.types'
local lib = require 'torch.lib'

local is_tensor, describe = types.is_tensor, types.describe
local function fail(op, fmt, ...) error(string.format('[%s] ' .. fmt, op, ...), 3) end

-- The generator object (or nil) and the arguments after it.
local function split_gen(a1, ...)
  if a1 ~= nil and torch._gen_and_args(a1) ~= nil then return a1, ... end
  return nil, a1, ...
end

-- By dtype, not type name: a CUDA f32 tensor is a 'torch.CudaTensor' (no 'Float' in it), so
-- torch.normal(cudaMeans, 1) and torch.bernoulli(cudaProbs) were refused as not floating.
local FLOATING = { [lib.dtype.f32] = true, [lib.dtype.f64] = true, [lib.dtype.f16] = true, [lib.dtype.bf16] = true }
local function floating(op, what, t)
  if not FLOATING[tonumber(t.p.dtype)] then
    error(string.format('[%s] %s must be a floating tensor, got %s', op, what, describe(t)), 4)
  end
end

-- out (drawn without a graph) requires grad when one of the tensors `from` does, and gives each
-- zero gradients (PyTorch's derivative of normal and bernoulli).
local function zero_backward(entry)
  local g = {}
  for i, t in ipairs(entry.inputs) do g[i] = t.new(t:size()):zero() end
  return g
end
local function zero_grad_node(op, out, from)
  local inputs = {}
  for _, t in ipairs(from) do if t:needsGrad() then inputs[#inputs + 1] = t end end
  if #inputs == 0 or not torch.isGradEnabled() then return out end
  -- one shared backward function, no closure per call (DESIGN.md decision 5)
  torch.autograd._record_lua_node({ label = op, backward = zero_backward, inputs = inputs }, inputs, { out })
  return out
end

-- A tensor like ref (type and device) of the given size, filled with N(0, 1) from gen.
local function standard_normal(ref, size, gen)
  local eps = ref.new(size)
  if gen then eps:normal(gen, 0, 1) else eps:normal(0, 1) end
  return eps
end

local torch7_normal = torch.normal
--- torch.normal([gen,] mean, std[, size]): PyTorch's forms (Note [PyTorch's sampling forms]): a
--- new tensor drawn from N(mean, std) where mean or std (or both) is a tensor, broadcast together
--- (std 1 when only a mean tensor is given), with zero gradients for both (PyTorch's; use torch.distributions.Normal:rsample to differentiate a draw); with two numbers and a size,
--- a new tensor of that size. Torch7's forms still work: torch.normal([gen,] [mean, std]) draws a
--- number and torch.normal([gen,] x, mean, std) fills the floating tensor x in place.
--- Example: torch.normal(torch.Tensor({0, 10, 100}), 0.1)
function torch.normal(...)
  local gen, a1, a2, a3, a4 = split_gen(...)
  local op = 'normal'
  local mean_t, std_t = is_tensor(a1), is_tensor(a2)
  if (mean_t and a3 == nil) or std_t then
    if a3 ~= nil then fail(op, 'too many arguments for normal(mean, std) with a tensor (unexpected %s)', describe(a3)) end
    if mean_t then floating(op, 'mean', a1) elseif type(a1) ~= 'number' then
      fail(op, 'mean must be a number or a tensor, got %s', describe(a1))
    end
    if std_t then floating(op, 'std', a2) elseif a2 == nil then a2 = 1 elseif type(a2) ~= 'number' then
      fail(op, 'std must be a number or a tensor, got %s', describe(a2))
    end
    if mean_t and std_t and torch.type(a1) ~= torch.type(a2) then
      fail(op, 'mean and std must have the same type, got %s and %s', describe(a1), describe(a2))
    end
    if std_t then
      -- (ge, not lt: a NaN deviation is refused too, as PyTorch's check)
      if a2:nElement() > 0 and not torch.noGrad(function() return torch.ge(a2, 0):all() end) then
        fail(op, 'std must be >= 0, got a negative (or NaN) element in %s', describe(a2))
      end
    elseif not (a2 >= 0) then fail(op, 'std must be >= 0, got %s', tostring(a2)) end
    local ref = mean_t and a1 or a2
    local size = ref:size()
    if mean_t and std_t then
      local ok, s = pcall(torch.broadcastShapes, a1:size(), a2:size())
      if not ok then fail(op, 'mean %s and std %s do not broadcast', describe(a1), describe(a2)) end
      size = s
    end
    local eps = standard_normal(ref, size, gen)
    torch.noGrad(function()
      if std_t then eps:cmul(a2:expand(size)) else eps:mul(a2) end
      if mean_t then eps:add(a1:expand(size)) else eps:add(a1) end
    end)
    local from = {}
    if mean_t then from[#from + 1] = a1 end
    if std_t then from[#from + 1] = a2 end
    return zero_grad_node(op, eps, from)
  end
  if type(a1) == 'number' and type(a2) == 'number' and a3 ~= nil and not is_tensor(a3) then
    if a4 ~= nil then fail(op, 'too many arguments (unexpected %s)', describe(a4)) end
    if type(a3) ~= 'table' and torch.type(a3) ~= 'torch.LongStorage' then
      fail(op, 'size must be a table or a LongStorage, got %s', describe(a3))
    end
    if not (a2 >= 0) then fail(op, 'std must be >= 0, got %s', tostring(a2)) end
    local list = torch.type(a3) == 'torch.LongStorage' and a3:totable() or a3
    for d, n in ipairs(list) do
      if type(n) ~= 'number' or n < 0 or n % 1 ~= 0 then
        fail(op, 'size must hold non-negative integers, got %s at position %d', tostring(n), d)
      end
    end
    -- a table with other keys ({dtype = ...}) is no size: ipairs saw none of them and it gave a
    -- tensor of the default type with the size of its list part (0-dim for {dtype = ...} alone)
    for k in pairs(list) do
      if type(k) ~= 'number' or k < 1 or k > #list or k % 1 ~= 0 then
        fail(op, 'size must be a list of non-negative integers, got a table with key %s', tostring(k))
      end
    end
    local size = torch.type(a3) == 'torch.LongStorage' and a3 or torch.LongStorage(a3)
    local eps = standard_normal(torch.Tensor(), size, gen)
    return eps:mul(a2):add(a1)
  end
  if gen then return torch7_normal(gen, a1, a2, a3, a4) end
  return torch7_normal(a1, a2, a3, a4)
end

local torch7_bernoulli = torch.bernoulli
--- torch.bernoulli([gen,] probs): PyTorch's form (Note [PyTorch's sampling forms]): a new tensor
--- like probs (floating, values in [0, 1]) holding 1 with probability probs[i], else 0; probs is
--- not changed. Torch7's forms still work: torch.bernoulli([gen,] [p]) draws a number and
--- torch.bernoulli([gen,] x, p) fills x in place (p a number or a tensor of probabilities).
--- Example: torch.bernoulli(torch.Tensor({0, 0.5, 1}))
function torch.bernoulli(...)
  local gen, a1, a2 = split_gen(...)
  if is_tensor(a1) and a2 == nil then
    floating('bernoulli', 'probs', a1)
    local out = a1.new(a1:size())
    torch.noGrad(function()
      if gen then out:bernoulli(gen, a1) else out:bernoulli(a1) end
    end)
    return zero_grad_node('bernoulli', out, { a1 })
  end
  return torch7_bernoulli(...)
end

return torch
