-- Checks shared by the nn.models suites (test_vision_models.lua, test_vision_models_large.lua): a
-- model's sorted state-dict "key:shape" lines, the reference script's checksum of them, and the
-- comparison of a model's parameter count and keys with torchvision 0.14's, and ref.py's deterministic fill
-- of every parameter and buffer (wave, fill, input; also test_models_norm_regressions.lua).
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

-- ---- ref.py's deterministic fill and input ----------------------------------------------------

-- sin(a j + b), j = (7919 i) mod 10007, in doubles (one period computed and tiled).
function V.wave(n, a, b)
  local m = math.min(n, 10007)
  local j = torch.range(torch.DoubleTensor(), 0, m - 1):mul(7919):fmod(10007)
  local period = torch.sin(j:mul(a):add(b))
  if n == m then return period end
  local reps = math.ceil(n / m)
  return period:view(1, m):expand(reps, m):contiguous():view(reps * m):narrow(1, 1, n)
end

-- Note: the scaling is done in doubles and rounded to float once, as ref.py's `v.float()`
-- (scaling in float gave 1-ulp differences, which the float64 train-mode checks of
-- test_models_norm_regressions.lua would see through its 2-sample batch norms).
function V.fill(model)
  local _, ks, sd = V.keyLines(model)
  torch.noGrad(function()
    for idx, k in ipairs(ks) do
      local t = sd[k]
      local n = t:nElement()
      local s = V.wave(n, 0.37, 1.3 * (idx - 1))
      if k:match('running_var$') then s:mul(0.25):add(0.75)
      elseif k:match('running_mean$') then s:mul(0.01)
      elseif t:dim() >= 2 then s:mul(2 / math.sqrt(n / t:size(1)))
      elseif k:match('weight$') then s:mul(0.1):add(1)
      elseif sd[k:sub(1, -5) .. 'running_mean'] then s:mul(0.01)
      else s:mul(0.001) end
      t:copy(s:float():contiguous():viewAs(t))
    end
  end)
  return model
end

function V.input(n, c, h, w) return V.wave(n * c * h * w, 0.11, 0.5):float():contiguous():view(n, c, h, w) end

return V
