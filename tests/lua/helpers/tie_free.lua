-- Inputs without near-ties for the max-like pooling suites (test_nn_pool_adaptive.lua,
-- test_nn_pool_volumetric.lua). A max pooling's numerical derivative means nothing at a near-tie:
-- randn's draws (the seed differs per run) came within gradcheck's step of each other in one CI
-- run, and the TOCHA_TEST_DEVICE=cuda dry run replays each call on float copies, where two close
-- doubles can round to a tie and move the first maximum.
local M = {}

-- A DoubleTensor of the given size holding values at least 0.05 apart, in random order.
function M.distinct(...)
  local t = torch.DoubleTensor(...)
  local n = t:nElement()
  return t:copy(torch.randperm(n):double():add(torch.rand(n):double():mul(0.5)):mul(0.1):add(-0.05 * n))
end

-- nn.Jacobian.testJacobian's error on such values (testJacobian draws its own uniform ones).
function M.jacobian_error(m, x)
  x:copy(M.distinct(x:nElement()):viewAs(x))
  return nn.Jacobian.forward(m, x, x):add(-1, nn.Jacobian.backward(m, x)):abs():max()
end

return M
