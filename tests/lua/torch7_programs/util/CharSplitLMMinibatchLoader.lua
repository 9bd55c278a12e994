-- Part of the char-rnn imitation (karpathy/char-rnn util/CharSplitLMMinibatchLoader.lua): turns
-- data_dir/input.txt into vocab.t7 (char -> index table) and data.t7 (a ByteTensor of indices)
-- once, then serves {x, y} batches of batch_size x seq_length for the train/val/test splits.
local CharSplitLMMinibatchLoader = {}
CharSplitLMMinibatchLoader.__index = CharSplitLMMinibatchLoader

function CharSplitLMMinibatchLoader.create(data_dir, batch_size, seq_length, split_fractions)
  local self = {}
  setmetatable(self, CharSplitLMMinibatchLoader)

  local input_file = paths.concat(data_dir, 'input.txt')
  local vocab_file = paths.concat(data_dir, 'vocab.t7')
  local tensor_file = paths.concat(data_dir, 'data.t7')

  if not (paths.filep(vocab_file) and paths.filep(tensor_file)) then
    print('vocab.t7 and data.t7 do not exist. Running preprocessing...')
    CharSplitLMMinibatchLoader.text_to_tensor(input_file, vocab_file, tensor_file)
  end

  print('loading data files...')
  local data = torch.load(tensor_file)
  self.vocab_mapping = torch.load(vocab_file)

  -- cut off the end so that it divides evenly
  local len = data:size(1)
  if len % (batch_size * seq_length) ~= 0 then
    print('cutting off end of data so that the batches/sequences divide evenly')
    data = data:sub(1, batch_size * seq_length * math.floor(len / (batch_size * seq_length)))
  end

  self.vocab_size = 0
  for _ in pairs(self.vocab_mapping) do self.vocab_size = self.vocab_size + 1 end

  self.batch_size = batch_size
  self.seq_length = seq_length
  local ydata = data:clone()
  ydata:sub(1, -2):copy(data:sub(2, -1))
  ydata[-1] = data[1]
  self.x_batches = data:view(batch_size, -1):split(seq_length, 2)  -- #rows = #batches
  self.nbatches = #self.x_batches
  self.y_batches = ydata:view(batch_size, -1):split(seq_length, 2)
  assert(#self.x_batches == #self.y_batches)

  self.ntrain = math.floor(self.nbatches * split_fractions[1])
  self.nval = self.nbatches - self.ntrain
  self.ntest = 0
  self.split_sizes = {self.ntrain, self.nval, self.ntest}
  self.batch_ix = {0, 0, 0}
  print(string.format('data load done. Number of data batches in train: %d, val: %d, test: %d',
                      self.ntrain, self.nval, self.ntest))
  collectgarbage()
  return self
end

function CharSplitLMMinibatchLoader:reset_batch_pointer(split_index, batch_index)
  self.batch_ix[split_index] = batch_index or 0
end

function CharSplitLMMinibatchLoader:next_batch(split_index)
  self.batch_ix[split_index] = self.batch_ix[split_index] + 1
  if self.batch_ix[split_index] > self.split_sizes[split_index] then
    self.batch_ix[split_index] = 1 -- cycle around to beginning
  end
  local ix = self.batch_ix[split_index]
  if split_index == 2 then ix = ix + self.ntrain end
  return self.x_batches[ix], self.y_batches[ix]
end

-- *** STATIC method ***
function CharSplitLMMinibatchLoader.text_to_tensor(in_textfile, out_vocabfile, out_tensorfile)
  local timer = torch.Timer()
  local f = assert(io.open(in_textfile, "r"))
  local rawdata = f:read('*a')
  f:close()
  -- record all characters to a set, then sort them so the indices are 1..N
  local unordered = {}
  for char in rawdata:gmatch'.' do unordered[char] = true end
  local ordered = {}
  for char in pairs(unordered) do ordered[#ordered + 1] = char end
  table.sort(ordered)
  local vocab_mapping = {}
  for i, char in ipairs(ordered) do vocab_mapping[char] = i end
  -- one character at a time into a ByteTensor, as the original did
  local data = torch.ByteTensor(#rawdata)
  for i = 1, #rawdata do data[i] = vocab_mapping[rawdata:sub(i, i)] end
  print('saving ' .. out_vocabfile)
  torch.save(out_vocabfile, vocab_mapping)
  print('saving ' .. out_tensorfile)
  torch.save(out_tensorfile, data)
  print(string.format('preprocessing took %.3fs', timer:time().real))
end

return CharSplitLMMinibatchLoader
