-- nn.PackedSequence and nn.utils.rnn (PyTorch's torch.nn.utils.rnn): sequences of different
-- lengths packed time step by time step, for the recurrent modules (nn/rnn_packed.lua), and the
-- functions that pack, pad and unpack them. All of it is indexing, cat and stack, so it runs on
-- CUDA and under autograd (a gradient flows back to the padded input or the sequences).
--
-- Note [Packed layout]: like PyTorch, data holds step 1 of every sequence, then step 2 of those
-- that are at least 2 long, ...: batchSizes[t] rows for step t, the sequences in decreasing order
-- of length. sortedIndices[j] is the caller's index of the j-th longest sequence and
-- unsortedIndices its inverse (1-based LongTensors, on data's device), both nil when the caller's
-- batch was sorted already (enforceSorted); batchSizes stays a CPU LongTensor, as in PyTorch.
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local PackedSequence = torch.class('nn.PackedSequence')

local function is_long(t) return torch.isTensor(t) and t:type():match('LongTensor$') ~= nil and t:dim() == 1 end

-- idx on the device of like (index ops refuse to mix devices).
local function on_device(idx, like) return idx and idx:to(like:device()) end
PackedSequence._onDevice = on_device

-- The inverse of a permutation (a 1-based LongTensor), as a LongTensor on the same device; fails
-- unless perm holds each of 1..n once (0-based indices from PyTorch code would otherwise put rows
-- in the wrong places silently). unsorted, when given, must be that inverse.
local function inverse(op, perm, unsorted)
  local p, inv = perm:totable(), {}
  for j, b in ipairs(p) do
    if b < 1 or b > #p or inv[b] then
      lib.fail(op, 'sortedIndices must be a permutation of 1..%d (1-based), got %s', #p, table.concat(p, ' '))
    end
    inv[b] = j
  end
  if unsorted then
    local u = unsorted:totable()
    for j, b in ipairs(u) do
      if inv[j] ~= b then
        lib.fail(op, 'unsortedIndices must be the inverse of sortedIndices (%s), got %s', table.concat(inv, ' '),
          table.concat(u, ' '))
      end
    end
    return on_device(unsorted, perm)
  end
  return on_device(torch.LongTensor(inv), perm)
end

--- nn.PackedSequence(data, batchSizes [, sortedIndices [, unsortedIndices]]): sequences packed
--- step by step (Note [Packed layout] in nn/PackedSequence.lua), PyTorch's fields data,
--- batchSizes, sortedIndices, unsortedIndices; usually made by nn.utils.rnn.packPaddedSequence.
--- Example: nn.PackedSequence(torch.randn(3, 2), torch.LongTensor{2, 1})
function PackedSequence:__init(data, batchSizes, sortedIndices, unsortedIndices)
  local op = 'nn.PackedSequence'
  if not torch.isTensor(data) or data:dim() < 1 then lib.fail(op, 'data must be a tensor, got %s', describe(data)) end
  if not is_long(batchSizes) or batchSizes:nElement() == 0 then
    lib.fail(op, 'batchSizes must be a non-empty 1-D LongTensor, got %s', describe(batchSizes))
  end
  local bs, total = batchSizes:totable(), 0
  for t, b in ipairs(bs) do
    if b < 1 or (t > 1 and b > bs[t - 1]) then
      lib.fail(op, 'batchSizes must be positive and non-increasing, got %s', table.concat(bs, ' '))
    end
    total = total + b
  end
  if data:size(1) ~= total then
    lib.fail(op, 'data has %d rows but batchSizes add up to %d', data:size(1), total)
  end
  for _, idx in ipairs({ sortedIndices or false, unsortedIndices or false }) do
    if idx and (not is_long(idx) or idx:nElement() ~= bs[1]) then
      lib.fail(op, 'sortedIndices and unsortedIndices must be 1-D LongTensors of the batch size %d, got %s', bs[1],
        describe(idx))
    end
  end
  self.data, self.batchSizes = data, batchSizes:cpu()
  self.sortedIndices = on_device(sortedIndices, data)
  self.unsortedIndices = sortedIndices and on_device(inverse(op, sortedIndices, unsortedIndices), data)
end

local function with_data(self, data)
  return nn.PackedSequence(data, self.batchSizes, self.sortedIndices, self.unsortedIndices)
end

--- ps:to(device[, typename]) or ps:to(typename): the sequence with data moved and/or converted
--- (Tensor:to's arguments); the indices follow data's device, batchSizes stays on the CPU.
--- Example: nn.utils.rnn.packSequence({torch.randn(2, 3), torch.randn(1, 3)}):to('torch.DoubleTensor')
function PackedSequence:to(...) return with_data(self, self.data:to(...)) end
--- ps:type([typename]): data's type name, or the sequence with data converted to typename.
--- Example: nn.utils.rnn.packSequence({torch.randn(2, 3)}):type('torch.DoubleTensor')
function PackedSequence:type(name)
  if name == nil then return self.data:type() end
  return with_data(self, self.data:type(name))
end
--- ps:cuda(): the sequence with data on the current CUDA device.
--- Example: torch.cuda.isAvailable() and nn.utils.rnn.packSequence({torch.randn(2, 3)}):cuda()
function PackedSequence:cuda(...) return with_data(self, self.data:cuda(...)) end
--- ps:cpu(): the sequence with data on the CPU.
--- Example: nn.utils.rnn.packSequence({torch.randn(2, 3)}):cpu()
function PackedSequence:cpu() return with_data(self, self.data:cpu()) end
--- ps:float(): the sequence with data as a FloatTensor (on its device).
--- Example: nn.utils.rnn.packSequence({torch.randn(2, 3):double()}):float()
function PackedSequence:float() return with_data(self, self.data:float()) end
--- ps:double(): the sequence with data as a DoubleTensor (on its device).
--- Example: nn.utils.rnn.packSequence({torch.randn(2, 3)}):double()
function PackedSequence:double() return with_data(self, self.data:double()) end
--- ps:isCuda(): whether data lives on a CUDA device.
--- Example: nn.utils.rnn.packSequence({torch.randn(2, 3)}):isCuda()
function PackedSequence:isCuda() return self.data:isCuda() end

function PackedSequence:__tostring__()
  return string.format('nn.PackedSequence(data: %s, batchSizes: %s%s)', describe(self.data),
    table.concat(self.batchSizes:totable(), ' '),
    self.sortedIndices and ', sortedIndices: ' .. table.concat(self.sortedIndices:totable(), ' ') or '')
end

return PackedSequence
