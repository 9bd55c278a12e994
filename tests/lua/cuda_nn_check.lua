-- Helpers of the CUDA nn suites (test_cuda_nn*.lua, loaded with dofile): the GPU check, the dry
-- run that replaces :cuda() by CPU copies (TOCHA_CUDA_NN_DRYRUN=1 without a GPU, to check the
-- suites themselves on machines that cannot run them), CPU-vs-CUDA comparisons and check_op,
-- which compares an op's outputs and autograd gradients on both devices.
require 'nn'
local unpack = table.unpack or unpack
local M = { unpack = unpack }

local available = torch.cuda.isAvailable()
-- TOCHA_CUDA_NN_DRYRUN=1 runs the GPU tests with :cuda() replaced by a CPU copy, to check the
-- suite itself on a machine without a GPU (every comparison is then CPU against CPU).
local dry = os.getenv('TOCHA_CUDA_NN_DRYRUN') == '1' and not available
if dry then
  available = true
  local methods = torch.getmetatable('torch.FloatTensor')
  methods.cuda = function(t) return t:clone() end
  nn.Module.cuda = function(self) return self end
  nn.Criterion.cuda = function(self) return self end
  print('DRY RUN: :cuda() makes CPU copies')
elseif not available then
  print('SKIPPED: CUDA nn tests need a GPU (' .. torch.cuda.unavailableReason() .. ')')
end

local tol = { ['torch.FloatTensor'] = 2e-4, ['torch.DoubleTensor'] = 1e-10 }
local float_types = { 'torch.FloatTensor', 'torch.DoubleTensor' }

-- Largest difference relative to max(1, |cpu|); math.huge when a result is missing or misplaced.
local function max_err(cpu, gpu)
  if cpu == nil and gpu == nil then return 0 end  -- e.g. no gradient on either device
  if not torch.isTensor(cpu) or not torch.isTensor(gpu) then return math.huge end
  if (gpu:device() == 'cpu' and not dry) or cpu:nElement() ~= gpu:nElement() then return math.huge end
  local a, b = cpu:detach():double():contiguous():view(-1), gpu:detach():double():contiguous():view(-1)
  if a:nElement() == 0 then return 0 end
  local diff = (a - b):abs():cdiv(a:clone():abs():cmax(1))
  return diff:max()
end

local failures
local function expect(what, cpu, gpu, t)
  local e = max_err(cpu, gpu)
  if not (e <= t) then failures[#failures + 1] = string.format('%s: error %g (tolerance %g)', what, e, t) end
end

-- Runs f on CPU inputs and on their CUDA copies; compares the outputs and the gradients of
-- sum(out * g) (g random, the same on both) with respect to every input that is floating.
local function check_op_unprotected(what, tname, f, inputs, t)
  local function run(device)
    local leaves = {}
    for i, x in ipairs(inputs) do
      local v = x:clone()
      if device == 'cuda' then v = v:cuda() end
      if nn.utils.isFloating(v) then v:requiresGrad() end
      leaves[i] = v
    end
    local out = f(unpack(leaves))
    return out, leaves
  end
  local out_c, leaves_c = run('cpu')
  local out_g, leaves_g = run('cuda')
  expect(what .. ' ' .. tname .. ' forward', out_c, out_g, t)
  local g = out_c:detach():clone():uniform(-1, 1)
  torch.sum(torch.cmul(out_c, g)):backward()
  torch.sum(torch.cmul(out_g, g:cuda())):backward()
  for i, x in ipairs(leaves_c) do
    if nn.utils.isFloating(x) then
      expect(string.format('%s %s grad of input %d', what, tname, i), x.grad, leaves_g[i].grad, t * 10)
    end
  end
end

-- An error (a missing kernel, a device mix-up) becomes a failure, so later checks still run.
local function check_op(what, tname, f, inputs, t)
  local ok, err = pcall(check_op_unprotected, what, tname, f, inputs, t or tol[tname])
  if not ok then failures[#failures + 1] = string.format('%s %s: %s', what, tname, tostring(err)) end
end

local function rand(tname, ...) return torch.DoubleTensor(...):uniform(-1, 1):type(tname) end

-- The failures gathered by expect since the last M.start(); M.report(tester) asserts there are none.
function M.start() failures = {} end
-- Adds a failure message of the caller's own.
function M.fail(msg) failures[#failures + 1] = msg end
function M.report(tester) tester:asserteq(#failures, 0, table.concat(failures, '\n')) end

M.available, M.dry, M.tol, M.float_types = available, dry, tol, float_types
M.max_err, M.expect, M.check_op, M.rand = max_err, expect, check_op, rand
-- The suites return at once without a GPU, except in the dry run; the dry run with a GPU skips.
M.skip_all = os.getenv('TOCHA_CUDA_NN_DRYRUN') == '1' and torch.cuda.isAvailable()
if M.skip_all then print('SKIPPED: no dry run with a GPU present (the suite runs for real without TOCHA_CUDA_NN_DRYRUN)') end
return M
