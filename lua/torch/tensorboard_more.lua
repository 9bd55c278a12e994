-- The rest of PyTorch's SummaryWriter (lua/torch/tensorboard.lua owns the writer, scalars,
-- histograms, images and text): hyperparameters (the HParams plugin), precision-recall curves,
-- embeddings for the projector, audio and image batches, each written as PyTorch 1.13 writes it.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local pb = require 'torch.tensorboard_proto'
local utf8_ok = require('torch.safetensors_json').is_utf8
local fail = lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local floor, concat = math.floor, table.concat

local M = torch.utils.tensorboard
local SummaryWriter = M.SummaryWriter
local I = M._internals
local CLASS = 'tensorboard.SummaryWriter'

local function check_table(op, what, t)
  if type(t) ~= 'table' or is_tensor(t) then fail(op, '%s must be a table, got %s', what, describe(t)) end
end

local function check_opts(op, opts, known)
  if opts == nil then return {} end
  check_table(op, 'options', opts)
  for k in pairs(opts) do
    if not known[k] then
      local names = {}
      for n in pairs(known) do names[#names + 1] = n end
      table.sort(names)
      fail(op, 'unknown option %s (expected %s)', tostring(k), concat(names, ', '))
    end
  end
  return opts
end

local function sorted_keys(op, what, t)
  local keys = {}
  for k in pairs(t) do
    if type(k) ~= 'string' or k == '' then fail(op, '%s must be keyed by names (strings), got key %s', what, describe(k)) end
    -- protobuf string fields (Note [Tags are UTF-8] in lua/torch/tensorboard.lua)
    if not utf8_ok(k) then fail(op, '%s must be keyed by valid UTF-8 names, got %q', what, k) end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  return keys
end

-- A CPU double copy of a tensor (or a Lua list of numbers), detached.
local function cpu_doubles(op, what, v)
  if type(v) == 'table' and not is_tensor(v) then
    local ok, t = pcall(torch.DoubleTensor, v)
    if not ok then fail(op, '%s must be a tensor or a list of numbers, got a table that is not one', what) end
    return t
  end
  if not is_tensor(v) then fail(op, '%s must be a tensor, got %s', what, describe(v)) end
  local x = v:detach()
  if x:isCuda() then x = x:cpu() end
  return x:double()
end

-- ---- Hyperparameters -------------------------------------------------------------------------------

-- The HParams plugin's messages (tensorboard/plugins/hparams/api.proto, plugin_data.proto) and
-- google.protobuf.Value: number_value 2, string_value 3, bool_value 4; ListValue: values 1.
local DATA_TYPE = { number = 3, string = 1, boolean = 2 }   -- DATA_TYPE_FLOAT64, _STRING, _BOOL
local STATUS_SUCCESS = 1

local function struct_value(v)
  if type(v) == 'number' then return pb.double(2, v, true) end
  if type(v) == 'string' then return pb.bytes(3, v, true) end
  return pb.int(4, v and 1 or 0, true)
end

local function hparams_summary(tag, field, message)
  -- HParamsPluginData{version = 0, <field> = message}: a oneof member, written even when empty
  local content = pb.message(field, message)
  return pb.summary({ pb.value({ tag = tag, metadata = pb.plugin_metadata('hparams', content) }) })
end

-- Note [Hyperparameter values]: as PyTorch's hparams(): numbers (and one-element tensors) are
-- FLOAT64, strings STRING. Booleans are BOOL here; Python's bool is an int, so PyTorch records
-- them as the numbers 0 and 1. Lua tables have no order, so hyperparameters and metrics are
-- written sorted by name where PyTorch keeps the dict's order.
local function hparam_value(op, k, v)
  if is_tensor(v) then
    if v:nElement() < 1 then fail(op, 'hparamDict.%s is an empty tensor', k) end
    return v:detach():double():contiguous():view(-1)[1]
  end
  if type(v) == 'string' and not utf8_ok(v) then fail(op, 'hparamDict.%s must be valid UTF-8, got %q', k, v) end
  if type(v) == 'number' or type(v) == 'string' or type(v) == 'boolean' then return v end
  fail(op, 'hparamDict.%s must be a number, string, boolean or tensor, got %s', k, describe(v))
end

--- writer:addHparams(hparamDict, metricDict[, opts]): logs a run's hyperparameters (numbers,
--- strings, booleans, one-element tensors) and final metrics (numbers) for TensorBoard's HParams
--- tab, in the run logDir/<opts.runName> (default: the time in seconds), as PyTorch does.
--- opts.hparamDomainDiscrete = {name = {values...}} lists the values a hyperparameter takes.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addHparams({lr = 0.1, opt = 'sgd'}, {accuracy = 0.9}); w:close()
function SummaryWriter:addHparams(hparamDict, metricDict, opts)
  local op = CLASS .. '.addHparams'
  I.main_writer(self, op)
  check_table(op, 'hparamDict', hparamDict)
  check_table(op, 'metricDict', metricDict)
  opts = check_opts(op, opts, { hparamDomainDiscrete = true, runName = true })
  local domains = opts.hparamDomainDiscrete or {}
  check_table(op, 'hparamDomainDiscrete', domains)
  local names = sorted_keys(op, 'hparamDict', hparamDict)
  local values = {}
  for _, k in ipairs(names) do values[k] = hparam_value(op, k, hparamDict[k]) end
  for k, list in pairs(domains) do
    if values[k] == nil or type(list) ~= 'table' or is_tensor(list) then
      fail(op, 'hparamDomainDiscrete.%s must be a list of values of a hyperparameter in hparamDict', tostring(k))
    end
    for _, d in ipairs(list) do
      if type(d) ~= type(values[k]) then
        fail(op, 'hparamDomainDiscrete.%s must hold %ss like hparamDict.%s, got %s', k, type(values[k]), k, describe(d))
      end
    end
  end
  local metrics = sorted_keys(op, 'metricDict', metricDict)
  local metric_values = {}
  for _, k in ipairs(metrics) do metric_values[k] = I.read_number(op, 'metricDict.' .. k, metricDict[k]) end
  local runName = opts.runName
  if runName == nil then runName = string.format('%.7f', I.now()) end
  if type(runName) ~= 'string' or runName == '' then fail(op, 'runName must be a non-empty string, got %s', describe(runName)) end

  local infos, entries = {}, {}
  for _, k in ipairs(names) do
    local v = values[k]
    local info = pb.bytes(1, k) .. pb.int(4, DATA_TYPE[type(v)])
    if domains[k] then
      local list = {}
      for i, d in ipairs(domains[k]) do list[i] = pb.message(1, struct_value(d)) end
      info = info .. pb.message(5, concat(list))       -- domain_discrete
    end
    infos[#infos + 1] = pb.message(4, info)            -- Experiment.hparam_infos
    entries[#entries + 1] = pb.message(1, pb.bytes(1, k, true) .. pb.message(2, struct_value(v)))
  end
  for _, k in ipairs(metrics) do
    infos[#infos + 1] = pb.message(5, pb.message(1, pb.bytes(2, k)))  -- metric_infos{name{tag}}
  end
  local exp = hparams_summary('_hparams_/experiment', 2, concat(infos))
  local ssi = hparams_summary('_hparams_/session_start_info', 3, concat(entries))
  local sei = hparams_summary('_hparams_/session_end_info', 4, pb.int(1, STATUS_SUCCESS))

  local run = SummaryWriter(self.logDir .. '/' .. runName, self._opts)
  local fw = run._main
  for _, s in ipairs({ exp, ssi, sei }) do fw:add(op, pb.event({ wall_time = I.now(), summary = s })) end
  for _, k in ipairs(metrics) do run:addScalar(k, metric_values[k]) end
  run:close()
end

-- ---- Precision-recall curves --------------------------------------------------------------------------

local packed_float = ffi.new('float[1]')
local function packed_floats(field, list)
  local parts = {}
  for i = 1, #list do
    packed_float[0] = list[i]
    parts[i] = ffi.string(packed_float, 4)
  end
  return pb.bytes(field, concat(parts))
end

local DT_FLOAT = 1
local function float_tensor(rows, cols, list)
  local shape = pb.message(2, pb.int(1, rows)) .. pb.message(2, pb.int(1, cols))
  return pb.int(1, DT_FLOAT) .. pb.message(2, shape) .. packed_floats(5, list)
end

-- PyTorch's compute_curve: predictions fall in bucket floor(p * (n - 1)) (outside [0, n-1]:
-- dropped), true and false positives are reverse cumulative sums of the (weighted) buckets.
local function pr_curve_rows(labels, predictions, n, weights)
  local idx = torch.floor(predictions * (n - 1))
  local keep = idx:ge(0):cmul(idx:le(n - 1))
  local tp_b, fp_b = {}, {}
  for i = 1, n do tp_b[i], fp_b[i] = 0, 0 end
  local l, p, w, k = labels:totable(), idx:totable(), weights and weights:totable(), keep:totable()
  for i = 1, #p do
    if k[i] == 1 then
      local b, wi = p[i] + 1, w and w[i] or 1
      tp_b[b] = tp_b[b] + l[i] * wi
      fp_b[b] = fp_b[b] + (1 - l[i]) * wi
    end
  end
  local tp, fp = {}, {}
  local stp, sfp = 0, 0
  for i = n, 1, -1 do
    stp, sfp = stp + tp_b[i], sfp + fp_b[i]
    tp[i], fp[i] = stp, sfp
  end
  local rows = { {}, {}, {}, {}, {}, {} }
  for i = 1, n do
    local tn, fn = fp[1] - fp[i], tp[1] - tp[i]
    rows[1][i], rows[2][i], rows[3][i], rows[4][i] = tp[i], fp[i], tn, fn
    rows[5][i] = tp[i] / math.max(1e-7, tp[i] + fp[i])
    rows[6][i] = tp[i] / math.max(1e-7, tp[i] + fn)
  end
  local flat = {}
  for r = 1, 6 do for i = 1, n do flat[#flat + 1] = rows[r][i] end end
  return flat
end

--- writer:addPrCurve(tag, labels, predictions, step[, opts]): logs a precision-recall curve of
--- predictions (probabilities in [0, 1]) against labels (0/1 or booleans) at numThresholds
--- thresholds (opts.numThresholds, default and at most 127, as PyTorch), optionally weighted
--- (opts.weights); opts.wallTime.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addPrCurve('pr', torch.Tensor({0, 1, 1}), torch.Tensor({0.2, 0.7, 0.4}), 1); w:close()
function SummaryWriter:addPrCurve(tag, labels, predictions, step, opts)
  local op = CLASS .. '.addPrCurve'
  local fw = I.main_writer(self, op)
  I.check_tag(op, tag)
  opts = check_opts(op, opts, { numThresholds = true, weights = true, wallTime = true })
  local l = cpu_doubles(op, 'labels', labels):contiguous():view(-1)
  local p = cpu_doubles(op, 'predictions', predictions):contiguous():view(-1)
  -- NumPy buckets float32 predictions with a float32 product, whose rounding can reach the next
  -- bucket (0.7 * 10 is 7, not 6.99...): float predictions stay floats
  local pt = torch.type(predictions)
  if pt == 'torch.FloatTensor' or pt == 'torch.CudaTensor' then p = p:float() end
  if l:nElement() ~= p:nElement() then
    fail(op, 'labels and predictions must have as many elements, got %d and %d', l:nElement(), p:nElement())
  end
  if l:ne(0):cmul(l:ne(1)):sum() > 0 then fail(op, 'labels must be 0 or 1') end
  local w
  if opts.weights ~= nil then
    w = cpu_doubles(op, 'weights', opts.weights):contiguous():view(-1)
    if w:nElement() ~= p:nElement() then fail(op, 'weights must have one element per prediction, got %d for %d', w:nElement(), p:nElement()) end
  end
  local n = opts.numThresholds or 127
  if type(n) ~= 'number' or n ~= floor(n) or n < 2 then fail(op, 'numThresholds must be an integer of at least 2, got %s', describe(n)) end
  n = math.min(n, 127)   -- PyTorch's cap ("value > 127 breaks protobuf")
  step = I.read_step(op, step)
  local tensor = float_tensor(6, n, pr_curve_rows(l, p, n, w))
  local metadata = pb.plugin_metadata('pr_curves', pb.int(2, n))   -- PrCurvePluginData{version 0, num_thresholds}
  local value = pb.value({ tag = tag, tensor = tensor, metadata = metadata })
  fw:add(op, pb.event({ wall_time = I.read_walltime(op, opts.wallTime), step = step, summary = pb.summary({ value }) }))
end

-- ---- Audio -----------------------------------------------------------------------------------------------

local function le(n, bytes)
  local s = {}
  for i = 1, bytes do s[i] = string.char(n % 256) n = floor(n / 256) end
  return concat(s)
end

-- A mono 16-bit PCM WAV file, the 44-byte header Python's wave module writes.
-- samples: a contiguous IntTensor in [-32767, 32767] (Tocha has no 16-bit integer dtype).
local function wav_bytes(samples, rate)
  local n = samples:nElement()
  local src = ffi.cast('const int32_t*', samples:data())
  local buf = ffi.new('int16_t[?]', n)
  for i = 0, n - 1 do buf[i] = src[i] end
  local pcm = ffi.string(buf, 2 * n)   -- little-endian on every platform Tocha builds for
  return 'RIFF' .. le(36 + 2 * n, 4) .. 'WAVE' .. 'fmt ' .. le(16, 4) .. le(1, 2) .. le(1, 2) .. le(rate, 4)
    .. le(rate * 2, 4) .. le(2, 2) .. le(16, 2) .. 'data' .. le(2 * n, 4) .. pcm
end

--- writer:addAudio(tag, sound, step[, opts]): logs sound (a tensor of samples in [-1, 1], one
--- dim after squeezing; louder samples are clipped with a warning, as PyTorch) as a mono 16-bit
--- WAV at opts.sampleRate (default 44100) Hz; opts.wallTime.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addAudio('tone', torch.sin(torch.range(1, 800) * 0.1), 1, {sampleRate = 8000}); w:close()
function SummaryWriter:addAudio(tag, sound, step, opts)
  local op = CLASS .. '.addAudio'
  local fw = I.main_writer(self, op)
  I.check_tag(op, tag)
  opts = check_opts(op, opts, { sampleRate = true, wallTime = true })
  local rate = opts.sampleRate or 44100
  if type(rate) ~= 'number' or rate ~= floor(rate) or rate < 1 or rate >= 2 ^ 31 then
    fail(op, 'sampleRate must be a positive integer, got %s', describe(rate))
  end
  local x = cpu_doubles(op, 'sound', sound):squeeze()
  if x:dim() ~= 1 then fail(op, 'sound must have one dim after squeezing, got a %s', describe(sound)) end
  if x:nElement() == 0 then fail(op, 'sound is empty') end
  if x:ne(x):sum() > 0 then fail(op, 'sound must not hold NaN') end
  if torch.abs(x):max() > 1 then
    io.stderr:write('warning: audio amplitude out of range, auto clipped.\n')
    x = x:clamp(-1, 1)
  end
  -- PyTorch's astype('<i2') of samples * 32767 truncates toward zero; NumPy multiplies float32
  -- samples in float32, whose rounding can reach the next integer: a float sound is scaled as floats
  local t = torch.type(sound)
  if t == 'torch.FloatTensor' or t == 'torch.CudaTensor' then x = x:float() end
  local pcm = torch.mul(x, 32767):trunc():int():contiguous()
  step = I.read_step(op, step)
  local audio = pb.float(1, rate) .. pb.int(2, 1) .. pb.int(3, x:nElement()) .. pb.bytes(4, wav_bytes(pcm, rate))
    .. pb.bytes(5, 'audio/wav')
  local value = pb.bytes(1, tag) .. pb.message(6, audio)
  fw:add(op, pb.event({ wall_time = I.read_walltime(op, opts.wallTime), step = step, summary = pb.summary({ value }) }))
end

require 'torch.tensorboard_embed'
return M
