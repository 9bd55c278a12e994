-- PyTorch's module names against PyTorch itself: fixtures/export_pytorch_names.py (run when
-- /usr/bin/python3 has torch, else the suite skips with a message) exports PyTorch 1.13 modules'
-- state dicts, inputs and outputs, and loss values for each reduction; the Tocha modules of the
-- same names and arguments load those state dicts and must give PyTorch's outputs and losses
-- (padding = 'same', each paddingMode, and the indices of pools with returnIndices among them).
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local FIXTURES = (arg[0]:match('^(.*)/[^/]*$') or '.') .. '/fixtures'

-- The keys and arguments of export_pytorch_names.py's modules.
local MODULES = {
  conv1d = function() return nn.Conv1d(4, 6, 3, { stride = 2, padding = 1, dilation = 2, groups = 2 }) end,
  conv2d = function() return nn.Conv2d(3, 4, { 3, 2 }, { stride = { 2, 1 }, padding = 1, bias = false }) end,
  conv2dg = function() return nn.Conv2d(4, 6, 3, { padding = 2, dilation = 2, groups = 2 }) end,
  conv3d = function() return nn.Conv3d(2, 4, { 2, 3, 3 }, { stride = { 1, 2, 1 }, padding = { 0, 1, 1 }, groups = 2 }) end,
  convt1d = function() return nn.ConvTranspose1d(4, 6, 3, { stride = 2, padding = 1, outputPadding = 1, groups = 2 }) end,
  convt2d = function() return nn.ConvTranspose2d(3, 4, { 3, 2 }, { stride = 2, padding = { 1, 0 }, dilation = { 1, 2 } }) end,
  convt3d = function() return nn.ConvTranspose3d(2, 3, 2, { stride = 2, outputPadding = { 1, 0, 1 } }) end,
  bn2d = function() return nn.BatchNorm2d(3, { momentum = 0.2 }) end,
  in1d = function() return nn.InstanceNorm1d(3, { affine = true }) end,
  ln = function() return nn.LayerNorm({ 3, 4 }, { eps = 1e-3 }) end,
  gn = function() return nn.GroupNorm(2, 4) end,
  maxpool1d = function() return nn.MaxPool1d(3, 2, 1, { dilation = 2, ceilMode = true }) end,
  maxpool2d = function() return nn.MaxPool2d({ 3, 2 }, { stride = { 2, 1 }, padding = 1 }) end,
  maxpool3d = function() return nn.MaxPool3d(2, { stride = { 1, 2, 2 } }) end,
  avgpool1d = function() return nn.AvgPool1d(4, 2, { padding = 2, countIncludePad = false }) end,
  avgpool2d = function() return nn.AvgPool2d(3, 2, 1, { ceilMode = true }) end,
  avgpool3d = function() return nn.AvgPool3d({ 2, 3, 3 }, 1, { padding = 1 }) end,
  aavg1d = function() return nn.AdaptiveAvgPool1d(4) end,
  aavg2d = function() return nn.AdaptiveAvgPool2d({ 4, 3 }) end,
  amax1d = function() return nn.AdaptiveMaxPool1d(5) end,
  amax2d = function() return nn.AdaptiveMaxPool2d(3) end,
  zeropad = function() return nn.ZeroPad2d({ 1, 2, 0, 3 }) end,
  reflpad = function() return nn.ReflectionPad2d({ 2, 1, 1, 2 }) end,
  replpad = function() return nn.ReplicationPad2d(2) end,
  softmax = function() return nn.Softmax(2) end,  -- PyTorch's dim=1
  logsoftmax = function() return nn.LogSoftmax(-1) end,
  softplus = function() return nn.Softplus(2, 1) end,
  cossim = function() return nn.CosineSimilarity({ dim = 2, eps = 1e-6 }) end,
  mha = function() return nn.MultiheadAttention(8, 2, { batchFirst = true }) end,
  conv2dsame = function() return nn.Conv2d(3, 4, 3, { padding = 'same' }) end,
  conv2dsame_even = function() return nn.Conv2d(3, 4, { 2, 4 }, { padding = 'same', dilation = { 3, 1 } }) end,
  conv1dsame = function() return nn.Conv1d(2, 4, 4, { padding = 'same', dilation = 2, paddingMode = 'reflect' }) end,
  maxpool1d_idx = function() return nn.MaxPool1d(3, 2, 1, { returnIndices = true }) end,
  maxpool2d_idx = function() return nn.MaxPool2d({ 3, 2 }, { stride = { 2, 1 }, padding = 1, returnIndices = true }) end,
  maxpool3d_idx = function() return nn.MaxPool3d(2, { stride = { 1, 2, 2 }, returnIndices = true }) end,
  amax2d_idx = function() return nn.AdaptiveMaxPool2d({ 4, 3 }, { returnIndices = true }) end,
}
for _, mode in ipairs({ 'reflect', 'replicate', 'circular' }) do
  MODULES['conv1d_' .. mode] = function() return nn.Conv1d(4, 6, 3, 2, 2, { groups = 2, paddingMode = mode }) end
  MODULES['conv2d_' .. mode] = function()
    return nn.Conv2d(3, 4, { 3, 2 }, { padding = { 2, 1 }, dilation = { 1, 2 }, paddingMode = mode })
  end
  MODULES['conv3d_' .. mode] = function() return nn.Conv3d(2, 4, 2, { padding = { 1, 0, 1 }, paddingMode = mode }) end
end

-- Entries under key.: the state dict, the inputs and the output.
local function split(tbl, key)
  local sd, inputs, out = {}, {}, nil
  for k, v in pairs(tbl) do
    local name = k:sub(1, #key + 1) == key .. '.' and k:sub(#key + 2)
    if name then
      local i = name:match('^input(%d)$')
      if i then inputs[tonumber(i)] = v elseif name == 'output' then out = v elseif name ~= 'indices' then sd[name] = v end
    end
  end
  return sd, inputs, out
end

local function load_fixture()
  local path = os.tmpname()
  local ok = os.execute(string.format('/usr/bin/python3 %s/export_pytorch_names.py %s', FIXTURES, path))
  tester:assert(ok == 0 or ok == true, 'export script failed')
  local tbl = torch.loadSafetensors(path)
  os.remove(path)
  return tbl
end

local have_torch = os.execute('/usr/bin/python3 -c "import torch" >/dev/null 2>&1')
if have_torch == 0 or have_torch == true then
  local tbl
  local function fixture() tbl = tbl or load_fixture() return tbl end

  function tests.modulesGivePyTorchOutputs()
    local t = fixture()
    for key, make in pairs(MODULES) do
      local m = make()
      local sd, inputs, want = split(t, key)
      m:loadStateDict(sd)  -- strict: the same names and sizes as PyTorch's
      m:evaluate()
      local input = #inputs == 1 and inputs[1] or inputs
      if key == 'mha' then input = inputs[1] end  -- self-attention: query = key = value
      local got, idx = m:forward(input), t[key .. '.indices']
      if idx then  -- returnIndices: {output, indices}, PyTorch's 0-based indices + 1
        tester:assertTensorEq(got[1], want, 2e-5, key .. ' ' .. tostring(m))
        tester:assertTensorEq(got[2]:double(), idx:double():add(1), 0, key .. ' indices')
      else
        tester:assertTensorEq(got, want, 2e-5, key .. ' ' .. tostring(m))
      end
    end
    -- Embedding: PyTorch's 0-based indices + 1
    local e = nn.Embedding(10, 3, { paddingIdx = 3 })
    local sd, inputs, want = split(t, 'emb')
    e:loadStateDict(sd)
    tester:assertTensorEq(e:forward(inputs[1]:long():add(1)), want, 0)
  end

  function tests.lossesGivePyTorchValues()
    local t = fixture()
    local w, pw = t.classweight, t.posweight
    local function cls(k) return t[k .. '.target']:long():add(1) end  -- PyTorch's 0-based classes + 1
    local cases = {
      ce = { function(r) return nn.CrossEntropyLoss({ weight = w, reduction = r, labelSmoothing = 0.1 }) end, cls },
      ce2 = { function(r) return nn.CrossEntropyLoss({ ignoreIndex = 4, reduction = r }) end, cls },
      ce3d = { function(r) return nn.CrossEntropyLoss({ reduction = r }) end, cls },
      nll = { function(r) return nn.NLLLoss(w, nil, nil, nil, r) end, cls },
      mse = { function(r) return nn.MSELoss({ reduction = r }) end },
      l1 = { function(r) return nn.L1Loss({ reduction = r }) end },
      sl1 = { function(r) return nn.SmoothL1Loss({ reduction = r, beta = 0.5 }) end },
      huber = { function(r) return nn.HuberLoss(r, 0.7) end },
      bce = { function(r) return nn.BCELoss({ weight = pw, reduction = r }) end },
      bcel = { function(r) return nn.BCEWithLogitsLoss({ posWeight = pw, reduction = r }) end },
      kl = { function(r) return nn.KLDivLoss({ reduction = r }) end },
      triplet = { function(r) return nn.TripletMarginLoss({ margin = 0.5, p = 1.5, swap = true, reduction = r }) end },
    }
    for key, c in pairs(cases) do
      local x = t[key .. '.input']
      if key == 'triplet' then x = { x[1], x[2], x[3] } end
      local target = c[2] and c[2](key) or t[key .. '.target']
      for _, r in ipairs({ 'mean', 'sum', 'none' }) do
        local crit = c[1](r)
        local l = crit:forward(x, target)
        local msg = key .. ' ' .. r
        if r == 'none' then
          tester:assertTensorEq(l:contiguous():view(-1), t[key .. '.none'], 2e-5, msg)
        else
          tester:assertalmosteq(l, t[key .. '.' .. r][1], 2e-5 * math.max(1, math.abs(l)), msg)
        end
        -- the gradient is that of the loss (of its sum for 'none') computed by autograd
        local xs = torch.isTensor(x) and x:clone():requiresGrad() or { x[1]:clone():requiresGrad(),
          x[2]:clone():requiresGrad(), x[3]:clone():requiresGrad() }
        local lt = crit(xs, target)
        if r == 'none' then lt = lt:sum() end
        lt:backward()
        local g = crit:backward(x, target)
        if torch.isTensor(x) then tester:assertTensorEq(g, xs.grad, 1e-5, msg .. ' grad')
        else tester:assertTensorEq(g[1], xs[1].grad, 1e-5, msg .. ' grad') end
      end
    end
    local kl = nn.KLDivLoss({ reduction = 'batchmean' })
    tester:assertalmosteq(kl:forward(t['kl.input'], t['kl.target']), t['kl.batchmean'][1], 2e-5)
  end
else
  print('test_nn_pytorch_names_fixture: /usr/bin/python3 has no torch module (Debian python3-torch); PyTorch comparison skipped')
end

tester:add(tests)
tester:run()
