-- Random nn modules built from random constructor arguments, then run forward and backward on
-- random inputs (tensors of many shapes and types, tables, numbers, strings, booleans): each call
-- must return or raise a Lua error with a message, and the process must never crash (DESIGN.md
-- decision 8), the nn half of test_fuzz.lua. The seed is fixed so a failure reproduces;
-- TOCHA_FUZZ_SEED and TOCHA_FUZZ_CALLS explore further.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local unpack = table.unpack or unpack

local seed = tonumber(os.getenv('TOCHA_FUZZ_SEED') or '1')
local ncalls = tonumber(os.getenv('TOCHA_FUZZ_CALLS') or '2000')

-- Containers of other processes' replicas, and the trainer (which runs whole loops), are left out.
local skip = { DistributedDataParallel = true, DataParallelTable = true, Trainer = true }

local function module_classes()
  local list = {}
  for name, v in pairs(nn) do
    if type(v) == 'table' and not skip[name] and (rawget(v, 'updateOutput') ~= nil or v.__typename) then
      list[#list + 1] = name
    end
  end
  table.sort(list)
  return list
end

-- Constructor arguments and inputs. Sizes stay small or are absurd enough to be refused at once
-- (2^62): a size like 1e9 is a legitimate request for gigabytes.
local function values()
  return { 0, 1, 2, 3, 5, -1, 0.5, 2 ^ 62, -2 ^ 62, 0 / 0, true, false, 'x', {}, { 1, 2 },
    torch.randn(2, 3), torch.randn(4), torch.randn(2, 3, 4, 5), torch.randn(1, 1, 6, 6), torch.LongTensor({ 1, 2 }),
    torch.LongTensor({ 0, 9 }), torch.randn(3, 2, 7), torch.Tensor(), torch.randn(0, 3), torch.ByteTensor(2, 3),
    { torch.randn(2, 3), torch.randn(2, 3) }, torch.randn(2, 3, 4, 5, 6), torch.DoubleTensor(3, 3):fill(1) }
end

function tests.randomModulesAndInputsNeverCrash()
  local rng = torch.Generator()
  torch.manualSeed(rng, seed)
  local function pick(list) return list[torch.random(rng, 1, #list)] end
  local classes = module_classes()
  local made, forwards, backwards, bad = 0, 0, 0, {}
  local function check_error(ok, err, what)
    if not ok and (type(err) ~= 'string' or #err == 0) then bad[#bad + 1] = what .. ': ' .. tostring(err) end
  end
  for i = 1, ncalls do
    local name, pool = pick(classes), values()
    local args = {}
    for k = 1, torch.random(rng, 0, 4) do args[k] = pick(pool) end
    local ok, m = pcall(function() return nn[name](unpack(args, 1, table.maxn(args))) end)
    check_error(ok, m, 'nn.' .. name)
    if ok and type(m) == 'table' and m.forward then
      made = made + 1
      for _ = 1, 3 do
        local x, y = pick(pool), pick(pool)
        local okf, out = pcall(function() return m:forward(x, y) end)
        check_error(okf, out, 'nn.' .. name .. ':forward')
        if okf then
          forwards = forwards + 1
          local g = torch.isTensor(out) and out:clone():fill(1) or pick(pool)
          local okb, err = pcall(function() return m:backward(x, g, y) end)
          check_error(okb, err, 'nn.' .. name .. ':backward')
          if okb then backwards = backwards + 1 end
          -- Torch7's separate calls (autograd-only modules answer them by a replay)
          local oku, erru = pcall(function() return m:updateGradInput(x, g, y) end)
          check_error(oku, erru, 'nn.' .. name .. ':updateGradInput')
          if m.accGradParameters then
            local oka, erra = pcall(function() return m:accGradParameters(x, g, 1) end)
            check_error(oka, erra, 'nn.' .. name .. ':accGradParameters')
          end
        end
      end
    end
    if i % 200 == 0 then collectgarbage() end
  end
  tester:asserteq(#bad, 0, table.concat(bad, '\n'))
  tester:assert(made > ncalls / 4 and forwards > 0 and backwards > 0, 'enough calls get through to exercise modules')
  print(string.format('\n  %d constructions over %d classes: %d modules, %d forwards, %d backwards', ncalls, #classes,
    made, forwards, backwards))
end

tester:add(tests)
tester:run()
