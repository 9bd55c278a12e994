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

return util
