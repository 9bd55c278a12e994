-- IDX files and the MNIST-format datasets built on them: data.readIDX, data.mnist,
-- data.fashionMnist (Debian's dataset-fashion-mnist package by default).
local torch = require 'torch'
local lib = require 'torch.lib'
local data = require 'data.env'
local util = require 'data.util'
local files = require 'data.files'
require 'data.datasets'

--- data.readIDX(path): the array an IDX file holds (gzip or not), as a tensor: a ByteTensor for
--- unsigned bytes, a CharTensor, ShortTensor or IntTensor for signed bytes, shorts and ints, a Float/DoubleTensor for
--- floats/doubles. A truncated file, a bad header or trailing bytes are errors naming the file
--- and the byte offset.
--- Example: local p = os.tmpname(); local f = io.open(p, 'wb')
--- f:write('\0\0\8\1\0\0\0\3\1\2\3'); f:close()  -- magic (unsigned bytes, 1 dim), size 3, data
--- local t = data.readIDX(p); os.remove(p)  -- a ByteTensor {1, 2, 3}
function data.readIDX(path)
  if type(path) ~= 'string' then util.fail('readIDX', 'expected a file name, got %s', type(path)) end
  return lib.wrap(lib.C.tocha_data_read_idx(path))
end

-- Images and labels of one MNIST split, checked against each other.
local function read_split(dir, prefix, opts, op)
  local img_path = files.find(dir, prefix .. '-images-idx3-ubyte', op)
  local lbl_path = files.find(dir, prefix .. '-labels-idx1-ubyte', op)
  local images, labels = data.readIDX(img_path), data.readIDX(lbl_path)
  if images:dim() ~= 3 or images:type() ~= 'torch.ByteTensor' then
    util.fail(op, '%s: expected an N x rows x columns array of unsigned bytes', img_path)
  end
  if labels:dim() ~= 1 or labels:type() ~= 'torch.ByteTensor' then
    util.fail(op, '%s: expected a 1D array of unsigned bytes', lbl_path)
  end
  if images:size(1) ~= labels:size(1) then
    util.fail(op, 'inconsistent sizes: %s holds %d images but %s holds %d labels', img_path, images:size(1), lbl_path,
      labels:size(1))
  end
  local nclasses = opts.classes or 10
  if labels:nElement() > 0 and labels:max() >= nclasses then
    local bad = labels:ge(nclasses):nonzero()[1][1]
    util.fail(op, '%s: label %d of item %d (byte %d) is out of range 0..%d', lbl_path, labels[bad], bad, 8 + bad - 1,
      nclasses - 1)
  end
  local n = images:size(1)
  local x = images:view(n, 1, images:size(2), images:size(3))
  if (opts.type or 'float') == 'float' then x = x:float():div(255)
  elseif opts.type ~= 'byte' then util.fail(op, "type must be 'float' or 'byte', got %s", tostring(opts.type)) end
  local ds = data.TensorDataset(x, labels:long():add(1))
  return ds
end

--- data.mnist(dir[, opts]): the train and test datasets of MNIST-format IDX files in dir
--- (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-...; each may be gzipped). Samples
--- are {input = 1x28x28 image, target = class 1..10}; images are floats in [0, 1], or the raw
--- bytes with opts.type = 'byte'.
--- Example: local d = os.tmpname(); os.remove(d); os.execute("mkdir '" .. d .. "'")  -- a scratch directory
--- for _, s in ipairs({'train', 't10k'}) do  -- one 2x2 image of class 4 per split
---   local f = io.open(d .. '/' .. s .. '-images-idx3-ubyte', 'wb'); f:write('\0\0\8\3\0\0\0\1\0\0\0\2\0\0\0\2\0\64\128\255'); f:close()
---   f = io.open(d .. '/' .. s .. '-labels-idx1-ubyte', 'wb'); f:write('\0\0\8\1\0\0\0\1\3'); f:close()
--- end
--- local train, test = data.mnist(d); os.execute("rm -r '" .. d .. "'")
function data.mnist(dir, opts)
  opts = opts or {}
  if type(dir) ~= 'string' then util.fail('mnist', 'expected the directory of the IDX files, got %s', type(dir)) end
  local train = read_split(dir, 'train', opts, opts.op or 'mnist')
  local test = read_split(dir, 't10k', opts, opts.op or 'mnist')
  if opts.classNames then train.classes, test.classes = opts.classNames, opts.classNames end
  return train, test
end

data.fashionMnistDir = '/usr/share/datasets/fashion-mnist'
data.fashionMnistClasses = { 'T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag',
                             'Ankle boot' }

--- data.fashionMnist([dir][, opts]): Fashion-MNIST's train and test datasets (like data.mnist),
--- read from dir, by default /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist
--- package). Each has .classes, the ten class names.
--- Example: local d = os.tmpname(); os.remove(d); os.execute("mkdir '" .. d .. "'")  -- a scratch directory
--- for _, s in ipairs({'train', 't10k'}) do  -- one 2x2 image of class 4 per split
---   local f = io.open(d .. '/' .. s .. '-images-idx3-ubyte', 'wb'); f:write('\0\0\8\3\0\0\0\1\0\0\0\2\0\0\0\2\0\64\128\255'); f:close()
---   f = io.open(d .. '/' .. s .. '-labels-idx1-ubyte', 'wb'); f:write('\0\0\8\1\0\0\0\1\3'); f:close()
--- end
--- local train, test = data.fashionMnist(d); os.execute("rm -r '" .. d .. "'")  -- train.classes[4] is 'Dress'
function data.fashionMnist(dir, opts)
  if type(dir) == 'table' then dir, opts = nil, dir end
  dir = dir or data.fashionMnistDir
  if not files.exists(dir .. '/train-labels-idx1-ubyte.gz') and not files.exists(dir .. '/train-labels-idx1-ubyte') then
    util.fail('fashionMnist', '%s holds no Fashion-MNIST files; install them with `apt-get install dataset-fashion-mnist` '
      .. 'or pass the directory that holds them', dir)
  end
  local o = { classNames = data.fashionMnistClasses, op = 'fashionMnist' }
  for k, v in pairs(opts or {}) do o[k] = v end
  return data.mnist(dir, o)
end

return data
