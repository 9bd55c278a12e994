-- The TOCHA_TEST_DEVICE switch of the nn suites (tests/lua/test_nn_*.lua load this file with
-- dofile before anything else): unset or 'cpu', nothing changes. With TOCHA_TEST_DEVICE=cuda, every
-- module and criterion call a suite makes (forward and backward, the outermost call only:
-- containers' children run inside it) is replayed on the GPU: the module as it was just before
-- the call is copied, moved with :type('torch.Cuda...Tensor') (f64 stays f64), and run on the
-- call's inputs, targets and gradOutputs moved to the device; its output, gradInput and parameter
-- gradients must match the CPU's (relative tolerance per dtype), and a mismatch or a CUDA error
-- fails the running test case. The suites' own assertions keep checking the CPU results, so one
-- run checks both devices. Without a GPU the suite prints "SKIPPED: no CUDA device" and exits
-- (ctest reports it skipped). TOCHA_TEST_DEVICE_DRYRUN=1 without a GPU replays on CPU copies
-- instead (checks this file and replay_values.lua).
--
-- Each module instance replays its first few calls of each kind (Jacobian loops call forward
-- thousands of times); modules that draw random numbers are replayed but not compared (the CUDA
-- generator draws other numbers); a few classes are not replayed on their own (not_replayed), nor
-- are calls already on CUDA (Note [Calls already on CUDA]). A suite marks cases that cannot run
-- on CUDA with D.cpuOnly(tests, why, names...): they run on the CPU alone, and say so, under the
-- switch only.
local D = {}
D.device = os.getenv('TOCHA_TEST_DEVICE') or ''
if D.device == '' then D.device = 'cpu' end
D.on = D.device == 'cuda'
--- D.cpuOnly(tests, why, name...): the named cases run without CUDA replay (a no-op without the switch).
function D.cpuOnly() end
if D.device == 'cpu' then return D end
require 'nn'
if not D.on then error("TOCHA_TEST_DEVICE must be 'cpu' or 'cuda', got '" .. D.device .. "'") end

local unpack = table.unpack or unpack
local function pack(...) return { n = select('#', ...), ... } end
-- Errors raised inside a wrapped call name the suite's line, not this file's (torch._lib.user_level
-- skips library frames): this folder counts as a library.
torch._lib.add_library_root(debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.')

local dry = os.getenv('TOCHA_TEST_DEVICE_DRYRUN') == '1'
if dry and torch.cuda.isAvailable() then
  print('SKIPPED: no dry run with a GPU present (cuda.nn_* replay on the GPU itself)')
  io.stdout:flush()
  os.exit(0)
elseif not dry and not torch.cuda.isAvailable() then
  print('SKIPPED: no CUDA device for TOCHA_TEST_DEVICE=cuda (' .. torch.cuda.unavailableReason() .. ')')
  io.stdout:flush()
  os.exit(0)
elseif dry then
  print('DRY RUN: TOCHA_TEST_DEVICE=cuda replays on CPU copies')
end

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local V = dofile(here .. '/replay_values.lua')(dry)
local leaves, to_device, float_type, walk_modules = V.leaves, V.to_device, V.float_type, V.walk_modules
local max_err, grads_of, is_criterion, clone_args, device_args, on_device = V.max_err, V.grads_of,
  V.is_criterion, V.clone_args, V.device_args, V.on_device

-- Calls replayed per module instance and kind (forward, backward).
local PER_INSTANCE = 2
local cuda_type = {
  ['torch.FloatTensor'] = 'torch.CudaTensor', ['torch.DoubleTensor'] = 'torch.CudaDoubleTensor',
  ['torch.HalfTensor'] = 'torch.CudaHalfTensor', ['torch.BFloat16Tensor'] = 'torch.CudaBFloat16Tensor',
}
local tolerance = { ['torch.DoubleTensor'] = 1e-8, ['torch.FloatTensor'] = 1e-3 }
-- Classes whose forward draws random numbers (the dropouts' in training mode): replayed (so they
-- must run on CUDA) but not compared. A function tells from the module (as it was before the
-- call) and the call's input (nil inside a container) whether the call draws.
local random_classes = { ['nn.Dropout'] = true, ['nn.SpatialDropout'] = true, ['nn.VolumetricDropout'] = true,
                         ['nn.TemporalDropout'] = true, ['nn.RReLU'] = true,
  -- draws its pooling regions at each forward, unless they are fixed (:fixPoolingRegions()) and its
  -- samples fit the input's batch and plane counts
  ['nn.SpatialFractionalMaxPooling'] = function(m, input)
    local r = m.randomSamples
    if not (m.newRandomPool and torch.isTensor(r) and r:dim() == 3 and torch.isTensor(input)) then return true end
    local n = input:dim()
    return n < 3 or n > 4 or r:size(1) ~= (n == 4 and input:size(1) or 1) or r:size(2) ~= input:size(n - 2)
  end }
-- Classes whose calls are not replayed on their own, and why (inside a replayed container they are).
local not_replayed = {
  ['nn.DataParallelTable'] = 'places its replicas itself (test_cuda_data_parallel.lua runs it on GPUs)',
  ['nn.DistributedDataParallel'] = 'places its replicas itself (test_cuda_data_parallel.lua runs it on GPUs)',
  ['nn.SpatialMaxUnpooling'] = "reads the indices of its pooling module's last forward, which is not part of the call",
  ['nn.VolumetricMaxUnpooling'] = "reads the indices of its pooling module's last forward, which is not part of the call",
}

local stats = { calls = 0, classes = {}, random = {}, instrumented = {}, not_replayed = {}, on_device = {} }
local failures_out  -- the running test case's failure list (Tester.current_failures)
local case_name, case_cpu_only = nil, {}
local depth = 0
local replayed = setmetatable({}, { __mode = 'k' })

local function fail(msg)
  msg = '[TOCHA_TEST_DEVICE=cuda] ' .. msg
  if failures_out then failures_out[#failures_out + 1] = msg else error(msg, 0) end
end

-- Whether a call of m (as it was before the call) on input draws random numbers (dropout in
-- training mode, anywhere inside m).
local function draws_random(m, input)
  local yes = false
  walk_modules(m, function(x)
    local name = torch.typename(x)
    local random = random_classes[name]
    if random == nil then  -- subclasses draw as their parents do (nn.Dropout2d is a SpatialDropout)
      for cls, r in pairs(random_classes) do
        if torch.isTypeOf(x, cls) then random = r break end
      end
    end
    if type(random) == 'function' then random = random(x, x == m and input or nil) end
    if random or (x.train ~= false and type(x.dropout) == 'number' and x.dropout > 0) then
      yes = true
      stats.random[name or 'module'] = true
    end
  end)
  return yes
end

local function label(m, kind)
  return string.format('%s %s%s', tostring(m):match('^[^\n]*'), kind, case_name and (' in ' .. case_name) or '')
end

-- Replays one call on `twin` (a device copy of m as it was before the call) with the call's
-- arguments on the device (dargs, taken before the call: in-place modules change them), and
-- compares with the CPU's result. A module's backward replay first runs the twin's forward on the
-- inputs of m's last forward (fargs), so that its buffers are the device's own; a criterion's on
-- the backward's own (input, target) (crit(x, t) computes its loss without calling forward).
local function replay(kind, m, ftype, snapshot, cpu_result, dargs, fargs)
  local name = torch.typename(m) or 'module'
  -- The loosest tolerance of the types involved: the call's, its results' (nn.Copy converts) and
  -- the module's own tensors' (a buffer made under another default type rounds on the CPU).
  local tol = tolerance[ftype] or 2e-2
  for _, t in ipairs(leaves(cpu_result)) do tol = math.max(tol, tolerance[t:type()] or 0) end
  walk_modules(m, function(x)
    for _, v in pairs(x) do if torch.isTensor(v) then tol = math.max(tol, tolerance[v:type()] or 0) end end
  end)
  -- (a backward replay first runs the twin's forward on the last forward's input)
  local random = draws_random(snapshot, kind == 'forward' and dargs[1] or fargs and fargs[1])
  local rng = torch.getRNGState()
  local ok, err = pcall(function()
    -- The dry run converts too (to the CPU type itself), as :type does on the way to the GPU.
    local twin = snapshot:type(dry and ftype or cuda_type[ftype] or 'torch.CudaTensor')
    local function check(what, cpu, dev)
      for _, t in ipairs(dry and {} or leaves(dev)) do
        if not t:isCuda() then return fail(string.format('%s: the CUDA %s is on the CPU', label(m, kind), what)) end
      end
      local e = max_err(cpu, dev)
      if not (e <= tol) then
        fail(string.format('%s: CUDA %s differs from the CPU by %g (tolerance %g)', label(m, kind), what, e, tol))
      end
    end
    if kind == 'forward' then
      local out = twin:forward(unpack(dargs, 1, dargs.n))
      if not random then check('output', cpu_result, out) end
    else
      fargs = clone_args(is_criterion(m) and dargs or fargs)
      twin:forward(unpack(fargs, 1, fargs.n))
      local gi = twin:backward(unpack(dargs, 1, dargs.n))
      if not random then
        check('gradInput', cpu_result, gi)
        local gc, gg = grads_of(m), grads_of(twin)
        for i = 1, #gc do check('gradient of parameter ' .. i, gc[i], gg[i]) end
      end
    end
  end)
  torch.setRNGState(rng)
  if not ok then fail(string.format('%s on CUDA failed: %s', label(m, kind), tostring(err))) end
  stats.calls = stats.calls + 1
  stats.classes[name] = true
end

-- Modules with methods set on the instance (nn.utils.summary's hooks, a test's stubs) are not
-- replayed: a copy would run the hooks too.
local function instrumented(m)
  local yes = false
  walk_modules(m, function(x)
    for _, v in pairs(x) do if type(v) == 'function' then yes = true end end
  end)
  if yes then stats.instrumented[torch.typename(m) or 'module'] = true end
  return yes
end

-- Whether calls of m may be replayed at all (outermost calls inside a test case).
local function replayable(m)
  if depth > 0 or failures_out == nil or case_cpu_only[case_name] then return false end
  local why = not_replayed[torch.typename(m)]
  if why then stats.not_replayed[torch.typename(m)] = why end
  return not why
end

-- Note [Calls already on CUDA]: a suite's own CUDA check (m:cuda() then m:forward(x:cuda())) is
-- not replayed: it has no CPU result to compare with, and the replay would pick the twin's type
-- from a CPU name (a CudaDoubleTensor module became a float32 twin fed f64 inputs: "[addmm] mat1
-- is a torch.DoubleTensor but mat2 is a torch.FloatTensor" on the GPU).
local function already_on_device(m, ...)
  if not on_device(m, pack(...)) then return false end
  stats.on_device[torch.typename(m) or 'module'] = true
  return true
end

-- Takes one of the instance's replays of `kind`, if any is left.
local function take(m, kind)
  local r = replayed[m]
  if not r then r = {}; replayed[m] = r end
  if (r[kind] or 0) >= PER_INSTANCE then return false end
  r[kind] = (r[kind] or 0) + 1
  return true
end
local function backward_left(m)
  local r = replayed[m]
  return not r or (r.backward or 0) < PER_INSTANCE
end

local last_forward = setmetatable({}, { __mode = 'k' })  -- module -> its last forward's device args

-- Wraps method `kind` of a class table: the CPU call, then its replay.
local function wrap(cls, kind)
  local orig = rawget(cls, kind)
  if type(orig) ~= 'function' then return end
  cls[kind] = function(m, ...)
    local go, snapshot, dargs, fargs = false, nil, nil, nil
    local can = replayable(m) and not instrumented(m) and not already_on_device(m, ...)
    if kind == 'forward' then  -- a backward replay needs the inputs of the last forward
      last_forward[m] = nil
      if can and backward_left(m) then
        dargs = device_args(...)
        last_forward[m] = dargs
      end
    end
    if can then
      fargs = last_forward[m]
      go = (kind == 'forward' or fargs ~= nil or is_criterion(m)) and take(m, kind)
      if go then
        local ok, copy = pcall(m.clone, m)
        if ok then snapshot = copy else
          fail(label(m, kind) .. ': the module cannot be copied: ' .. tostring(copy))
          go = false
        end
        dargs = kind == 'forward' and clone_args(dargs or device_args(...)) or device_args(...)
      end
    end
    depth = depth + 1
    local res = pack(pcall(orig, m, ...))
    depth = depth - 1
    if not res[1] then error(res[2], 0) end
    if go then
      depth = depth + 1
      replay(kind, m, float_type(m, (...)), snapshot, res[2], dargs, fargs)
      depth = depth - 1
    end
    return unpack(res, 2, res.n)
  end
end

-- Every nn class that defines its own forward or backward (Module and Criterion included).
local seen = {}
for _, ctor in pairs(nn) do
  local ok, name = pcall(function() return tostring(ctor) end)
  if ok and type(ctor) == 'table' and name:match('^nn%.') then
    local mt = torch.getmetatable(name)
    if mt and not seen[mt] then
      seen[mt] = true
      wrap(mt, 'forward')
      wrap(mt, 'backward')
    end
  end
end

-- Tester:run attributes replay failures to the running case and prints a summary.
local Tester = getmetatable(torch.Tester())
local run = Tester.run
local case_wrappers = setmetatable({}, { __mode = 'k' })
function Tester:run(...)
  for name, fn in pairs(self.tests) do
    if not case_wrappers[fn] then
      local wrapped = function(...)
        case_name, failures_out = name, self.current_failures
        if case_cpu_only[name] then
          print('not run on CUDA (TOCHA_TEST_DEVICE=cuda): ' .. name .. ': ' .. case_cpu_only[name])
        end
        depth = 0  -- a case may end in an error raised inside a module call
        local r = pack(fn(...))  -- no pcall: the tester's traceback stays the case's own
        case_name, failures_out = nil, nil
        return unpack(r, 1, r.n)
      end
      case_wrappers[wrapped] = true
      self.tests[name] = wrapped
    end
  end
  local function summary()
    local classes, random = {}, {}
    for k in pairs(stats.classes) do classes[#classes + 1] = k end
    for k in pairs(stats.random) do random[#random + 1] = k end
    table.sort(classes)
    table.sort(random)
    print(string.format('TOCHA_TEST_DEVICE=cuda: %d calls of %d classes replayed on %s and compared with the CPU',
                        stats.calls, #classes, dry and 'CPU copies (dry run)' or 'CUDA'))
    if #random > 0 then print('  run but not compared (random draws): ' .. table.concat(random, ', ')) end
    local hooked = {}
    for k in pairs(stats.instrumented) do hooked[#hooked + 1] = k end
    table.sort(hooked)
    if #hooked > 0 then print('  not replayed (methods set on the instance): ' .. table.concat(hooked, ', ')) end
    local dev = {}
    for k in pairs(stats.on_device) do dev[#dev + 1] = k end
    table.sort(dev)
    if #dev > 0 then print('  not replayed (the call was on CUDA already): ' .. table.concat(dev, ', ')) end
    for k, why in pairs(stats.not_replayed) do print('  not replayed alone: ' .. k .. ': ' .. why) end
  end
  local ok, err = pcall(run, self, ...)
  summary()
  if not ok then error(err, 0) end
end

function D.cpuOnly(tests, why, ...)
  for _, name in ipairs({ ... }) do
    assert(tests[name], 'D.cpuOnly: no test case ' .. tostring(name))
    case_cpu_only[name] = why
  end
end

return D
