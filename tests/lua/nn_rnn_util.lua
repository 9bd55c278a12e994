-- Helpers of the recurrent-layer and attention tests (loaded with dofile): deterministic fills
-- shared with the PyTorch scripts that generated the reference numbers, fingerprints, and Jacobian
-- checks for modules whose inputs, outputs and states are tables of tensors.
local util = {}

-- s * sin(a k + b) for k = 0 .. n-1 (s < 0: |s| * cos), the fills of the reference scripts.
function util.fill(n, a, b, s)
  local k = torch.range(0, n - 1):double()
  if s > 0 then return k:mul(a):add(b):sin():mul(s) end
  return k:mul(a):add(b):cos():mul(-s)
end
function util.filled(t, a, b, s)
  return t:copy(util.fill(t:nElement(), a, b, s):viewAs(t))
end

-- sum_k t[k] * sin(a k + b), as a number.
function util.fp(t, a, b)
  local d = t:detach():double():contiguous():view(-1)
  return torch.noGrad(function() return torch.cmul(d, util.fill(d:nElement(), a, b, 1)):sum() end)
end

-- Flat list of the tensors of x (a tensor or a table of them, nils skipped).
function util.flat(x, out)
  out = out or {}
  if torch.isTensor(x) then out[#out + 1] = x
  elseif type(x) == 'table' then for i = 1, table.maxn(x) do if x[i] ~= nil then util.flat(x[i], out) end end end
  return out
end

local function cat_flat(list)
  local parts = {}
  for k, t in ipairs(list) do parts[k] = t:detach():double():contiguous():view(-1) end
  return torch.cat(parts, 1)
end

-- Largest difference between the Jacobians of Torch7's backward and of central differences of
-- forward, for every tensor of input and every parameter of m. outs(m) lists the outputs that
-- count; makeGrad(list) turns one gradient per output into m's gradOutput structure.
function util.jacobianError(m, input, outs, makeGrad, eps)
  eps = eps or 1e-6
  m:forward(input)
  local out_list = outs(m)
  local nout = 0
  for _, o in ipairs(out_list) do nout = nout + o:nElement() end
  local targets = util.flat(input)
  local params, grads = m:parameters()
  params, grads = params or {}, grads or {}
  local ntarget = #targets
  for k, p in ipairs(params) do targets[ntarget + k] = p end
  local analytic = {}
  for k, t in ipairs(targets) do analytic[k] = torch.DoubleTensor(t:nElement(), nout):zero() end
  for j = 1, nout do
    local gs, pos = {}, j
    for k, o in ipairs(out_list) do
      gs[k] = o.new(o:size()):zero()
      if pos >= 1 and pos <= o:nElement() then gs[k]:view(-1)[pos] = 1 end
      pos = pos - o:nElement()
    end
    m:zeroGradParameters()
    local gi = util.flat(m:backward(input, makeGrad(gs)))
    for k = 1, ntarget do
      if gi[k] then analytic[k]:select(2, j):copy(gi[k]:double():contiguous():view(-1)) end
    end
    for k = 1, #params do analytic[ntarget + k]:select(2, j):copy(grads[k]:double():contiguous():view(-1)) end
  end
  local worst = 0
  for k, t in ipairs(targets) do
    local v = t:view(-1)
    for i = 1, t:nElement() do
      local orig = v[i]
      v[i] = orig + eps
      m:forward(input)
      local plus = cat_flat(outs(m))
      v[i] = orig - eps
      m:forward(input)
      local minus = cat_flat(outs(m))
      v[i] = orig
      local numeric = plus:add(-1, minus):div(2 * eps)
      worst = math.max(worst, torch.csub(numeric, analytic[k][i]):abs():max())
    end
  end
  m:forward(input)
  return worst
end

-- The reference scripts' loss of a recurrent module's last call, sum(output * w1) + sum(hN * w2)
-- (+ sum(cN * w3)), as the weights {w1, w2[, w3]} (Torch7's gradOutput) and as a function of them
-- (autograd). out is m.output or, for a packed output, its data.
function util.lossGrads(m, out)
  local function w(t, a, b) return util.fill(t:nElement(), a, b, 1):viewAs(t) end
  return { w(out or m.output, 0.37, 0.1), w(m.hN, 0.23, 0.3), m.cN and w(m.cN, 0.11, 0.5) or nil }
end
function util.loss(m, out, g)
  local loss = torch.cmul(out or m.output, g[1]):sum() + torch.cmul(m.hN, g[2]):sum()
  if m.cN then loss = loss + torch.cmul(m.cN, g[3]):sum() end
  return loss
end

-- The values the reference scripts print for a call: fingerprints of the output (out: m.output or
-- its packed data), hN and cN, its first three values (and last three with tail), fingerprints of
-- the gradients of x, h0 and c0 (LSTM) and of every parameter; checked against ref to 1e-9.
function util.checkFingerprint(tester, m, out, gx, gh, gc, tail, ref, name)
  local got = { util.fp(out, 0.37, 0.1), util.fp(m.hN, 0.23, 0.3), m.cN and util.fp(m.cN, 0.11, 0.5) or 0 }
  local flat = out:view(-1)
  for k = 1, 3 do got[#got + 1] = flat[k] end
  if tail then for k = flat:nElement() - 2, flat:nElement() do got[#got + 1] = flat[k] end end
  got[#got + 1] = util.fp(gx, 0.29, 0.2)
  got[#got + 1] = gh and util.fp(gh, 0.29, 0.2) or 0
  got[#got + 1] = (gc and m.mode == 'LSTM') and util.fp(gc, 0.29, 0.2) or 0
  local _, grads = m:parameters()
  for _, g in ipairs(grads) do got[#got + 1] = util.fp(g, 0.29, 0.2) end
  tester:asserteq(#got, #ref, name .. ': number of values')
  for k = 1, #ref do tester:assertalmosteq(got[k], ref[k], 1e-9, name .. ': value ' .. k) end
end

-- Runs m on input (x with states {x, h0[, c0]}) and backward through Torch7's m:backward
-- (path 'torch7') or loss:backward() ('autograd'); returns the gradients of x, h0 and c0.
function util.backwardPaths(m, input, x, h0, c0, states, path)
  m:zeroGradParameters()
  if path == 'torch7' then
    m:forward(input)
    local gi = m:backward(input, util.lossGrads(m))
    if states then return gi[1], gi[2], gi[3] end
    return gi
  end
  for _, t in ipairs({ x, h0, c0 }) do t:requiresGrad() end
  m:forward(input)
  util.loss(m, nil, util.lossGrads(m)):backward()
  return x.grad, states and h0.grad, states and c0.grad
end

return util
