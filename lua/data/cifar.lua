-- CIFAR-10 (and CIFAR-100) binary batches: records of label byte(s) then 3x32x32 pixel bytes.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local files = require 'data.files'
require 'data.datasets'

local PIXELS = 3 * 32 * 32

--- data.readCIFAR(path[, opts]): the images (an N x 3 x 32 x 32 ByteTensor) and labels (a
--- LongTensor of classes 1..10) of a CIFAR-10 binary batch (data_batch_1.bin...). For CIFAR-100
--- give opts.labelBytes = 2 (the fine label is kept) and opts.classes = 100. A file that is not a
--- whole number of records, or a label out of range, is an error naming the file and byte offset.
--- Example: local p = os.tmpname(); local f = io.open(p, 'wb'); f:write('\3' .. string.rep('\0', 3072)); f:close()
--- local images, labels = data.readCIFAR(p); os.remove(p)  -- one black 3x32x32 image of class 4
function data.readCIFAR(path, opts)
  opts = opts or {}
  local label_bytes, nclasses = opts.labelBytes or 1, opts.classes or 10
  if label_bytes ~= 1 and label_bytes ~= 2 then util.fail('readCIFAR', 'labelBytes must be 1 or 2, got %s', tostring(label_bytes)) end
  local bytes = files.bytes(path)
  local rec = label_bytes + PIXELS
  local size = bytes:nElement()
  if size % rec ~= 0 then
    local n = math.floor(size / rec)
    util.fail('readCIFAR', '%s: truncated: %d bytes is not a whole number of %d-byte records (record %d starts at byte %d '
      .. 'and has only %d bytes)', path, size, rec, n + 1, n * rec, size - n * rec)
  end
  local n = size / rec
  if n == 0 then util.fail('readCIFAR', '%s: the file is empty', path) end
  local records = bytes:view(n, rec)
  local labels = records:select(2, label_bytes):long()
  if labels:max() >= nclasses then
    local bad = labels:ge(nclasses):nonzero()[1][1]
    util.fail('readCIFAR', '%s: label %d of record %d (byte %d) is out of range 0..%d', path, labels[bad], bad,
      (bad - 1) * rec + label_bytes - 1, nclasses - 1)
  end
  local images = records:narrow(2, label_bytes + 1, PIXELS):contiguous():view(n, 3, 32, 32)
  return images, labels:add(1)
end

data.cifar10Classes = { 'airplane', 'automobile', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck' }

--- data.cifar10(dir[, opts]): the train (data_batch_1..5.bin) and test (test_batch.bin) datasets
--- of CIFAR-10's binary version in dir (files may be gzipped). Samples are {input = 3x32x32,
--- target = 1..10}; images are floats in [0, 1], or bytes with opts.type = 'byte'. Each dataset
--- has .classes.
--- Example: local d = os.tmpname(); os.remove(d); os.execute("mkdir '" .. d .. "'")  -- a scratch directory
--- for _, name in ipairs({'data_batch_1', 'data_batch_2', 'data_batch_3', 'data_batch_4', 'data_batch_5', 'test_batch'}) do
---   local f = io.open(d .. '/' .. name .. '.bin', 'wb'); f:write('\3' .. string.rep('\0', 3072)); f:close()  -- a black cat
--- end
--- local train, test = data.cifar10(d); os.execute("rm -r '" .. d .. "'")
function data.cifar10(dir, opts)
  opts = opts or {}
  if type(dir) ~= 'string' then util.fail('cifar10', 'expected the directory of the .bin files, got %s', type(dir)) end
  local tp = opts.type or 'float'
  if tp ~= 'float' and tp ~= 'byte' then util.fail('cifar10', "type must be 'float' or 'byte', got %s", tostring(tp)) end
  local function load(names)
    local xs, ys = {}, {}
    for i, name in ipairs(names) do xs[i], ys[i] = data.readCIFAR(files.find(dir, name, 'cifar10')) end
    local x, y = torch.cat(xs, 1), torch.cat(ys, 1)
    if tp == 'float' then x = x:float():div(255) end
    local ds = data.TensorDataset(x, y)
    ds.classes = data.cifar10Classes
    return ds
  end
  local train = load({ 'data_batch_1.bin', 'data_batch_2.bin', 'data_batch_3.bin', 'data_batch_4.bin', 'data_batch_5.bin' })
  return train, load({ 'test_batch.bin' })
end

return data
