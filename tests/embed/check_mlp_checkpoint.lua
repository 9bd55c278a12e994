-- Keeps examples/embed/ consistent with examples/fashion_mnist_mlp.lua: the Lua half of the
-- embedding hosts (classifier.lua) loads the checkpoint the example wrote and classifies test
-- images the way a host passes them (N x 28 x 28 floats in [0, 1]).
-- Usage: tocha check_mlp_checkpoint.lua CHECKPOINT CLASSIFIER.lua [MIN_ACCURACY]
local checkpoint, classifier, bound = arg[1], arg[2], tonumber(arg[3] or '0.7')
local data = require 'data'
dofile(classifier)
assert(load_model(checkpoint))
local dir = data.fashionMnistDir
local n = 1000
local images = data.readIDX(dir .. '/t10k-images-idx3-ubyte.gz'):narrow(1, 1, n):float():div(255)
local labels = data.readIDX(dir .. '/t10k-labels-idx1-ubyte.gz'):narrow(1, 1, n):double():add(1)
local classes = predict(images)
local correct = classes:eq(labels):sum()
print(string.format('classifier.lua on %s: %d/%d test images right', checkpoint, correct, n))
if correct / n < bound then
  io.stderr:write(string.format('accuracy %.3f is below %.2f\n', correct / n, bound))
  os.exit(1)
end
