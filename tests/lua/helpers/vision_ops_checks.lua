-- Checks shared by the nn.ops suites (test_vision_ops.lua, test_vision_ops_roi.lua,
-- test_vision_ops_layers.lua), bound to a tester: the reference script's sine inputs, a
-- comparison with the script's checksums of a big output, an expected error, a gradcheck.
-- Use: local C = dofile(dir .. '/helpers/vision_ops_checks.lua')(tester)
return function(tester)
  local C = {}

  -- sin(a * j + b) for j = 0, 1, ... laid out in the given sizes (the script's seq).
  function C.seq(a, b, ...)
    local t = torch.DoubleTensor(...)
    return torch.sin(torch.range(0, t:nElement() - 1):double() * a + b):view(t:size())
  end

  -- got (double) against the script's checksum want = {sum =, wsum =, first = {...}}: its sum,
  -- its sum weighted by seq(0.13, 0.7) and its first elements.
  function C.checksum(name, got, want, tol)
    tester:assertlt(math.abs(got:sum() - want.sum), tol * 10, name .. ': sum ' .. got:sum() .. ' vs ' .. want.sum)
    local w = torch.cmul(got, C.seq(0.13, 0.7, unpack(got:size():totable()))):sum()
    tester:assertlt(math.abs(w - want.wsum), tol * 10, name .. ': weighted sum ' .. w .. ' vs ' .. want.wsum)
    local flat = got:contiguous():view(-1)
    for i, v in ipairs(want.first) do tester:assertlt(math.abs(flat[i] - v), tol, name .. ': element ' .. i) end
  end

  -- fn(...) raises an error whose message contains pattern (plain text).
  function C.fails(name, pattern, fn, ...)
    local ok, err = pcall(fn, ...)
    tester:assert(not ok, name .. ': expected an error')
    tester:assert(ok or tostring(err):find(pattern, 1, true) ~= nil, name .. ': error "' .. tostring(err) .. '" lacks "' .. pattern .. '"')
  end

  function C.gradcheck(name, fn, inputs)
    local ok, res = pcall(torch.autograd.gradcheck, fn, inputs)
    tester:assert(ok and res, name .. ': gradcheck ' .. tostring(res))
  end

  return C
end
