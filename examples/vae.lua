-- A variational autoencoder (Kingma and Welling 2014) on Fashion-MNIST, written with
-- torch.distributions as in PyTorch's VAE examples: the encoder gives a diagonal Normal q(z|x),
-- rsample draws z differentiably (the reparameterization trick), the decoder gives Bernoulli
-- logits p(x|z) over the pixels, and the loss is the negative ELBO:
--   -E_q[log p(x|z)] + KL(q(z|x) || N(0, I)), the KL in closed form (klDivergence).
-- Pixels are binarized by drawing each as Bernoulli(intensity), afresh for every training batch
-- and once for the test set (the "dynamically binarized" MNIST of the VAE literature), so the
-- Bernoulli likelihood is a proper one.
-- It writes a grid of reconstructions and of samples from the prior to <out>/vae_*.png.
--   tocha examples/vae.lua [--epochs 5] [--latent 16] [--out vae_out] [--quick]
-- --quick trains on a 30000-image subset for one epoch and checks that the test ELBO beats that
-- of the untrained model by a wide margin and that the KL's closed form agrees with a Monte-Carlo
-- estimate E_q[log q(z|x) - log p(z)].
require 'nn'
require 'optim'
local data = require 'data'
local D = torch.distributions

local cmd = torch.CmdLine()
cmd:option('--epochs', 5, 'passes over the training set')
cmd:option('--batchSize', 128, 'images per step')
cmd:option('--lr', 1e-3, 'Adam learning rate')
cmd:option('--latent', 16, 'dimensions of z')
cmd:option('--hidden', 256, 'hidden units of the encoder and the decoder')
cmd:option('--data', data.fashionMnistDir, 'directory of the Fashion-MNIST IDX files')
cmd:option('--out', 'vae_out', 'directory for the image grids')
cmd:option('--seed', 1, 'random seed')
cmd:option('--quick', false, 'a 30000-image subset and 1 epoch (a smoke test)')
local opt = cmd:parse(arg or {})
torch.manualSeed(opt.seed)

local ok, train, test = pcall(data.fashionMnist, opt.data)
if not ok then  -- no dataset: ctest reports status 77 as skipped
  io.stderr:write(tostring(train) .. '\n')
  os.exit(77)
end
if opt.quick then
  train, test = train:subset(torch.range(1, 30000):long()), test:subset(torch.range(1, 2000):long())
  opt.epochs = 1
end
print(string.format('Fashion-MNIST: %d training, %d test images; latent %d, hidden %d', train:size(), test:size(),
  opt.latent, opt.hidden))

local L, H = opt.latent, opt.hidden
-- The encoder's last layer gives the mean and the log standard deviation of q(z|x) side by side.
local encoder = nn.Sequential(nn.Flatten(), nn.Linear(784, H), nn.ReLU(), nn.Linear(H, 2 * L))
local decoder = nn.Sequential(nn.Linear(L, H), nn.ReLU(), nn.Linear(H, 784))
local params = {}
for _, m in ipairs({ encoder, decoder }) do
  for _, p in ipairs(m:parameters()) do params[#params + 1] = p end
end
local adam = optim.Adam(params, { lr = opt.lr })

-- q(z|x) for a batch: Independent(Normal(mu, sigma), 1), so logProb sums over the latent dims.
local function posterior(x)
  local h = encoder:forward(x)
  local mu, logSigma = h:narrow(2, 1, L), h:narrow(2, L + 1, L)
  return D.Independent(D.Normal(mu, torch.exp(logSigma)), 1)
end
local prior = D.Independent(D.Normal(torch.zeros(L), torch.ones(L)), 1)

-- The negative ELBO per image (a batch x 1 tensor) and its two terms, one z per image.
local function negElbo(x)
  local q = posterior(x)
  local z = q:rsample()
  local logits = decoder:forward(z)
  local target = x:contiguous():view(x:size(1), 784)
  local likelihood = D.Independent(D.Bernoulli({ logits = logits }), 1)
  local rec = -likelihood:logProb(target)
  local kl = D.klDivergence(q, prior:expand({ x:size(1) }))
  return rec + kl, rec, kl, q, z
end

-- The mean negative ELBO over the test set (nats per image), without gradients.
local testBinary = {}
for batch in data.DataLoader(test, { batchSize = 500 }):iter() do testBinary[#testBinary + 1] = torch.bernoulli(batch.input) end
local function testLoss()
  return torch.noGrad(function()
    local total, n = 0, 0
    for _, x in ipairs(testBinary) do
      local l = negElbo(x)
      total, n = total + l:sum(), n + x:size(1)
    end
    return total / n
  end)
end

local before = testLoss()
print(string.format('untrained: test negative ELBO %.1f nats per image', before))
local loader = data.DataLoader(train, { batchSize = opt.batchSize, shuffle = true, seed = opt.seed, dropLast = true })
local timer = torch.Timer()
for epoch = 1, opt.epochs do
  local recSum, klSum, steps = 0, 0, 0
  for batch in loader:iter() do
    local loss, rec, kl = negElbo(torch.bernoulli(batch.input))
    adam:zeroGrad()
    loss:mean():backward()
    adam:step()
    recSum, klSum, steps = recSum + rec:mean():item(), klSum + kl:mean():item(), steps + 1
  end
  print(string.format('epoch %d: reconstruction %.1f + KL %.1f nats per image; test negative ELBO %.1f, %.1f s', epoch,
    recSum / steps, klSum / steps, testLoss(), timer:time().real))
end
local after = testLoss()

-- The closed-form KL against a Monte-Carlo estimate from 2000 draws of z per image.
local x = testBinary[1]:narrow(1, 1, 1)
local mcErr = torch.noGrad(function()
  local q = posterior(x)
  local z = q:sample({ 2000 })  -- 2000 x 1 x L
  local mc = (q:logProb(z) - prior:logProb(z)):mean()
  local exact = D.klDivergence(q, prior:expand({ 1 })):item()
  print(string.format('KL of the first test image: closed form %.3f, Monte-Carlo %.3f', exact, mc))
  return math.abs(mc - exact) / math.max(exact, 1)
end)

-- Reconstructions (top two rows: images, their means under the decoder) and prior samples.
os.execute('mkdir -p "' .. opt.out .. '"')
torch.noGrad(function()
  local xs = torch.zeros(16, 1, 28, 28)
  for i = 1, 16 do xs[i]:copy(testBinary[1][i]) end
  local recon = torch.sigmoid(decoder:forward(posterior(xs):mean())):view(16, 1, 28, 28)
  local samples = torch.sigmoid(decoder:forward(prior:sample({ 16 }))):view(16, 1, 28, 28)
  local function grid(rows)
    local g = torch.zeros(1, 28 * #rows, 28 * 16)
    for r, imgs in ipairs(rows) do
      for i = 1, 16 do g:narrow(2, (r - 1) * 28 + 1, 28):narrow(3, (i - 1) * 28 + 1, 28):copy(imgs[i]) end
    end
    return g
  end
  data.image.save(opt.out .. '/vae_reconstructions.png', grid({ xs, recon }))
  data.image.save(opt.out .. '/vae_samples.png', grid({ samples }))
end)
print(string.format('test negative ELBO: %.1f -> %.1f nats per image; grids in %s/', before, after, opt.out))

local bound = opt.quick and 330 or 260
if after > bound or mcErr > 0.1 then
  io.stderr:write(string.format('test negative ELBO %.1f is above %d, or the Monte-Carlo KL differs from the closed '
    .. 'form by %.1f%%\n', after, bound, 100 * mcErr))
  os.exit(1)
end
