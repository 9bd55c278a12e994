-- Export to ONNX: a small CNN written with PyTorch's class names (nn.Conv2d, nn.BatchNorm2d,
-- nn.MaxPool2d, nn.Flatten...) is trained on Fashion-MNIST, written with torch.onnx.export with a
-- symbolic batch dim, and the file is read back and run to check it computes what the model does.
--   tocha examples/onnx_export.lua [--epochs 2] [--out onnx_export_out] [--quick]
-- Note [Checking the file with the tests' interpreter]: Tocha has no ONNX runtime, and printing
-- the graph would only show that the file decodes. The ONNX reader and interpreter of the tests
-- (tests/lua/helpers/onnx_read.lua, onnx_eval.lua) share no code with the writer and follow the
-- ONNX operator spec, so running the file through them checks the export itself, on a batch size
-- the export never saw. The example loads them from the source tree next to examples/ and exits
-- with 77 (skipped) when they are not there. Outside Tocha, `onnxruntime` or `onnx.checker` read
-- the same file.
require 'nn'
require 'optim'
local data = require 'data'

local cmd = torch.CmdLine()
cmd:option('--epochs', 2, 'training epochs')
cmd:option('--batchSize', 64, 'mini-batch size')
cmd:option('--lr', 2e-3, 'Adam learning rate')
cmd:option('--out', 'onnx_export_out', 'folder for fashion_cnn.onnx')
cmd:option('--data', data.fashionMnistDir, 'directory of the Fashion-MNIST IDX files')
cmd:option('--quick', false, 'a 3000-image subset and 1 epoch (a smoke test)')
local opt = cmd:parse(arg or {})
torch.manualSeed(1)

-- The checker: tests/lua/helpers/ beside this file's folder (debug.getinfo gives '@path/to/this.lua').
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local helpers = here .. '/../tests/lua/helpers/'
local f = io.open(helpers .. 'onnx_eval.lua')
local ok, train, test = pcall(data.fashionMnist, opt.data)
if not f or not ok then  -- ctest reports status 77 as skipped
  io.stderr:write(f and tostring(train) .. '\n' or 'no ' .. helpers .. 'onnx_eval.lua: run this from a source tree\n')
  os.exit(77)
end
f:close()
local R, E = dofile(helpers .. 'onnx_read.lua'), dofile(helpers .. 'onnx_eval.lua')
if opt.quick then
  train, test = train:subset(torch.range(1, 3000):long()), test:subset(torch.range(1, 1000):long())
  opt.epochs = 1
end
os.execute('mkdir -p "' .. opt.out .. '"')

-- PyTorch's nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), ...); nn.Flatten
-- keeps dim 1 (the batch), so the exported graph works for any batch size.
local model = nn.Sequential()
  :add(nn.Conv2d(1, 16, 3, { padding = 1 })):add(nn.BatchNorm2d(16)):add(nn.ReLU()):add(nn.MaxPool2d(2))
  :add(nn.Conv2d(16, 32, 3, { padding = 1 })):add(nn.BatchNorm2d(32)):add(nn.ReLU()):add(nn.MaxPool2d(2))
  :add(nn.Flatten()):add(nn.Linear(32 * 7 * 7, 10))
local crit = nn.CrossEntropyLoss()
local adam = optim.Adam(model, { lr = opt.lr })

local function accuracy()
  model:evaluate()
  local right = 0
  for batch in data.DataLoader(test, { batchSize = 500 }):iter() do
    local _, pred = torch.noGrad(function() return torch.max(model:forward(batch.input), 2) end)
    right = right + pred:view(-1):eq(batch.target):sum()
  end
  model:training()
  return right / test:size()
end

local timer = torch.Timer()
local loader = data.DataLoader(train, { batchSize = opt.batchSize, shuffle = true, seed = 1 })
for epoch = 1, opt.epochs do
  local sum, n = 0, 0
  for batch in loader:iter() do
    adam:zeroGrad()                                  -- optimizer.zero_grad()
    local loss = crit(model(batch.input), batch.target)
    loss:backward()
    adam:step()
    sum, n = sum + loss:item(), n + 1
  end
  print(string.format('epoch %d: training loss %.4f, test accuracy %.2f%% (%.1f s)', epoch, sum / n, 100 * accuracy(),
    timer:time().real))
end

-- torch.onnx.export(model, sample, path, dynamic_axes={'input': {0: 'input_dim1'}}): Tocha's dims
-- are 1-based, so {input = {1}} makes the batch dim symbolic. The export runs the model once on
-- the sample in evaluation mode (batch norm with its running statistics, folded into the
-- convolutions before it: doConstantFolding) and restores the modules' modes.
local path = opt.out .. '/fashion_cnn.onnx'
local x = data.DataLoader(test, { batchSize = 200 }):iter()().input   -- 200 test images
torch.onnx.export(model, x:narrow(1, 1, 1), path, { dynamicAxes = { input = { 1 } } })
local fh = io.open(path, 'rb')
local bytes = fh:seek('end')
fh:close()

local onnxModel = R.read(path)
local g = onnxModel.graph
local function dims(v)
  local out = {}
  for i, d in ipairs(v.dims) do out[i] = tostring(d) end
  return table.concat(out, ' x ')
end
print(string.format('\n%s: %d bytes, opset %d, producer %s', path, bytes, onnxModel.opsets[1].version,
  onnxModel.producer))
print(string.format('input  %s: %s', g.inputs[1].name, dims(g.inputs[1])))
for i, node in ipairs(g.nodes) do
  local ins = {}
  for j, name in ipairs(node.inputs) do
    local init = g.inits[name]
    ins[j] = init and string.format('%s[%s]', name, table.concat(init:size():totable(), 'x')) or name
  end
  print(string.format('  %2d %-10s %s -> %s', i, node.op, table.concat(ins, ', '), table.concat(node.outputs, ', ')))
end
print(string.format('output %s: %s', g.outputs[1].name, dims(g.outputs[1])))

-- The file run by the interpreter (in double precision) on the 200 images, against model:forward.
model:evaluate()
local want = torch.noGrad(function() return model:forward(x):double() end)
local got = E.run(onnxModel, { x })[1]
local diff = (got - want):abs():max()
local _, pw = torch.max(want, 2)
local _, pg = torch.max(got, 2)
local agree = pw:eq(pg):sum()
local acc = accuracy()
print(string.format('ONNX graph vs model:forward on %d images: max difference %.3g, same class for %d; test accuracy %.2f%%',
  x:size(1), diff, agree, 100 * acc))

local bound = opt.quick and 0.7 or 0.88
if diff > 1e-4 * math.max(1, want:abs():max()) or acc < bound then
  io.stderr:write(string.format('the ONNX graph differs by %.3g (expected < 1e-4), or test accuracy %.4f < %.2f\n',
    diff, acc, bound))
  os.exit(1)
end
