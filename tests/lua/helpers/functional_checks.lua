-- Checks shared by the nn.functional suites that compare with a PyTorch 1.13 reference script
-- (test_nn_functional_more2*.lua): the script's inputs X and the assertions, bound to a tester.
-- Use: local X, near, gradcheck, raises = dofile(dir .. '/helpers/functional_checks.lua')(tester)
return function(tester)
  local D = torch.DoubleTensor
  -- The reference script's inputs: sin(0.7 i + k), i = 0..n-1, viewed to the size (float64).
  local function X(size, k)
    local n = 1
    for _, d in ipairs(size) do n = n * d end
    return torch.range(0, n - 1):double():mul(0.7):add(k or 0.3):sin():view(torch.LongStorage(size))
  end
  local function near(got, want, tol, what)
    tester:assertTensorEq(got:double():contiguous():view(-1), D(want), tol or 1e-12, what)
  end
  local function gradcheck(f, inputs, what)
    local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
    tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
  end
  local function raises(f, pattern, what)
    local ok, err = pcall(f)
    tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil, (what or pattern) .. ': got ' .. tostring(err))
  end
  return X, near, gradcheck, raises
end
