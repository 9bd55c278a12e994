-- nn.init's truncNormal, sparse, dirac, eye, calculateGain and calculateFanInAndFanOut
-- (lua/nn/init_more.lua): exact structure (dirac convolutions keep their input, eye, per-column
-- zero counts), statistics against closed forms with tolerances from the sample size, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(99)
local init = nn.init

local function phi(x) return math.exp(-x * x / 2) / math.sqrt(2 * math.pi) end
local function Phi(x) return (1 + torch.erf(torch.DoubleTensor({ x / math.sqrt(2) }))[1]) / 2 end

function tests.truncNormalMoments()
  local n = 200000
  for _, c in ipairs({ { 0, 1, -2, 2 }, { 1, 2, 0, 3 }, { -0.5, 0.5, -1, 5 } }) do
    local mean, std, a, b = c[1], c[2], c[3], c[4]
    local t = init.truncNormal(torch.Tensor(n), mean, std, a, b)
    tester:assert(t:min() >= a and t:max() <= b, 'values inside [a, b]')
    -- moments of the truncated normal in closed form
    local al, be = (a - mean) / std, (b - mean) / std
    local Z = Phi(be) - Phi(al)
    local m = mean + std * (phi(al) - phi(be)) / Z
    local v = std * std * (1 + (al * phi(al) - be * phi(be)) / Z - ((phi(al) - phi(be)) / Z) ^ 2)
    -- 5 standard errors of the sample mean and variance (the 4th moment is below 3 v^2 here)
    tester:assertlt(math.abs(t:mean() - m), 5 * math.sqrt(v / n))
    tester:assertlt(math.abs(t:var() - v), 5 * math.sqrt(2 * v * v / n))
    -- the fraction below the midpoint of [a, b] against the CDF
    local mid = (a + b) / 2
    local p = (Phi((mid - mean) / std) - Phi(al)) / Z
    tester:assertlt(math.abs(t:lt(mid):double():mean() - p), 5 * math.sqrt(p * (1 - p) / n))
  end
  tester:assertErrorPattern(function() init.truncNormal(torch.Tensor(3), 0, 1, 2, 1) end, 'a must be below b')
  tester:assertErrorPattern(function() init.truncNormal(torch.Tensor(3), 0, -1) end, 'std must be positive')
  tester:assertErrorPattern(function() init.truncNormal(3) end, 'nn.init.truncNormal%] expected a tensor')
end

function tests.sparseStructure()
  local rows, cols = 50, 400
  local t = init.sparse(torch.Tensor(rows, cols), 0.3, 0.5)
  local zeros = math.ceil(0.3 * rows)
  for c = 1, cols do tester:asserteq(t:select(2, c):eq(0):sum(), zeros) end
  -- the others are N(0, 0.25): their variance within 5 standard errors
  local nz = t:maskedSelect(t:ne(0))
  local n = nz:nElement()
  tester:asserteq(n, rows * cols - zeros * cols)
  tester:assertlt(math.abs(nz:var() - 0.25), 5 * math.sqrt(2 * 0.25 ^ 2 / n))
  tester:assertlt(math.abs(nz:mean()), 5 * math.sqrt(0.25 / n))
  -- each row is zeroed in a column with probability zeros / rows: the count per row is binomial
  local perRow = t:eq(0):double():sum(2):view(-1)
  local p = zeros / rows
  tester:assertlt(math.abs(perRow:mean() - cols * p), 5 * math.sqrt(cols * p * (1 - p) / rows))
  tester:asserteq(init.sparse(torch.Tensor(4, 3), 0):eq(0):sum(), 0)
  tester:asserteq(init.sparse(torch.Tensor(4, 3), 1):eq(0):sum(), 12)
  tester:assertErrorPattern(function() init.sparse(torch.Tensor(2, 3, 4), 0.1) end, 'only 2D tensors')
  tester:assertErrorPattern(function() init.sparse(torch.Tensor(2, 3), 1.5) end, 'sparsity must be a number in %[0, 1%]')
end

function tests.diracKeepsTheInput()
  -- a dirac-initialized convolution (zero bias, padding k // 2) is the identity on its channels
  local conv = nn.SpatialConvolution(3, 3, 3, 5, 1, 1, 1, 2)
  init.dirac(conv.weight)
  conv.bias:zero()
  local x = torch.randn(2, 3, 6, 7)
  tester:assertTensorEq(conv:forward(x), x, 1e-12)
  local vconv = nn.VolumetricConvolution(2, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1)
  init.dirac(vconv.weight)
  vconv.bias:zero()
  local v = torch.randn(1, 2, 4, 4, 4)
  tester:assertTensorEq(vconv:forward(v), v, 1e-12)
  -- groups: 4 outputs in 2 groups of 2 over 3 inputs (PyTorch 1.13's nn.init.dirac_ pattern)
  local w = init.dirac(torch.Tensor(4, 3, 3), 2)
  tester:asserteq(w:sum(), 4)
  for _, e in ipairs({ { 1, 1 }, { 2, 2 }, { 3, 1 }, { 4, 2 } }) do tester:asserteq(w[e[1]][e[2]][2], 1) end
  -- more outputs than inputs: the extra outputs stay zero
  local w2 = init.dirac(torch.Tensor(5, 2, 2, 2))
  tester:asserteq(w2:sum(), 2)
  tester:asserteq(w2[1][1][2][2], 1)
  tester:asserteq(w2[2][2][2][2], 1)
  tester:assertErrorPattern(function() init.dirac(torch.Tensor(3, 3)) end, 'only 3, 4 and 5D')
  tester:assertErrorPattern(function() init.dirac(torch.Tensor(3, 3, 3), 2) end, 'must divide into groups')
end

function tests.eye()
  local lin = nn.Linear(4, 4)
  init.eye(lin.weight)
  lin.bias:zero()
  local x = torch.randn(3, 4)
  tester:assertTensorEq(lin:forward(x), x, 0)
  tester:assertTensorEq(init.eye(torch.Tensor(2, 3)), torch.eye(2, 3), 0)
  tester:assertTensorEq(init.eye(torch.Tensor(3, 2)), torch.eye(3, 2), 0)
  tester:assertErrorPattern(function() init.eye(torch.Tensor(3)) end, 'only 2D')
end

function tests.gainsAndFans()
  -- PyTorch 1.13's calculate_gain values
  tester:asserteq(init.calculateGain('conv2d'), 1)
  tester:asserteq(init.calculateGain('conv_transpose3d'), 1)
  tester:asserteq(init.calculateGain('sigmoid'), 1)
  tester:assertalmosteq(init.calculateGain('tanh'), 5 / 3, 1e-15)
  tester:assertalmosteq(init.calculateGain('relu'), math.sqrt(2), 1e-15)
  tester:assertalmosteq(init.calculateGain('leaky_relu', 0.2), 1.3867504905630728, 1e-15)
  tester:assertalmosteq(init.calculateGain('leaky_relu'), 1.4141428569978354, 1e-15)
  tester:asserteq(init.calculateGain('selu'), 0.75)
  tester:assertErrorPattern(function() init.calculateGain('swish') end, "unsupported nonlinearity 'swish'")
  tester:assertErrorPattern(function() init.calculateGain('leaky_relu', 'a') end, 'negative slope must be a number')
  -- Tocha's weights in PyTorch's layouts give PyTorch's fans (Note [Fans of Tocha's weight layouts])
  local fi, fo = init.calculateFanInAndFanOut(nn.SpatialConvolution(3, 5, 2, 4).weight)
  tester:asserteq(fi, 24)
  tester:asserteq(fo, 40)
  fi, fo = init.calculateFanInAndFanOut(nn.SpatialFullConvolution(3, 5, 2, 2).weight)
  tester:asserteq(fi, 20)
  tester:asserteq(fo, 12)
  fi, fo = init.calculateFanInAndFanOut(nn.Linear(7, 2).weight)
  tester:asserteq(fi, 7)
  tester:asserteq(fo, 2)
  tester:assertErrorPattern(function() init.calculateFanInAndFanOut(torch.Tensor(3)) end, 'at least 2 dims')
end

function tests.orthogonalStillWorks()
  local w = init.orthogonal(torch.Tensor(3, 5), 2)
  tester:assertTensorEq(w * w:t(), torch.eye(3) * 4, 1e-10)
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local w = init.dirac(torch.CudaTensor(4, 4, 3, 3))
  tester:assertTensorEq(w:double(), init.dirac(torch.Tensor(4, 4, 3, 3)), 0)
  local s = init.sparse(torch.CudaTensor(10, 6), 0.5):double()
  for c = 1, 6 do tester:asserteq(s:select(2, c):eq(0):sum(), 5) end
  local t = init.truncNormal(torch.CudaTensor(1000), 0, 1, -0.5, 0.5):double()
  tester:assert(t:min() >= -0.5 and t:max() <= 0.5)
end

tester:add(tests):run()
