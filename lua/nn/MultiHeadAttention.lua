-- nn.MultiHeadAttention(embedDim, numHeads [, {dropout=, bias=, batchFirst=, kdim=, vdim=, addBiasKv=,
-- addZeroAttn=}]):
-- PyTorch's nn.MultiheadAttention with Torch7's module API. Parameters keep PyTorch's names
-- (in_proj_weight or q/k/v_proj_weight, in_proj_bias, out_proj.weight/bias in the child
-- m.outProj), so weights copy across; attention runs as batched GEMMs (baddbmm/bmm) over
-- batch*heads.
--
-- Note [Attention and autograd]: the forward is made of recorded ops, so loss:backward() (and
-- double backward) follow it. Torch7's updateGradInput recomputes the forward from detached
-- inputs with the dropout mask of the last forward and asks autograd for the gradients, so both
-- paths agree; accGradParameters adds the parameter gradients that computation produced.
local MHA, parent = torch.class('nn.MultiHeadAttention', 'nn.Module')
local user_level = torch._lib.user_level

local grad_names = { in_proj_weight = 'gradInProjWeight', q_proj_weight = 'gradQProjWeight',
                     k_proj_weight = 'gradKProjWeight', v_proj_weight = 'gradVProjWeight',
                     in_proj_bias = 'gradInProjBias', bias_k = 'gradBiasK', bias_v = 'gradBiasV' }
local known = { dropout = true, bias = true, batchFirst = true, kdim = true, vdim = true, addBiasKv = true,
                addZeroAttn = true }
local aliases = { batch_first = 'batchFirst', add_bias_kv = 'addBiasKv', add_zero_attn = 'addZeroAttn' }

local function describe(x)
  if torch.isTensor(x) then return torch.type(x) .. ' of size ' .. table.concat(x:size():totable(), 'x') end
  return torch.type(x)
end
local function fail(self, fmt, ...) error(string.format('[%s] ' .. fmt, tostring(self), ...), user_level()) end

function MHA:__init(embedDim, numHeads, opts)
  parent.__init(self)
  opts = opts or {}
  local o = {}
  for k, v in pairs(type(opts) == 'table' and opts or {}) do
    local name = aliases[k] or k
    if not known[name] then error('[nn.MultiHeadAttention] unknown option ' .. tostring(k), user_level()) end
    o[name] = v
  end
  local ok = type(embedDim) == 'number' and type(numHeads) == 'number' and embedDim >= 1 and numHeads >= 1
    and embedDim % 1 == 0 and numHeads % 1 == 0
  if not ok or embedDim % numHeads ~= 0 then
    error(string.format('[nn.MultiHeadAttention] embedDim (%s) must be a positive multiple of numHeads (%s)',
      tostring(embedDim), tostring(numHeads)), user_level())
  end
  local p = o.dropout or 0
  if type(p) ~= 'number' or p < 0 or p >= 1 then
    error('[nn.MultiHeadAttention] dropout must be a number in [0, 1), got ' .. tostring(p), user_level())
  end
  self.embedDim, self.numHeads, self.headDim = embedDim, numHeads, embedDim / numHeads
  self.kdim, self.vdim = o.kdim or embedDim, o.vdim or embedDim
  self.dropout, self.batchFirst, self.bias = p, o.batchFirst == true, o.bias ~= false
  self.needWeights, self.averageAttnWeights = true, true
  local E = embedDim
  local names = {}
  if self.kdim == E and self.vdim == E then
    names[1] = 'in_proj_weight'
    self.in_proj_weight = torch.Tensor(3 * E, E)
  else
    names = { 'q_proj_weight', 'k_proj_weight', 'v_proj_weight' }
    self.q_proj_weight, self.k_proj_weight, self.v_proj_weight = torch.Tensor(E, E), torch.Tensor(E, self.kdim),
      torch.Tensor(E, self.vdim)
  end
  if self.bias then
    names[#names + 1] = 'in_proj_bias'
    self.in_proj_bias = torch.Tensor(3 * E)
  end
  -- Note [Attention extra keys]: PyTorch's add_bias_kv appends one learnt key and value (bias_k,
  -- bias_v, 1 x 1 x embedDim, after the projections) and add_zero_attn one zero key and value
  -- (per head, after those); the masks get a column of zeros (not masked) for each, and the
  -- attention weights have sourceLength + 1 or + 2 columns.
  for _, f in ipairs({ 'addBiasKv', 'addZeroAttn' }) do
    if o[f] ~= nil and type(o[f]) ~= 'boolean' then
      error(string.format('[nn.MultiHeadAttention] %s must be a boolean, got %s', f, tostring(o[f])), user_level())
    end
  end
  self.addBiasKv, self.addZeroAttn = o.addBiasKv == true, o.addZeroAttn == true
  if self.addBiasKv then
    names[#names + 1], names[#names + 2] = 'bias_k', 'bias_v'
    self.bias_k, self.bias_v = torch.Tensor(1, 1, E), torch.Tensor(1, 1, E)
  end
  for _, n in ipairs(names) do self[grad_names[n]] = self[n].new(self[n]:size()) end
  self._stateParams, self._stateChildren = names, { out_proj = 'outProj' }
  self.outProj = nn.Linear(E, E, self.bias)
  self:reset()
end

--- m:reset(): PyTorch's initialization: Xavier-uniform projections, zero in-projection bias, the
--- output projection like nn.Linear's with a zero bias; zeroes the gradients.
function MHA:reset()
  for _, n in ipairs(self._stateParams) do
    if n == 'in_proj_bias' then self[n]:zero()
    elseif n == 'bias_k' or n == 'bias_v' then nn.init.xavierNormal(self[n])
    else nn.init.xavierUniform(self[n]) end
    self[grad_names[n]]:zero()
  end
  self.outProj:reset()
  if self.outProj.bias then self.outProj.bias:zero() end
  nn.utils.linkGradients(self)
  return self
end

--- m:parameters(): in_proj_weight (or q/k/v_proj_weight), in_proj_bias, bias_k, bias_v,
--- out_proj.weight, out_proj.bias (PyTorch's order; those present), and their gradients.
function MHA:parameters()
  local ps, gs = {}, {}
  for k, n in ipairs(self._stateParams) do ps[k], gs[k] = self[n], self[grad_names[n]] end
  local op, og = self.outProj:parameters()
  for k = 1, #op do ps[#ps + 1], gs[#gs + 1] = op[k], og[k] end
  return ps, gs
end

-- input -> q, k, v, keyPaddingMask, attnMask, same (q, k and v are one tensor).
local function parse(self, input)
  local q, k, v, kpm, am
  if torch.isTensor(input) then q, k, v = input, input, input
  elseif type(input) == 'table' then
    -- a misspelt or PyTorch-spelt mask ({x, attn_mask = m}) was ignored: attention ran unmasked
    for key in pairs(input) do
      if key ~= 1 and key ~= 2 and key ~= 3 and key ~= 'keyPaddingMask' and key ~= 'attnMask' then
        fail(self, 'unknown input field %s (expected {query, key, value, keyPaddingMask=, attnMask=})', tostring(key))
      end
    end
    q, k, v, kpm, am = input[1], input[2] or input[1], input[3] or input[2] or input[1], input.keyPaddingMask,
      input.attnMask
  else
    fail(self, 'expected a tensor (self-attention) or a table {query, key, value, keyPaddingMask=, attnMask=}, got %s',
      describe(input))
  end
  local E, layout = self.embedDim, self.batchFirst and 'batch x length' or 'length x batch'
  for i, spec in ipairs({ { 'query', q, E }, { 'key', k, self.kdim }, { 'value', v, self.vdim } }) do
    local name, t, d = spec[1], spec[2], spec[3]
    if not torch.isTensor(t) or (t:dim() ~= 3 and t:dim() ~= 2) or t:size(t:dim()) ~= d
        or (i > 1 and t:dim() ~= q:dim()) then
      fail(self, 'expected %s of size %s x %d, got %s', name, layout, d, describe(t))
    end
    if torch.type(t) ~= torch.type(self.outProj.weight) then
      fail(self, '%s is a %s but the parameters are %s', name, torch.type(t), torch.type(self.outProj.weight))
    end
  end
  return q, k, v, kpm, am, rawequal(q, k) and rawequal(k, v)
end

-- An additive float mask from a boolean (ByteTensor/BoolTensor: true = masked) or float one.
local function additive(self, mask, like, what)
  -- a u8/bool mask on any device (torch.CudaByteTensor too) marks the positions to leave out
  local dt = mask.p.dtype
  if dt == 6 or dt == 7 then  -- lib.dtype.u8, lib.dtype.bool
    return like.new(mask:size()):zero():maskedFill(mask, -math.huge)
  end
  -- an integer mask (a LongTensor of 0/1) was added to the scores as numbers: PyTorch refuses it
  if not nn.utils.isFloating(mask) then
    fail(self, '%s must be boolean (ByteTensor/BoolTensor, true = masked) or floating (added), got %s', what,
      describe(mask))
  end
  return mask:typeAs(like)
end

-- Whether a and b hold the same tensors or equal values (elementwise in tables).
local function same_values(a, b)
  if rawequal(a, b) then return true end
  if torch.isTensor(a) and torch.isTensor(b) then return a:isSameSizeAs(b) and torch.equal(a, b) end
  if type(a) ~= 'table' or type(b) ~= 'table' then return false end
  for _, key in ipairs({ 1, 2, 3, 'keyPaddingMask', 'attnMask' }) do
    if not same_values(a[key], b[key]) then return false end
  end
  return true
end

-- The whole computation (recorded ops). drop: the dropout mask to use (nil: draw one when training).
function MHA:_compute(q, k, v, kpm, am, drop)
  local unbatched = q:dim() == 2
  if unbatched then q, k, v = q:unsqueeze(2), k:unsqueeze(2), v:unsqueeze(2)
  elseif self.batchFirst then q, k, v = q:transpose(1, 2), k:transpose(1, 2), v:transpose(1, 2) end
  local L, N, S, E, h, hd = q:size(1), q:size(2), k:size(1), self.embedDim, self.numHeads, self.headDim
  if k:size(2) ~= N or v:size(2) ~= N or v:size(1) ~= S then
    fail(self, 'query, key and value must share the batch size and key/value the length, got %s, %s and %s',
      describe(q), describe(k), describe(v))
  end
  -- Projections: x (len*N x dim) W^T + b, each head a batch entry: (N*h) x len x hd.
  local function project(x, which, len, extra)
    local w = self.in_proj_weight and self.in_proj_weight:narrow(1, (which - 1) * E + 1, E)
      or self[({ 'q_proj_weight', 'k_proj_weight', 'v_proj_weight' })[which]]
    local x2 = x:reshape(len * N, x:size(3))
    local y
    if self.in_proj_bias then
      y = torch.addmm(self.in_proj_bias:narrow(1, (which - 1) * E + 1, E):view(1, E), x2, w:t())
    else
      y = torch.mm(x2, w:t())
    end
    if extra then  -- Note [Attention extra keys]: one more source position, the same for every batch entry
      y = torch.cat({ y:view(len, N, E), extra:expand(1, N, E) }, 1)
      len = len + 1
    end
    y = y:reshape(len, N * h, hd):transpose(1, 2)
    if which > 1 and self.addZeroAttn then y = torch.cat({ y, y.new(N * h, 1, hd):zero() }, 2) end
    return y
  end
  local Q = project(q, 1, L)
  local K, V = project(k, 2, S, self.bias_k), project(v, 3, S, self.bias_v)
  local extra = (self.bias_k and 1 or 0) + (self.addZeroAttn and 1 or 0)
  -- Scores: scale * Q K^T (+ the masks as one additive term broadcast over heads).
  local add
  if am ~= nil then
    if not torch.isTensor(am) or not ((am:dim() == 2 and am:size(1) == L and am:size(2) == S)
        or (am:dim() == 3 and am:size(1) == N * h and am:size(2) == L and am:size(3) == S)) then
      fail(self, 'attnMask must be %dx%d or %dx%dx%d (batch*heads x target x source), got %s', L, S, N * h, L, S,
        describe(am))
    end
    add = additive(self, am, Q, 'attnMask')
    if add:dim() == 2 then add = add:view(1, L, S) end
  end
  if kpm ~= nil then
    -- unbatched inputs take PyTorch's 1-D (source length) mask too
    if unbatched and torch.isTensor(kpm) and kpm:dim() == 1 and kpm:size(1) == S then kpm = kpm:view(1, S) end
    if not torch.isTensor(kpm) or kpm:dim() ~= 2 or kpm:size(1) ~= N or kpm:size(2) ~= S then
      fail(self, 'keyPaddingMask must be %dx%d (batch x source length%s), got %s', N, S,
        unbatched and ', or ' .. S .. ' unbatched' or '', describe(kpm))
    end
    local pad = additive(self, kpm, Q, 'keyPaddingMask'):view(N, 1, 1, S):expand(N, h, 1, S):reshape(N * h, 1, S)
    add = add and torch.add(add, pad) or pad
  end
  if add and extra > 0 then  -- the extra keys are never masked
    add = torch.cat({ add, add.new(add:size(1), add:size(2), extra):zero() }, 3)
  end
  local scale = 1 / math.sqrt(hd)
  local scores
  if add then scores = torch.baddbmm(1, add, scale, Q, K:transpose(2, 3))
  else scores = torch.bmm(Q, K:transpose(2, 3)):mul(scale) end
  local attn = torch.softmax(scores, 3)
  if self.dropout > 0 and self.train ~= false then
    drop = drop or attn.new(attn:size()):bernoulli(1 - self.dropout):div(1 - self.dropout)
    attn = torch.cmul(attn, drop)
  else
    drop = nil
  end
  local o = torch.bmm(attn, V):transpose(1, 2):reshape(L * N, E)
  local out = self.outProj.bias and torch.addmm(self.outProj.bias:view(1, E), o, self.outProj.weight:t())
    or torch.mm(o, self.outProj.weight:t())
  out = out:view(L, N, E)
  if unbatched then out = out:select(2, 1)
  elseif self.batchFirst then out = out:transpose(1, 2):contiguous() end
  local weights
  if self.needWeights then
    weights = attn:view(N, h, L, S + extra)
    if self.averageAttnWeights then weights = weights:sum(2):div(h):select(2, 1) end
    if unbatched then weights = weights:select(1, 1) end
  end
  return out, weights, drop
end

--- m:forward(input): see updateOutput (the computation records itself; no coarse node).
function MHA:forward(input) return self:updateOutput(input) end

--- m:updateOutput(input): input is a tensor (self-attention) or {query, key, value [,
--- keyPaddingMask = mask] [, attnMask = mask]}; query is targetLength x batch x embedDim (batch
--- first with batchFirst; or without the batch dim), key/value sourceLength x batch x kdim/vdim.
--- keyPaddingMask (batch x sourceLength) and attnMask (targetLength x sourceLength, or
--- batch*heads x targetLength x sourceLength) are boolean (ByteTensor/BoolTensor, true = masked)
--- or additive float masks. Returns the attention output (like query); with m.needWeights (the
--- default) m.attnWeights holds the attention weights averaged over heads (batch x target x
--- source), or per head (batch x heads x target x source) when m.averageAttnWeights is false
--- (source + 1 or + 2 columns with addBiasKv / addZeroAttn, Note [Attention extra keys]).
function MHA:updateOutput(input)
  local q, k, v, kpm, am = parse(self, input)
  local out, weights, drop = self:_compute(q, k, v, kpm, am, nil)
  self.output, self.attnWeights = out, weights
  self._last = { input = input, drop = drop }
  return out
end

-- Gradients by recomputing the last forward from detached inputs (Note [Attention and autograd]).
function MHA:updateGradInput(input, gradOutput)
  local last = self._last
  if not last then fail(self, 'backward called before forward') end
  local _, _, _, kpm, am = parse(self, input)
  if last.drop and not same_values(last.input, input) then
    fail(self, 'backward got another input than the last forward, whose dropout mask it must reuse')
  end
  local gy, gw = gradOutput, nil
  if type(gradOutput) == 'table' then gy, gw = gradOutput[1], gradOutput[2] end
  if not torch.isTensor(gy) or not gy:isSameSizeAs(self.output) then
    fail(self, 'gradOutput must be a tensor of the output size %s (or {gradOutput, gradAttnWeights}), got %s',
      table.concat(self.output:size():totable(), 'x'), describe(gy))
  end
  -- Note [Attention gradInput per slot]: gradInput mirrors the input: a tensor for a tensor, and
  -- one gradient per tensor given in the table ({x} -> {gx}; {q, k} -> {gq, gk}, where key is
  -- also the value and gk holds both parts), each slot differentiated on its own even when the
  -- same tensor fills several ({x, x, x} from an nn.ConcatTable gets three partial gradients,
  -- which the table sums; one merged gradient and nils broke it).
  local function proxy(t) return t:detach():requiresGrad() end
  local given = torch.isTensor(input) and { input } or { input[1], input[2], input[3] }
  local slots, xs = {}, {}
  for i = 1, 3 do
    if given[i] ~= nil then slots[#slots + 1] = i xs[#xs + 1] = proxy(given[i]) end
  end
  local at = {}
  for j, i in ipairs(slots) do at[i] = xs[j] end
  local params = self:parameters()
  local targets = {}
  for i, x in ipairs(xs) do targets[i] = x end
  for _, p in ipairs(params) do targets[#targets + 1] = p end
  local grads = torch.enableGrad(function()
    local pk = at[2] or at[1]
    local out, weights = self:_compute(at[1], pk, at[3] or pk, kpm, am, last.drop)
    local outs, gos = { out }, { gy }
    if gw ~= nil and weights then outs[2], gos[2] = weights, gw end
    return torch.autograd.grad(outs, targets, gos, { allowUnused = true })
  end)
  local function g(j) return grads[j] or xs[j].new(xs[j]:size()):zero() end
  if torch.isTensor(input) then self.gradInput = g(1)
  else
    self.gradInput = {}
    for j, i in ipairs(slots) do self.gradInput[i] = g(j) end
  end
  last.gradOutput, last.paramGrads = gradOutput, {}
  for k = 1, #params do last.paramGrads[k] = grads[#xs + k] end
  return self.gradInput
end

--- m:accGradParameters(input, gradOutput[, scale]): adds scale times the parameter gradients of
--- the last updateGradInput (computed then if needed) into the gradient tensors.
function MHA:accGradParameters(input, gradOutput, scale)
  local last = self._last
  if not last or not rawequal(last.gradOutput, gradOutput) then self:updateGradInput(input, gradOutput) end
  local _, gs = self:parameters()
  for k, g in ipairs(self._last.paramGrads) do if g then gs[k]:add(scale or 1, g) end end
end

-- Torch7's share names (clone('weight', 'bias', 'gradWeight', 'gradBias')) -> this module's fields.
local share_alias = {
  weight = { 'in_proj_weight', 'q_proj_weight', 'k_proj_weight', 'v_proj_weight' },
  bias = { 'in_proj_bias', 'bias_k', 'bias_v' },
  gradWeight = { 'gradInProjWeight', 'gradQProjWeight', 'gradKProjWeight', 'gradVProjWeight' },
  gradBias = { 'gradInProjBias', 'gradBiasK', 'gradBiasV' },
}

--- m:share(other, 'weight', 'bias', ...): m's tensors view other's. Note [Sharing attention
--- weights]: Torch7's names stand for the projections (weight: in_proj_weight or q/k/v_proj_weight,
--- bias: in_proj_bias and bias_k/bias_v, gradWeight/gradBias: their gradients), and the output projection m.outProj
--- shares with other.outProj under the same names (nn.Module's share does not walk the children a
--- builtin class names in _stateChildren, Note [Submodules in fields], so clone('weight', 'bias')
--- shared nothing). PyTorch's names (in_proj_weight...) work as they are.
--- Example: local m = nn.MultiHeadAttention(4, 2) local c = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
function MHA:share(other, ...)
  if not torch.isTypeOf(other, 'nn.MultiHeadAttention') then
    fail(self, 'share: expected another nn.MultiHeadAttention, got %s', describe(other))
  end
  local names = {}
  for _, n in ipairs({ ... }) do
    for _, f in ipairs(share_alias[n] or { n }) do
      if torch.isTensor(self[f]) then
        if not torch.isTensor(other[f]) or not other[f]:isSameSizeAs(self[f]) then
          fail(self, 'share: %s has no %s of size %s (got %s)', tostring(other), f,
            table.concat(self[f]:size():totable(), 'x'), describe(other[f]))
        end
        names[#names + 1] = f
      end
    end
  end
  parent.share(self, other, unpack(names))
  self.outProj:share(other.outProj, ...)
  nn.utils.linkGradients(self)
  return self
end

-- Note [Walking attention children]: nn.Module's apply, listModules and findModules walk only
-- self.modules and the field children of user classes (Note [Submodules in fields]), so
-- m:apply(init) never reached outProj nor a Transformer's layers; these classes walk their own.
--- m:apply(fn): fn(m), then fn on the output projection m.outProj (Note [Walking attention children]).
--- Example: nn.MultiHeadAttention(4, 2):apply(function(x) print(torch.type(x)) end)
function MHA:apply(fn)
  fn(self)
  self.outProj:apply(fn)
end
--- m:listModules(): m and its output projection.
--- Example: print(#nn.MultiHeadAttention(4, 2):listModules())
function MHA:listModules()
  local list = { self }
  for _, c in ipairs(self.outProj:listModules()) do list[#list + 1] = c end
  return list
end
--- m:findModules(typename): the modules of that class among m and m.outProj, and their containers.
--- Example: print(#nn.MultiHeadAttention(4, 2):findModules('nn.Linear'))
function MHA:findModules(typename, container)
  local nodes, containers = {}, {}
  if torch.typename(self) == typename then nodes[1], containers[1] = self, container end
  local n, c = self.outProj:findModules(typename, self)
  for i = 1, #n do nodes[#nodes + 1], containers[#containers + 1] = n[i], c[i] end
  return nodes, containers
end

--- m:type(name): converts the parameters (and drops the state of the last forward).
function MHA:type(name, cache)
  if name then self._last, self.attnWeights = nil, nil end
  return parent.type(self, name, cache)
end

--- m:clearState(): drops the output, the attention weights and the state of the last forward.
function MHA:clearState()
  self._last, self.attnWeights = nil, nil
  return parent.clearState(self)
end

function MHA:__tostring__()
  local extra = {}
  if self.kdim ~= self.embedDim then extra[#extra + 1] = 'kdim ' .. self.kdim end
  if self.vdim ~= self.embedDim then extra[#extra + 1] = 'vdim ' .. self.vdim end
  if self.dropout > 0 then extra[#extra + 1] = 'dropout ' .. self.dropout end
  if self.batchFirst then extra[#extra + 1] = 'batchFirst' end
  if not self.bias then extra[#extra + 1] = 'without bias' end
  if self.addBiasKv then extra[#extra + 1] = 'addBiasKv' end
  if self.addZeroAttn then extra[#extra + 1] = 'addZeroAttn' end
  return string.format('nn.MultiHeadAttention(%d, %d heads%s)', self.embedDim, self.numHeads,
    #extra > 0 and ', ' .. table.concat(extra, ', ') or '')
end

return MHA
