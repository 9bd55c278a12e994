-- nn.utils.rnn: PyTorch's torch.nn.utils.rnn (pad_sequence, pack_padded_sequence,
-- pad_packed_sequence, pack_sequence) as padSequence, packPaddedSequence, padPackedSequence and
-- packSequence, around nn.PackedSequence (Note [Packed layout] in nn/PackedSequence.lua). Each is
-- one index (or cat/stack) op, so gradients flow back to what was packed or padded.
local lib = require 'torch.lib'
local describe = require('torch.types').describe
require 'nn.PackedSequence'
local on_device = nn.PackedSequence._onDevice
local rnn = {}
nn.utils.rnn = rnn

-- The optional arguments of op: positional, or one trailing table with the camelCase names (or
-- PyTorch's snake_case ones). checks[name] is the Lua type each must have.
local function options(op, names, checks, ...)
  local n, vals = select('#', ...), { ... }
  local first = vals[1]
  if n == 1 and type(first) == 'table' and not torch.isTensor(first) then
    vals = {}
    for k, v in pairs(first) do
      local name = type(k) == 'string' and k:gsub('_(%l)', string.upper)
      local pos
      for i, m in ipairs(names) do if m == name then pos = i end end
      if not pos then lib.fail(op, 'unknown option %s', tostring(k)) end
      vals[pos] = v
    end
  elseif n > #names then
    lib.fail(op, 'expected at most %d optional arguments (%s), got %d', #names, table.concat(names, ', '), n)
  end
  for i, name in ipairs(names) do
    local v = vals[i]
    if v ~= nil and type(v) ~= checks[name] then lib.fail(op, '%s must be a %s, got %s', name, checks[name], describe(v)) end
  end
  return unpack(vals, 1, #names)
end
local pad, pack -- padSequence and packPaddedSequence for an op name, below
local kinds = { batchFirst = 'boolean', paddingValue = 'number', enforceSorted = 'boolean', totalLength = 'number' }

-- lengths (a table, LongStorage or 1-D LongTensor) as a Lua table of integers.
local function lengths_table(op, lengths)
  local t
  if type(lengths) == 'table' and not torch.isTensor(lengths) and torch.typename(lengths) == nil then t = lengths
  elseif torch.typename(lengths) == 'torch.LongStorage' then t = lengths:totable()
  elseif torch.isTensor(lengths) and lengths:type():match('LongTensor$') and lengths:dim() == 1 then t = lengths:totable()
  else lib.fail(op, 'lengths must be a table, a LongStorage or a 1-D LongTensor, got %s', describe(lengths)) end
  for i, v in ipairs(t) do
    if type(v) ~= 'number' or v % 1 ~= 0 then
      lib.fail(op, 'lengths[%d] is %s, expected an integer', i, type(v) == 'number' and tostring(v) or describe(v))
    end
  end
  return t
end

-- sizes with the first two replaced by n (flattening the time and batch dims of a padded tensor).
local function rows_view(x, n)
  local sz = x:size():totable()
  table.remove(sz, 1)
  sz[1] = n
  return x:contiguous():view(torch.LongStorage(sz))
end

--- nn.utils.rnn.padSequence(seqs [, batchFirst [, paddingValue]]): a list of tensors (length_i x
--- *) stacked into one maxLength x batch x * tensor (batch x maxLength x * with batchFirst),
--- shorter ones padded with paddingValue (0). Options may also be a table {batchFirst=, paddingValue=}.
--- Example: nn.utils.rnn.padSequence({torch.ones(3, 2), torch.ones(1, 2)}, true)
function rnn.padSequence(seqs, ...)
  local op = 'padSequence'
  local batchFirst, padValue = options(op, { 'batchFirst', 'paddingValue' }, kinds, ...)
  return pad(op, seqs, batchFirst, padValue)
end

-- padSequence for op.
function pad(op, seqs, batchFirst, padValue)
  if type(seqs) ~= 'table' or torch.isTensor(seqs) or #seqs == 0 then
    lib.fail(op, 'expected a non-empty list of tensors, got %s', describe(seqs))
  end
  local first, maxLen = seqs[1], 0
  for i, s in ipairs(seqs) do
    if not torch.isTensor(s) or s:dim() < 1 or s:dim() ~= (torch.isTensor(first) and first:dim() or -1)
        or s:type() ~= first:type() then
      lib.fail(op, 'sequence %d is %s, expected a tensor like sequence 1 (%s)', i, describe(s), describe(first))
    end
    for d = 2, s:dim() do
      if s:size(d) ~= first:size(d) then
        lib.fail(op, 'sequence %d is %s but sequence 1 is %s: the sizes after the first must match', i, describe(s),
          describe(first))
      end
    end
    maxLen = math.max(maxLen, s:size(1))
  end
  local rows = {}
  for i, s in ipairs(seqs) do
    local sz = s:size():totable()
    if s:size(1) < maxLen then
      sz[1] = maxLen - s:size(1)
      local fill = s.new(torch.LongStorage(sz)):fill(padValue or 0)
      rows[i] = s:size(1) == 0 and fill or torch.cat(s, fill, 1)
    else
      rows[i] = s
    end
  end
  return torch.stack(rows, batchFirst and 1 or 2)
end

--- nn.utils.rnn.packPaddedSequence(input, lengths [, batchFirst [, enforceSorted]]): a
--- nn.PackedSequence of the sequences of a padded input (T x batch x *, batch x T x * with
--- batchFirst) with the given lengths (a table, LongStorage or LongTensor). enforceSorted (true)
--- requires decreasing lengths; false sorts them (sortedIndices). Options may be a table.
--- Example: nn.utils.rnn.packPaddedSequence(torch.randn(3, 2, 4), {3, 1})
function rnn.packPaddedSequence(input, lengths, ...)
  local op = 'packPaddedSequence'
  local batchFirst, enforce = options(op, { 'batchFirst', 'enforceSorted' }, kinds, ...)
  enforce = enforce ~= false
  if not torch.isTensor(input) or input:dim() < 2 then
    lib.fail(op, 'input must be a tensor of at least 2 dims (%s x *), got %s',
      batchFirst and 'batch x T' or 'T x batch', describe(input))
  end
  return pack(op, input, lengths_table(op, lengths), batchFirst, enforce)
end

-- packPaddedSequence for op, once its arguments are checked.
function pack(op, input, len, batchFirst, enforce)
  local T, B = input:size(batchFirst and 2 or 1), input:size(batchFirst and 1 or 2)
  if #len ~= B then lib.fail(op, 'expected %d lengths (the batch size of %s), got %d', B, describe(input), #len) end
  -- PyTorch 1.13 refuses it too ("Cannot pack empty tensors"); a recurrent module takes the padded
  -- batch of size 0 itself (empty outputs).
  if B == 0 then lib.fail(op, 'cannot pack an empty batch (%s): pass the padded tensor to the module instead', describe(input)) end
  for i, l in ipairs(len) do
    if l < 1 or l > T then
      lib.fail(op, 'lengths[%d] = %d: every length must be in [1, %d] (the padded length of %s)', i, l, T, describe(input))
    end
  end
  local order = {}
  for b = 1, B do order[b] = b end
  if enforce then
    for b = 2, B do
      if len[b] > len[b - 1] then
        lib.fail(op, 'lengths must be sorted in decreasing order when enforceSorted is true, got %s '
          .. '(pass enforceSorted = false to sort them)', table.concat(len, ' '))
      end
    end
  else
    -- Stable: equal lengths keep the caller's order.
    table.sort(order, function(a, b) return len[a] > len[b] or (len[a] == len[b] and a < b) end)
  end
  local batchSizes, idx = {}, {}
  for t = 1, len[order[1]] do
    local n = 0
    for _, b in ipairs(order) do
      if len[b] < t then break end
      n = n + 1
      idx[#idx + 1] = batchFirst and (b - 1) * T + t or (t - 1) * B + b
    end
    batchSizes[t] = n
  end
  local data = rows_view(input, T * B):index(1, on_device(torch.LongTensor(idx), input))
  return nn.PackedSequence(data, torch.LongTensor(batchSizes), (not enforce) and torch.LongTensor(order) or nil)
end

--- nn.utils.rnn.padPackedSequence(packed [, batchFirst [, paddingValue [, totalLength]]]): the
--- padded T x batch x * tensor (batch x T x * with batchFirst; T = totalLength or the longest
--- length) of a nn.PackedSequence, in the caller's batch order, and the lengths (a LongTensor).
--- Example: nn.utils.rnn.padPackedSequence(nn.utils.rnn.packSequence({torch.ones(2, 3), torch.ones(1, 3)}))
function rnn.padPackedSequence(packed, ...)
  local op = 'padPackedSequence'
  local batchFirst, pad, total = options(op, { 'batchFirst', 'paddingValue', 'totalLength' }, kinds, ...)
  if torch.typename(packed) ~= 'nn.PackedSequence' then
    lib.fail(op, 'expected a nn.PackedSequence, got %s', describe(packed))
  end
  local bs = packed.batchSizes:totable()
  local T, B, N = #bs, bs[1], packed.data:size(1)
  total = total or T
  if total < T or total % 1 ~= 0 then
    lib.fail(op, 'totalLength must be an integer at least the longest length %d, got %s', T, tostring(total))
  end
  local off, sorted_len = {}, {}
  for t = 1, T do
    off[t] = t == 1 and 0 or off[t - 1] + bs[t - 1]
    for j = 1, bs[t] do sorted_len[j] = t end
  end
  local pos = packed.unsortedIndices and packed.unsortedIndices:totable()
  local idx, lens = {}, {}
  for b = 1, B do lens[b] = sorted_len[pos and pos[b] or b] end
  -- Each output row reads its data row, or row N + 1 (the padding row appended to data).
  local function row(t, b)
    local j = pos and pos[b] or b
    return t <= lens[b] and off[t] + j or N + 1
  end
  if batchFirst then
    for b = 1, B do for t = 1, total do idx[#idx + 1] = row(t, b) end end
  else
    for t = 1, total do for b = 1, B do idx[#idx + 1] = row(t, b) end end
  end
  local data = packed.data
  local sz = data:size():totable()
  sz[1] = 1
  local ext = torch.cat(data, data.new(torch.LongStorage(sz)):fill(pad or 0), 1)
  local out = ext:index(1, on_device(torch.LongTensor(idx), data))
  sz = data:size():totable()
  sz[1] = batchFirst and total or B
  table.insert(sz, 1, batchFirst and B or total)
  return out:view(torch.LongStorage(sz)), torch.LongTensor(lens)
end

--- nn.utils.rnn.packSequence(seqs [, enforceSorted]): a nn.PackedSequence of a list of tensors
--- (length_i x *); enforceSorted (true) requires them longest first. Options may be a table.
--- Example: nn.utils.rnn.packSequence({torch.randn(1, 3), torch.randn(2, 3)}, false)
function rnn.packSequence(seqs, ...)
  local op = 'packSequence'
  local enforce = options(op, { 'enforceSorted' }, kinds, ...)
  local padded = pad(op, seqs)
  local lengths = {}
  for i, s in ipairs(seqs) do lengths[i] = s:size(1) end
  return pack(op, padded, lengths, false, enforce ~= false)
end

return rnn
