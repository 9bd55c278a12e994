-- Survey for Note [Submodules in fields] (nn/field_children.lua): every nn class that can be built
-- from a few simple constructor calls answers parameters(), stateDict(), namedModules(),
-- listModules() and evaluate() exactly as it does with the field-children walk switched off, so no
-- existing class changed. It also pins the classes that hold modules in plain fields and would
-- change if lua/nn's classes were not exempt, the reason for the exemption.
require 'nn'
local FC = require 'nn.field_children'
local tester = torch.Tester()
local tests = torch.TestSuite()
local unpack = table.unpack or unpack

local skip = { DistributedDataParallel = true, DataParallelTable = true, Trainer = true }

-- The nn.Module classes, as tests/lua/test_fuzz_nn.lua enumerates them.
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

local function arg_sets()
  return { {}, { 3 }, { 3, 4 }, { 3, 4, 2 }, { 3, 4, 3, 3 }, { 2, 3, 3, 3, 1, 1 }, { 4, 2 }, { 4, 2, { dropout = 0 } },
           { 3, 4, 5 }, { 0.5 }, { torch.randn(3, 3) }, { nn.Linear(3, 3) }, { nn.Linear(3, 3), 2 } }
end

-- Classes the argument sets cannot build.
local function special()
  return {
    GroupNormalization = { 2, 4 }, GroupNorm = { 2, 4 }, Unflatten = { 2, { 2, 2 } }, Upsample = { { scaleFactor = 2 } },
    SpatialMaxUnpooling = { nn.SpatialMaxPooling(2, 2) }, VolumetricMaxUnpooling = { nn.VolumetricMaxPooling(2, 2, 2) },
    TransformerEncoder = { nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 8 }), 2, nn.LayerNormalization(4) },
    TransformerDecoder = { nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 8 }), 2 },
    SpatialConvolutionMap = { nn.tables.full(2, 3), 3, 3 }, SpatialFullConvolutionMap = { nn.tables.full(2, 3), 3, 3 },
  }
end

-- Every instance built from the argument sets, with its class name.
local function instances()
  local out, extra = {}, special()
  for _, name in ipairs(module_classes()) do
    if extra[name] then out[#out + 1] = { name, nn[name](unpack(extra[name], 1, table.maxn(extra[name]))) } end
    for _, args in ipairs(arg_sets()) do
      local ok, m = pcall(function() return nn[name](unpack(args, 1, table.maxn(args))) end)
      if ok and type(m) == 'table' and torch.isTypeOf(m, 'nn.Module') then out[#out + 1] = { name, m } end
    end
  end
  return out
end

-- Every module reachable from m through any table field (what a mode switch could reach).
local function reachable(m, seen, list)
  seen, list = seen or {}, list or {}
  if seen[m] then return list end
  seen[m] = true
  if torch.isTypeOf(m, 'nn.Module') then list[#list + 1] = m end
  for _, v in pairs(m) do
    if type(v) == 'table' and not torch.isTensor(v) then
      reachable(v, seen, list)
    end
  end
  return list
end

-- What the walks answer for m, as one string.
local function summary(m)
  local parts = {}
  local params = m:parameters()
  parts[#parts + 1] = 'params=' .. (params and #params or 'nil')
  local keys = {}
  for k in pairs(m:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  parts[#parts + 1] = 'state=' .. table.concat(keys, ',')
  local names = {}
  for n in m:namedModules() do names[#names + 1] = n end
  parts[#parts + 1] = 'modules=' .. table.concat(names, ',')
  parts[#parts + 1] = 'list=' .. #m:listModules()
  local all = reachable(m)
  for _, x in ipairs(all) do x.train = true end
  m:evaluate()
  local flags = {}
  for i, x in ipairs(all) do flags[i] = tostring(x.train) end
  parts[#parts + 1] = 'train=' .. table.concat(flags, '')
  m:training()
  return table.concat(parts, ' | ')
end

local function compare()
  local changed, n, classes, answered = {}, 0, {}, 0
  for _, e in ipairs(instances()) do
    local name, m = e[1], e[2]
    local ok_on, on = pcall(summary, m)
    FC.enabled = false
    local ok_off, off = pcall(summary, m)
    FC.enabled = true
    if ok_on ~= ok_off or on ~= off then changed[name] = true end
    if ok_off then answered = answered + 1 end
    n = n + 1
    classes[name] = true
  end
  return changed, n, classes, answered
end

function tests.noBuiltinClassChanges()
  local changed, n, classes, answered = compare()
  local names = {}
  for k in pairs(changed) do names[#names + 1] = k end
  table.sort(names)
  local count = 0
  for _ in pairs(classes) do count = count + 1 end
  tester:assert(count > 200 and n > 1000, string.format('the survey builds most classes (%d classes, %d instances)', count, n))
  tester:assert(answered > n * 0.9, string.format('the walks answer on most instances (%d of %d)', answered, n))
  print(string.format('\n  %d classes, %d instances, %d answered', count, n, answered))
  tester:asserteq(#names, 0, 'classes whose walks changed: ' .. table.concat(names, ', '))
end

-- Without the exemption of lua/nn's classes, these would change: they keep helper modules in
-- plain fields under their own rules (Note [Submodules in fields]).
function tests.exemptionProtectsTheseClasses()
  FC.exemptBuiltins = false
  local ok, changed = pcall(compare)
  FC.exemptBuiltins = true
  tester:assert(ok, tostring(changed))
  local names = {}
  for k in pairs(changed) do names[#names + 1] = k end
  table.sort(names)
  -- SpatialContrastiveNormalization holds its normalizer (an nn.Sequential) and the max unpoolings
  -- their pooling module in fields; ReLU and SelectTable appear only because the survey hands them
  -- a module as their inplace flag and index
  tester:asserteq(table.concat(names, ', '),
    'ReLU, SelectTable, SpatialContrastiveNormalization, SpatialMaxUnpooling, VolumetricMaxUnpooling')
end

tester:add(tests)
tester:run()
