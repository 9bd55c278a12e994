-- The values side of the TOCHA_TEST_DEVICE replay (nn_device.lua): results flattened to their
-- tensors, arguments moved to the device or cloned, the call's floating type, modules walked, and
-- CPU-vs-device differences. Load with dofile(<this file>)(dry): dry moves "to the device" by
-- cloning on the CPU (TOCHA_TEST_DEVICE_DRYRUN).
return function(dry)
  local unpack = table.unpack or unpack
  local function pack(...) return { n = select('#', ...), ... } end

  -- The tensors of a (nested) result, from the nn suites' shared checks.
  local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
  local leaves = dofile(here .. '/../fixtures/nn_checks.lua').leaves

  -- x with every tensor moved to the device (its dtype kept), detached from autograd.
  local function to_device(x)
    if torch.isTensor(x) then
      local d = x:detach()
      return dry and d:clone() or d:to('cuda')
    elseif type(x) == 'table' and getmetatable(x) == nil then
      local r = {}
      for k, v in pairs(x) do r[k] = to_device(v) end
      return r
    end
    return x
  end

  -- By dtype, not class name (a CUDA float32 tensor is a 'torch.CudaTensor').
  local function is_floating(t) return t:isFloatingPoint() end

  -- Whether a call already runs on CUDA: a tensor argument (args: packed) or m's first parameter
  -- is on the device. Such a call (a suite's own device check) is not replayed: there is no CPU
  -- result to compare with, and float_type's names are the CPU's.
  local function on_device(m, args)
    for i = 1, args.n do
      for _, t in ipairs(leaves(args[i])) do if t:isCuda() then return true end end
    end
    local params = m.parameters and m:parameters()
    return params ~= nil and params[1] ~= nil and params[1]:isCuda()
  end

  -- The CPU floating type of a call (its CPU arguments): the first floating input, else the first
  -- parameter. The twin gets its CUDA twin type (f64 stays f64).
  local function float_type(m, input)
    for _, t in ipairs(leaves(input)) do if is_floating(t) then return t:type() end end
    if m.parameters then
      local params = m:parameters()
      if params and params[1] then return params[1]:type() end
    end
    return torch.getdefaulttensortype()
  end

  local function walk_modules(m, fn, seen)
    seen = seen or {}
    if type(m) ~= 'table' or seen[m] then return end
    seen[m] = true
    fn(m)
    for _, v in pairs(m) do
      if type(v) == 'table' then
        if torch.typename(v) and torch.typename(v):match('^nn%.') then walk_modules(v, fn, seen)
        elseif getmetatable(v) == nil then for _, w in pairs(v) do walk_modules(w, fn, seen) end end
      end
    end
  end

  -- Largest |a - b| / max(1, |a|) over the leaves of two results (math.huge if they differ in shape).
  local function max_err(cpu, gpu)
    if type(cpu) == 'number' or type(gpu) == 'number' then
      if type(cpu) ~= 'number' or type(gpu) ~= 'number' then return math.huge end
      return math.abs(cpu - gpu) / math.max(1, math.abs(cpu))
    end
    local a, b = leaves(cpu), leaves(gpu)
    if #a ~= #b then return math.huge end
    local worst = 0
    for i = 1, #a do
      if a[i]:nElement() ~= b[i]:nElement() then return math.huge end
      if a[i]:nElement() > 0 then
        local x = a[i]:detach():double():contiguous():view(-1)
        local y = (dry and b[i] or b[i]:detach():to('cpu')):double():contiguous():view(-1)
        local e = torch.noGrad(function() return (x - y):abs():cdiv(x:clone():abs():cmax(1)):max() end)
        if e ~= e then e = (x:ne(x):sum() == y:ne(y):sum()) and 0 or math.huge end  -- NaNs in both
        worst = math.max(worst, e)
      end
    end
    return worst
  end

  local function grads_of(m)
    if not m.parameters then return {} end
    local _, g = m:parameters()
    local r = {}
    for i, t in ipairs(g or {}) do r[i] = t:detach():clone() end
    return r
  end

  local criterion_mt = torch.getmetatable('nn.Criterion')
  local function is_criterion(m)
    local mt = getmetatable(m)
    while mt do
      if mt == criterion_mt then return true end
      mt = rawget(mt, '__parent')
    end
    return false
  end

  -- A copy of the call's arguments with every tensor cloned (a twin may work on them in place).
  local function clone_args(args)
    local r = { n = args.n }
    local function c(x)
      if torch.isTensor(x) then return x:clone() end
      if type(x) == 'table' and getmetatable(x) == nil then
        local t = {}
        for k, v in pairs(x) do t[k] = c(v) end
        return t
      end
      return x
    end
    for i = 1, args.n do r[i] = c(args[i]) end
    return r
  end

  local function device_args(...)
    local args = pack(...)
    for i = 1, args.n do args[i] = to_device(args[i]) end
    return args
  end


  return {
    leaves = leaves, to_device = to_device, is_floating = is_floating, float_type = float_type,
    walk_modules = walk_modules, max_err = max_err, grads_of = grads_of, is_criterion = is_criterion,
    clone_args = clone_args, device_args = device_args, on_device = on_device, pack = pack, unpack = unpack,
  }
end
