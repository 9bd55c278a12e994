-- Helpers shared by the test_distributions*.lua suites: comparisons with PyTorch constants,
-- Monte-Carlo moment checks with tolerances from the sample size, error-message checks.
local H = {}

-- Tensor t (any shape, read row-major) against a table of expected numbers (inf, NaN allowed);
-- the tolerance is relative for |expected| > 1.
function H.close(tester, t, expected, tol, msg)
  if type(t) == 'number' then t = torch.DoubleTensor({ t }) end
  if type(t) == 'table' then t = torch.DoubleTensor(t) end
  local flat = t:contiguous():view(t:nElement()):double()
  tester:asserteq(flat:nElement(), #expected, (msg or '') .. ': element count')
  for i = 1, math.min(#expected, flat:nElement()) do
    local a, e = flat[i], expected[i]
    if e == math.huge or e == -math.huge or e ~= e then
      tester:assert(a == e or (e ~= e and a ~= a), string.format('%s[%d]: got %s, expected %s', msg or '', i, tostring(a), tostring(e)))
    else
      tester:assertle(math.abs(a - e), tol * math.max(1, math.abs(e)),
        string.format('%s[%d] (got %.17g, expected %.17g)', msg or '', i, a, e))
    end
  end
end

-- The sample mean and variance of x along dim 1 against the mean m and variance v (tensors of
-- x's other dims) within k standard errors: sqrt(v / n) for the mean, sqrt((m4 - v^2) / n) for
-- the variance, m4 the fourth central moment estimated from the sample.
function H.moments(tester, x, m, v, k, msg)
  k = k or 5
  x = x:double()
  local n = x:size(1)
  local rest = {}
  for i = 2, x:dim() do rest[#rest + 1] = x:size(i) end
  local sm = torch.sum(x, 1) / n                       -- 1 x rest
  local c = x - sm
  local sv = torch.sum(torch.pow(c, 2), 1) / (n - 1)
  local m4 = torch.sum(torch.pow(c, 4), 1) / n
  local count = sm:nElement()
  local function flat(t) return t:double():contiguous():view(count) end
  local fm, fv, fsm, fsv, fm4 = flat(m), flat(v), flat(sm), flat(sv), flat(m4)
  for i = 1, count do
    local se = math.sqrt(fv[i] / n)
    tester:assertle(math.abs(fsm[i] - fm[i]), k * se + 1e-12,
      string.format('%s: mean %d is %.6g, expected %.6g (se %.3g)', msg, i, fsm[i], fm[i], se))
    local sev = math.sqrt(math.max(fm4[i] - fv[i] ^ 2, 0) / n)
    tester:assertle(math.abs(fsv[i] - fv[i]), k * sev + 1e-12,
      string.format('%s: variance %d is %.6g, expected %.6g (se %.3g)', msg, i, fsv[i], fv[i], sev))
  end
end

-- The Monte-Carlo estimate mean(f) of a quantity (a 1D tensor of n draws' values) against
-- expected, within k standard errors.
function H.mc(tester, vals, expected, k, msg)
  vals = vals:double()
  local n = vals:nElement()
  local m = vals:sum() / n
  local sd = math.sqrt(torch.pow(vals - m, 2):sum() / (n - 1))
  tester:assertle(math.abs(m - expected), k * sd / math.sqrt(n) + 1e-12,
    string.format('%s: Monte-Carlo %.6g, expected %.6g (se %.3g)', msg, m, expected, sd / math.sqrt(n)))
end

-- The value of a one-element tensor (0-dim or not) as a number.
function H.num(t) return t:contiguous():view(1):double()[1] end

-- f() must fail with a message containing every plain string in `parts`.
function H.fails(tester, f, parts, msg)
  local ok, err = pcall(f)
  tester:assert(not ok, (msg or '') .. ': expected an error')
  if ok then return end
  for _, p in ipairs(parts) do
    tester:assert(tostring(err):find(p, 1, true) ~= nil, string.format('%s: "%s" not in "%s"', msg or '', p, tostring(err)))
  end
end

function H.size_is(tester, t, expected, msg)
  local got = torch.isTensor(t) and t:size():totable() or t:totable()
  tester:assertTableEq(got, expected, (msg or '') .. ': size ' .. table.concat(got, 'x'))
end

-- d/dx of f (a function of a DoubleTensor returning a number) at x by central differences.
function H.numgrad(f, x, h)
  h = h or 1e-6
  local g = x:clone():zero()
  local flat, gflat = x:view(x:nElement()), g:view(g:nElement())
  for i = 1, flat:nElement() do
    local old = flat[i]
    flat[i] = old + h
    local fp = f(x)
    flat[i] = old - h
    local fm = f(x)
    flat[i] = old
    gflat[i] = (fp - fm) / (2 * h)
  end
  return g
end

return H
