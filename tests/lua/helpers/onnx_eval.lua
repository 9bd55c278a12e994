-- A small interpreter of the ONNX operators torch.onnx.export emits, for tests/lua/test_onnx*.lua.
-- It reads the graph decoded by helpers/onnx_read.lua and follows the ONNX operator spec (pads
-- [x1_begin, x2_begin, ..., x1_end, x2_end], 0-based axes, Gemm's transB, pools' ceil_mode), in
-- double precision, with Tocha ops and its own pooling loops: it shares no code with the writer.
local M = {}

local function ints(t) return t:long():totable() end

-- F.pad order (last dim first) of ONNX pads over the last nd dims of a rank-r tensor.
local function fpad(pads, r, nd)
  local out = {}
  for i = r, r - nd + 1, -1 do
    out[#out + 1] = pads[i]
    out[#out + 1] = pads[r + i]
  end
  return out
end

-- Conv: pads applied first (zeros, possibly asymmetric), then a convolution with padding 0.
local function conv(x, w, b, a)
  local nd = w:dim() - 2
  local pads = a.pads or {}
  local r = x:dim()
  local full = {}
  for i = 1, r do full[i], full[r + i] = 0, 0 end
  for i = 1, nd do full[2 + i], full[r + 2 + i] = pads[i] or 0, pads[nd + i] or 0 end
  local any = false
  for _, p in ipairs(full) do any = any or p ~= 0 end
  if any then x = nn.functional.pad(x, fpad(full, r, nd), 'constant', 0) end
  local f = ({ torch.conv1d, torch.conv2d, torch.conv3d })[nd]
  return f(x, w, b, a.strides or 1, 0, a.dilations or 1, a.group or 1)
end

-- ConvTranspose: the full (unpadded) transposed convolution, then pads cropped from each side.
local function conv_transpose(x, w, b, a)
  local nd = w:dim() - 2
  local f = ({ torch.convTranspose1d, torch.convTranspose2d, torch.convTranspose3d })[nd]
  local y = f(x, w, b, a.strides or 1, 0, a.output_padding or 0, a.group or 1, a.dilations or 1)
  local pads = a.pads or {}
  for i = 1, nd do
    local lo, hi = pads[i] or 0, pads[nd + i] or 0
    y = y:narrow(2 + i, 1 + lo, y:size(2 + i) - lo - hi)
  end
  return y:contiguous()
end

-- MaxPool / AveragePool by loops over every output cell (ONNX's output size; with ceil_mode the
-- last window must start inside the input or its left padding, as onnxruntime does).
local function pool(x, a, kind)
  local k, nd = a.kernel_shape, #a.kernel_shape
  local s, d = a.strides or {}, a.dilations or {}
  local pads = a.pads or {}
  local N, C = x:size(1), x:size(2)
  local ins, outs, lo, hi = {}, {}, {}, {}
  for i = 1, nd do
    s[i], d[i] = s[i] or 1, d[i] or 1
    lo[i], hi[i] = pads[i] or 0, pads[nd + i] or 0
    ins[i] = x:size(2 + i)
    local num = ins[i] + lo[i] + hi[i] - ((k[i] - 1) * d[i] + 1)
    local o = (a.ceil_mode == 1 and math.ceil(num / s[i]) or math.floor(num / s[i])) + 1
    if a.ceil_mode == 1 and (o - 1) * s[i] >= ins[i] + lo[i] then o = o - 1 end
    outs[i] = o
  end
  local planes = x:contiguous():view(N * C, -1):totable()
  local stride_in = {}
  local acc = 1
  for i = nd, 1, -1 do stride_in[i] = acc acc = acc * ins[i] end
  local nout = 1
  for i = 1, nd do nout = nout * outs[i] end
  local res = {}
  for p = 1, N * C do
    local plane, row = planes[p], {}
    for o = 0, nout - 1 do
      local pos, rem = {}, o
      for i = nd, 1, -1 do pos[i] = rem % outs[i] rem = math.floor(rem / outs[i]) end
      local best, sum, count = -math.huge, 0, 0
      local function walk(i, off)
        if i > nd then
          local v = plane[off + 1]
          best, sum, count = math.max(best, v), sum + v, count + 1
          return
        end
        for j = 0, k[i] - 1 do
          local c = pos[i] * s[i] - lo[i] + j * d[i]
          if c >= 0 and c < ins[i] then walk(i + 1, off + c * stride_in[i]) end
        end
      end
      walk(1, 0)
      if kind == 'max' then row[o + 1] = best
      elseif a.count_include_pad == 1 then
        local vol = 1 -- window cells inside the padded input
        for i = 1, nd do
          local first = pos[i] * s[i] - lo[i]
          vol = vol * (math.min(first + k[i], ins[i] + hi[i]) - first)
        end
        row[o + 1] = sum / vol
      else
        row[o + 1] = sum / count
      end
    end
    res[p] = row
  end
  local size = { N, C }
  for i = 1, nd do size[2 + i] = outs[i] end
  return torch.DoubleTensor(res):view(torch.LongStorage(size))
end

local function bshape(x, c) -- a per-channel vector viewed to broadcast along dim 2 of x
  local s = { 1, c }
  for _ = 3, x:dim() do s[#s + 1] = 1 end
  return torch.LongStorage(s)
end

local OPS = {}
function OPS.Gemm(a, A, B, C)
  if a.transA == 1 then A = A:t() end
  if a.transB == 1 then B = B:t() end
  local y = torch.mm(A, B):mul(a.alpha or 1)
  if C then y = torch.add(y, torch.mul(C, a.beta or 1):view(1, -1):expandAs(y)) end
  return y
end
function OPS.MatMul(_, A, B) return torch.matmul(A, B) end
function OPS.Add(_, A, B) return torch.add(A, B) end
function OPS.Sub(_, A, B) return torch.csub(A, B) end
function OPS.Mul(_, A, B) return torch.cmul(A, B) end
function OPS.Div(_, A, B) return torch.cdiv(A, B) end
function OPS.Conv(a, x, w, b) return conv(x, w, b, a) end
function OPS.ConvTranspose(a, x, w, b) return conv_transpose(x, w, b, a) end
function OPS.MaxPool(a, x) return pool(x, a, 'max') end
function OPS.AveragePool(a, x) return pool(x, a, 'avg') end
function OPS.GlobalAveragePool(_, x)
  local y = x
  for d = x:dim(), 3, -1 do y = y:mean(d) end
  return y
end
function OPS.GlobalMaxPool(_, x)
  local y = x
  for d = x:dim(), 3, -1 do y = y:max(d) end
  return y
end
function OPS.BatchNormalization(a, x, sc, b, mean, var)
  local c = x:size(2)
  local v = function(t) return t:view(bshape(x, c)):expandAs(x) end
  local y = torch.cdiv(torch.csub(x, v(mean)), torch.sqrt(torch.add(v(var), a.epsilon or 1e-5)))
  return torch.add(torch.cmul(y, v(sc)), v(b))
end
function OPS.InstanceNormalization(a, x, sc, b)
  local N, C = x:size(1), x:size(2)
  local flat = x:contiguous():view(N, C, -1)
  local mean = flat:mean(3)
  local c = torch.csub(flat, mean:expandAs(flat))
  local var = torch.cmul(c, c):mean(3)
  local y = torch.cdiv(c, torch.sqrt(torch.add(var, a.epsilon or 1e-5)):expandAs(c))
  y = torch.add(torch.cmul(y, sc:view(1, C, 1):expandAs(y)), b:view(1, C, 1):expandAs(y))
  return y:view(x:size())
end
function OPS.Shape(_, x) return torch.LongTensor(x:size():totable()) end
function OPS.LayerNormalization(a, x, sc, b)
  local axis = a.axis or -1
  local y = x
  local mean, c = x, nil
  for d = x:dim(), axis + 1, -1 do mean = mean:mean(d) end
  c = torch.csub(x, mean:expandAs(x))
  local var = torch.cmul(c, c)
  for d = x:dim(), axis + 1, -1 do var = var:mean(d) end
  y = torch.cdiv(c, torch.sqrt(torch.add(var, a.epsilon or 1e-5)):expandAs(x))
  y = torch.cmul(y, sc:view(1, unpack(sc:size():totable())):expandAs(y))
  if b then y = torch.add(y, b) end
  return y
end
function OPS.Relu(_, x) return torch.cmax(x, 0) end
function OPS.LeakyRelu(a, x) return torch.add(torch.cmax(x, 0), torch.cmin(x, 0):mul(a.alpha or 0.01)) end
function OPS.Elu(a, x) return torch.add(torch.cmax(x, 0), torch.cmin(x, 0):exp():add(-1):mul(a.alpha or 1)) end
function OPS.Selu(a, x)
  return torch.add(torch.cmax(x, 0), torch.cmin(x, 0):exp():add(-1):mul(a.alpha)):mul(a.gamma)
end
function OPS.PRelu(_, x, slope) return torch.add(torch.cmax(x, 0), torch.cmul(torch.cmin(x, 0), slope)) end
function OPS.Celu(a, x)
  return torch.add(torch.cmax(x, 0), torch.cmin(torch.div(x, a.alpha):exp():add(-1):mul(a.alpha), 0))
end
function OPS.Shrink(a, x)
  local lam, bias = a.lambd or 0.5, a.bias or 0
  local lo = torch.lt(x, -lam):typeAs(x)
  local hi = torch.gt(x, lam):typeAs(x)
  return torch.add(torch.cmul(lo, torch.add(x, bias)), torch.cmul(hi, torch.add(x, -bias)))
end
function OPS.Neg(_, x) return torch.neg(x) end
function OPS.Abs(_, x) return torch.abs(x) end
function OPS.Exp(_, x) return torch.exp(x) end
function OPS.Log(_, x) return torch.log(x) end
function OPS.Softsign(_, x) return torch.cdiv(x, torch.abs(x):add(1)) end
function OPS.Pow(_, x, p) return torch.pow(x, p[1]) end
function OPS.Sigmoid(_, x) return torch.sigmoid(x) end
function OPS.Tanh(_, x) return torch.tanh(x) end
function OPS.Erf(_, x) return torch.erf(x) end
function OPS.Sqrt(_, x) return torch.sqrt(x) end
function OPS.Softplus(_, x) return torch.log1p(torch.exp(x)) end
function OPS.HardSigmoid(a, x) return torch.mul(x, a.alpha or 0.2):add(a.beta or 0.5):clamp(0, 1) end
function OPS.Clip(_, x, lo, hi) return torch.clamp(x, lo[1], hi[1]) end
function OPS.Softmax(a, x) return torch.softmax(x, (a.axis or -1) + 1) end
function OPS.LogSoftmax(a, x) return torch.logSoftmax(x, (a.axis or -1) + 1) end
function OPS.Identity(_, x) return x end
function OPS.Greater(_, a, b) return torch.gt(a, b:typeAs(a):expandAs(a)) end
function OPS.Where(_, c, a, b) return torch.where(c, a:expandAs(b), b) end
function OPS.Cast(a, x) assert(a.to == 7) return x:long() end
function OPS.Flatten(a, x)
  local axis, n = a.axis or 1, 1
  for d = 1, axis do n = n * x:size(d) end
  return x:contiguous():view(n, -1)
end
function OPS.Reshape(_, x, shape)
  local s = ints(shape)
  for i, v in ipairs(s) do if v == 0 then s[i] = x:size(i) end end
  return x:contiguous():view(torch.LongStorage(s))
end
function OPS.Concat(a, ...) return torch.cat({ ... }, a.axis + 1) end
function OPS.Gather(a, w, idx)
  assert((a.axis or 0) == 0)
  local flat = w:index(1, torch.add(idx:contiguous():view(-1), 1))
  local s = idx:size():totable()
  for d = 2, w:dim() do s[#s + 1] = w:size(d) end
  return flat:view(torch.LongStorage(s))
end
function OPS.Unsqueeze(_, x, axes)
  local s = x:size():totable()
  for _, ax in ipairs(ints(axes)) do table.insert(s, ax + 1, 1) end
  return x:contiguous():view(torch.LongStorage(s))
end
function OPS.Squeeze(_, x, axes)
  local s, drop = {}, {}
  for _, ax in ipairs(ints(axes)) do drop[ax + 1] = true end
  for d = 1, x:dim() do if not drop[d] then s[#s + 1] = x:size(d) end end
  return x:contiguous():view(torch.LongStorage(s))
end
function OPS.ReduceMean(a, x)
  local y = x
  local axes = a.axes
  table.sort(axes, function(p, q) return p > q end)
  for _, ax in ipairs(axes) do y = y:mean(ax + 1) end
  if a.keepdims == 0 then -- the reduced dims dropped (ONNX's default keeps them as size 1)
    local s, drop = {}, {}
    for _, ax in ipairs(axes) do drop[ax + 1] = true end
    for d = 1, x:dim() do if not drop[d] then s[#s + 1] = x:size(d) end end
    y = y:contiguous():view(torch.LongStorage(s))
  end
  return y
end
-- Transpose: output dim i is input dim perm[i] (0-based); the default reverses the dims.
function OPS.Transpose(a, x)
  local r = x:dim()
  local perm = a.perm
  if not perm then perm = {} for i = 1, r do perm[i] = r - i end end
  local p = {}
  for i = 1, r do p[i] = perm[i] + 1 end
  return x:permute(unpack(p)):contiguous()
end
-- Slice(data, starts, ends[, axes, steps]): steps of 1 only; negative and past-the-end bounds clamped
-- as the spec says.
function OPS.Slice(_, x, starts, ends, axes, steps)
  local st, en = ints(starts), ints(ends)
  local ax = axes and ints(axes) or {}
  if steps then for _, v in ipairs(ints(steps)) do assert(v == 1, 'Slice: only steps of 1') end end
  local y = x
  for i = 1, #st do
    local d = (ax[i] or (i - 1))
    if d < 0 then d = d + x:dim() end
    local n = x:size(d + 1)
    local lo, hi = st[i], en[i]
    if lo < 0 then lo = lo + n end
    if hi < 0 then hi = hi + n end
    lo, hi = math.max(0, math.min(lo, n)), math.max(0, math.min(hi, n))
    y = y:narrow(d + 1, lo + 1, hi - lo)
  end
  return y:contiguous()
end
-- Expand(x, shape): NumPy (bidirectional) broadcasting of x and shape.
function OPS.Expand(_, x, shape)
  local s = ints(shape)
  local r = math.max(#s, x:dim())
  local xs, out = {}, {}
  for i = 1, r do
    xs[i] = i > r - x:dim() and x:size(i - (r - x:dim())) or 1
    local si = i > r - #s and s[i - (r - #s)] or 1
    assert(xs[i] == si or xs[i] == 1 or si == 1, 'Expand: shapes do not broadcast')
    out[i] = math.max(xs[i], si)
  end
  return x:contiguous():view(torch.LongStorage(xs)):expand(torch.LongStorage(out)):contiguous()
end
function OPS.Pad(a, x, pads, value)
  local p = ints(pads)
  local r = x:dim()
  local nd = 0
  for i = 1, r do if p[i] ~= 0 or p[r + i] ~= 0 then nd = math.max(nd, r - i + 1) end end
  if nd == 0 then return x end
  local mode = ({ constant = 'constant', reflect = 'reflect', edge = 'replicate' })[a.mode or 'constant']
  return nn.functional.pad(x, fpad(p, r, nd), mode, value and value[1] or 0)
end

-- Recurrent operators (ONNX's LSTM, GRU, RNN; default activations, no clip, no peepholes or
-- sequence_lens): W [D, G*H, I] and R [D, G*H, H] in ONNX's gate order (LSTM i o f c, GRU z r h),
-- B [D, 2*G*H] = [Wb, Rb]; the reverse direction reads the sequence from its end. Returns
-- Y [T, D, B, H], Y_h [D, B, H] (and Y_c), step by step as the spec's equations say.
local ACT = { Tanh = torch.tanh, Relu = function(t) return torch.cmax(t, 0) end, Sigmoid = torch.sigmoid }
local function recurrent(kind, a, X, W, R, Bias, seqLens, h0, c0, peep)
  assert(seqLens == nil and peep == nil and a.clip == nil and a.layout == nil,
    kind .. ': unsupported input or attribute')
  local D = a.direction == 'bidirectional' and 2 or 1
  assert(a.direction == nil or a.direction == 'forward' or D == 2, kind .. ': direction ' .. tostring(a.direction))
  local T, N, H = X:size(1), X:size(2), a.hidden_size
  local G = W:size(2) / H
  local Y, Yh, Yc = X.new(T, D, N, H), X.new(D, N, H), X.new(D, N, H)
  for d = 1, D do
    local f = ACT[a.activations and a.activations[d] or 'Tanh']
    local Wd, Rd = W[d], R[d]
    local wb = Bias and Bias[d]:narrow(1, 1, G * H) or X.new(G * H):zero()
    local rb = Bias and Bias[d]:narrow(1, G * H + 1, G * H) or X.new(G * H):zero()
    local h = h0 and h0[d]:clone() or X.new(N, H):zero()
    local c = c0 and c0[d]:clone() or X.new(N, H):zero()
    local function gate(xw, hr, k)
      return torch.add(xw:narrow(2, (k - 1) * H + 1, H), hr:narrow(2, (k - 1) * H + 1, H))
    end
    for s = 1, T do
      local t = d == 2 and T - s + 1 or s
      local xw = torch.addmm(wb:view(1, -1):expand(N, G * H), X[t], Wd:t())   -- Xt W^T + Wb
      local hr = torch.addmm(rb:view(1, -1):expand(N, G * H), h, Rd:t())      -- Ht-1 R^T + Rb
      if kind == 'LSTM' then -- i o f c
        local i, o, fg = torch.sigmoid(gate(xw, hr, 1)), torch.sigmoid(gate(xw, hr, 2)), torch.sigmoid(gate(xw, hr, 3))
        local cc = torch.tanh(gate(xw, hr, 4))
        c = torch.add(torch.cmul(fg, c), torch.cmul(i, cc))
        h = torch.cmul(o, torch.tanh(c))
      elseif kind == 'GRU' then -- z r h
        local z, r = torch.sigmoid(gate(xw, hr, 1)), torch.sigmoid(gate(xw, hr, 2))
        local n
        if (a.linear_before_reset or 0) ~= 0 then
          n = torch.tanh(torch.add(xw:narrow(2, 2 * H + 1, H), torch.cmul(r, hr:narrow(2, 2 * H + 1, H))))
        else
          local rh = torch.mm(torch.cmul(r, h), Rd:narrow(1, 2 * H + 1, H):t())
          local rbh = rb:narrow(1, 2 * H + 1, H):view(1, H):expand(N, H)
          n = torch.tanh(torch.add(xw:narrow(2, 2 * H + 1, H), rh):add(rbh))
        end
        h = torch.add(torch.cmul(torch.mul(z, -1):add(1), n), torch.cmul(z, h))
      else
        h = f(gate(xw, hr, 1))
      end
      Y[t][d]:copy(h)
    end
    Yh[d]:copy(h)
    Yc[d]:copy(c)
  end
  return Y, Yh, kind == 'LSTM' and Yc or nil
end
function OPS.LSTM(a, ...) return recurrent('LSTM', a, ...) end
function OPS.GRU(a, ...) return recurrent('GRU', a, ...) end
function OPS.RNN(a, ...) return recurrent('RNN', a, ...) end

-- Resize (opset 13, sizes or scales; roi unused): along each resampled axis, every output index i
-- reads the source coordinate the coordinate_transformation_mode gives (scale: the given one, or
-- out / in for sizes), then nearest_mode 'floor' or linear interpolation between its two
-- neighbours (the coordinate clamped into the input, as the spec's edge padding); ONNX's n-linear
-- mode is separable, so the axes are resampled one after another.
local COORD = {
  asymmetric = function(i, s) return i / s end,
  half_pixel = function(i, s) return (i + 0.5) / s - 0.5 end,
  pytorch_half_pixel = function(i, s, _, O) return O > 1 and (i + 0.5) / s - 0.5 or 0 end,
  align_corners = function(i, _, I, O) return O == 1 and 0 or i * (I - 1) / (O - 1) end,
}
function OPS.Resize(a, x, _, scales, sizes)
  local r, out, sc = x:dim(), {}, {}
  if sizes then
    out = ints(sizes)
    for d = 1, r do sc[d] = out[d] / x:size(d) end
  else
    sc = scales:double():totable()
    for d = 1, r do out[d] = math.floor(x:size(d) * sc[d]) end
  end
  local coord = COORD[a.coordinate_transformation_mode or 'half_pixel']
  assert(coord, 'Resize: coordinate_transformation_mode ' .. tostring(a.coordinate_transformation_mode))
  local mode = a.mode or 'nearest'
  assert(mode == 'linear' or (mode == 'nearest' and a.nearest_mode == 'floor'), 'Resize: unsupported mode')
  local y = x
  for d = 1, r do
    local I, O = x:size(d), out[d]
    if I ~= O or sc[d] ~= 1 then
      local lo, hi, w = torch.LongTensor(O), torch.LongTensor(O), torch.DoubleTensor(O)
      for i = 0, O - 1 do
        local c = coord(i, sc[d], I, O)
        if mode == 'nearest' then c = math.floor(c) end
        c = math.min(math.max(c, 0), I - 1)
        local k = math.floor(c)
        lo[i + 1], hi[i + 1], w[i + 1] = k + 1, math.min(k + 1, I - 1) + 1, c - k
      end
      local view = {}
      for e = 1, r do view[e] = e == d and O or 1 end
      local y0, y1 = y:index(d, lo), y:index(d, hi)
      local wv = w:view(torch.LongStorage(view)):expandAs(y0)
      y = torch.add(y0, torch.cmul(torch.csub(y1, y0), wv))
    end
  end
  return y
end
-- DepthToSpace, mode CRD (the spec's reshape, transpose [0, 1, 4, 2, 5, 3], reshape) or DCR.
function OPS.DepthToSpace(a, x)
  local b, c, h, w, bs = x:size(1), x:size(2), x:size(3), x:size(4), a.blocksize
  local t, perm
  if a.mode == 'CRD' then t, perm = x:contiguous():view(b, c / (bs * bs), bs, bs, h, w), { 1, 2, 5, 3, 6, 4 }
  else t, perm = x:contiguous():view(b, bs, bs, c / (bs * bs), h, w), { 1, 4, 5, 2, 6, 3 } end
  return t:permute(unpack(perm)):contiguous():view(b, c / (bs * bs), h * bs, w * bs)
end

--- E.run(model, inputs): the graph's outputs (a list) for a list of input tensors.
function M.run(model, inputs)
  local env = {}
  for name, t in pairs(model.graph.inits) do env[name] = t:type() == 'torch.LongTensor' and t or t:double() end
  for i, v in ipairs(model.graph.inputs) do
    local t = inputs[i]
    env[v.name] = t:type() == 'torch.LongTensor' and t or t:double()
  end
  for _, n in ipairs(model.graph.nodes) do
    local f = OPS[n.op]
    if not f then error('the test interpreter has no ' .. n.op) end
    local args = {}
    for i, name in ipairs(n.inputs) do
      args[i] = env[name]
      if args[i] == nil and name ~= '' then error(string.format('%s reads %s before it is computed', n.op, name)) end
    end
    local res = { f(n.attrs, unpack(args, 1, #n.inputs)) } -- an omitted optional input ('') is nil
    for i, name in ipairs(n.outputs) do if name ~= '' then env[name] = res[i] end end
  end
  local outs = {}
  for i, v in ipairs(model.graph.outputs) do outs[i] = env[v.name] end
  return outs
end

return M
