-- Checks shared by the nn.models suites (test_vision_models.lua, test_vision_models_large.lua): a
-- model's sorted state-dict "key:shape" lines, the reference script's checksum of them, and the
-- comparison of a model's parameter count and keys with torchvision 0.14's.
-- Use: local V = dofile(dir .. '/helpers/vision_models_checks.lua'); V.checkKeys(tester, name, ref)
local V = {}

-- The sorted "key:shape" lines of model:stateDict() ('layer1.0.bn1.weight:64'), without
-- PyTorch's num_batches_tracked counters (Tocha's batch norms keep none; loadStateDict skips them).
function V.keyLines(model)
  local sd = model:stateDict()
  local ks = {}
  for k in pairs(sd) do ks[#ks + 1] = k end
  table.sort(ks)
  local lines = {}
  for i, k in ipairs(ks) do lines[i] = k .. ':' .. table.concat(sd[k]:size():totable(), 'x') end
  return lines, ks, sd
end

-- h = (31 h + byte) mod 1e9+7 over the lines joined by '\n' (exact in doubles; ref.py's checksum).
function V.checksum(lines)
  local s = table.concat(lines, '\n')
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 1000000007 end
  return h
end

-- A model's parameter count, key count, checksum, first and last line equal torchvision's
-- ref = {parameters, state-dict entries, checksum, first line, last line}.
function V.checkKeys(tester, name, ref)
  local m = nn.models[name]()
  tester:eq(m:numParameters(), ref[1], name .. ': number of parameters')
  local lines = V.keyLines(m)
  tester:eq(#lines, ref[2], name .. ': number of state-dict entries')
  tester:eq(lines[1], ref[4], name .. ': first key')
  tester:eq(lines[#lines], ref[5], name .. ': last key')
  tester:eq(V.checksum(lines), ref[3], name .. ': checksum of the key:shape lines')
end

return V
