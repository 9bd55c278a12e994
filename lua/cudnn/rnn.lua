-- cudnn.torch's recurrent layers over nn.LSTM / nn.GRU / nn.RNN (PyTorch's parameters and gate
-- order, lua/nn/RNNBase.lua) with cudnn.torch's constructor and state fields:
--   cudnn.LSTM(inputSize, hiddenSize, numLayers[, batchFirst, dropout, rememberStates]), cudnn.GRU,
--   cudnn.RNNTanh, cudnn.RNNReLU, cudnn.RNN (ReLU, cudnn.torch's default mode), cudnn.BLSTM and
--   cudnn.BGRU (bidirectional). forward(input) takes seqLen x batch x inputSize (batch x seqLen x
--   inputSize with batchFirst) and returns every step's last-layer hidden state; the initial
--   states are read from m.hiddenInput / m.cellInput when set, the final ones are left in
--   m.hiddenOutput / m.cellOutput (numLayers * directions x batch x hiddenSize); backward reads
--   m.gradHiddenOutput / m.gradCellOutput when set and leaves m.gradHiddenInput / m.gradCellInput.
-- Note [cudnn RNN weights]: cudnn.torch kept every parameter in one flat m.weight in cuDNN's
-- layout; these modules keep nn's named tensors (weight_ih_l0...), so m:getParameters() or
-- m:parameters() give the parameters, and cudnn.torch's m.weight does not exist.
local cudnn = rawget(_G, 'cudnn')

local user_level = torch._lib.user_level

local function fail(self, fmt, ...)
  error(string.format('[%s] ' .. fmt, torch.typename(self), ...), user_level())
end

-- Adds cudnn.torch's constructor and state handling to a class over an nn recurrent module.
local function recurrent(name, nnName, opts)
  local cls, parent = torch.class('cudnn.' .. name, 'nn.' .. nnName)

  function cls:__init(inputSize, hiddenSize, numLayers, batchFirst, dropout, rememberStates)
    if numLayers == nil then numLayers = 1 end
    if batchFirst ~= nil and type(batchFirst) ~= 'boolean' then
      error(string.format('[cudnn.%s] batchFirst must be true or false, got %s', name, tostring(batchFirst)),
        user_level())
    end
    parent.__init(self, inputSize, hiddenSize, numLayers,
      { batchFirst = batchFirst or false, dropout = dropout or 0, bidirectional = opts.bidirectional or false })
    if opts.relu then  -- nn.RNN takes the nonlinearity by name only (see nn.RNNBase); same parameters
      self.nonlinearity, self.mode = 'relu', 'RNN_RELU'
    end
    self.rememberStates = rememberStates or false
    self.numDirections = opts.bidirectional and 2 or 1
  end

  local lstm = nnName == 'LSTM'

  -- The call for nn's forward: input, or {input, h0[, c0]} from hiddenInput / cellInput (a missing
  -- one of an LSTM's two is zero, as cuDNN reads a null state).
  local function call_input(self, input)
    local h, c = self.hiddenInput, lstm and self.cellInput or nil
    if h == nil and c == nil then return input end
    if not torch.isTensor(input) or input:dim() ~= 3 then
      fail(self, 'expected a 3-D input (seqLength x miniBatch x inputSize), got %s',
        torch.isTensor(input) and table.concat(input:size():totable(), 'x') or type(input))
    end
    local B = self.batchFirst and input:size(1) or input:size(2)
    local zeros = function() return input.new(self.numLayers * self.numDirections, B, self.hiddenSize):zero() end
    if lstm then return { input, h or zeros(), c or zeros() } end
    return { input, h }
  end

  function cls:updateOutput(input)
    if torch.isTensor(input) and input:dim() ~= 3 then
      fail(self, 'input must have 3 dimensions: %s, got %s', self.batchFirst and 'miniBatch, seqLength, inputSize'
        or 'seqLength, miniBatch, inputSize', table.concat(input:size():totable(), 'x'))
    end
    local call = call_input(self, input)
    self._call = call
    parent.updateOutput(self, call)
    self.hiddenOutput, self.cellOutput = self.hN, self.cN
    if self.rememberStates then
      self.hiddenInput = self.hN:clone()
      if lstm then self.cellInput = self.cN:clone() end
    end
    return self.output
  end

  -- gradOutput with gradHiddenOutput / gradCellOutput when set.
  local function grad_call(self, gradOutput)
    local gh, gc = self.gradHiddenOutput, lstm and self.gradCellOutput or nil
    if gh == nil and gc == nil then return gradOutput end
    return { gradOutput, gh, gc }
  end

  -- The nn call of the last forward, checking that backward is given its input.
  local function last_call(self, input)
    local call = self._call
    if call == nil then fail(self, 'backward called before forward') end
    local given = type(call) == 'table' and call[1] or call
    if given ~= input then
      fail(self, 'backward got another input than the last forward (cudnn.torch used the state of the last forward)')
    end
    return call
  end

  function cls:updateGradInput(input, gradOutput)
    local gi = parent.updateGradInput(self, last_call(self, input), grad_call(self, gradOutput))
    if type(gi) == 'table' then
      self.gradInput, self.gradHiddenInput, self.gradCellInput = gi[1], gi[2], gi[3]
    else
      self.gradInput = gi
    end
    return self.gradInput
  end

  function cls:accGradParameters(input, gradOutput, scale)
    parent.accGradParameters(self, last_call(self, input), grad_call(self, gradOutput), scale)
  end

  --- m:resetStates(): forgets hiddenInput and cellInput (the next forward starts from zeros).
  --- Example: require 'cudnn'; local m = cudnn.LSTM(3, 4, 1); m:resetStates()
  function cls:resetStates()
    self.hiddenInput, self.cellInput = nil, nil
  end

  function cls:clearState()
    self._call, self.hiddenOutput, self.cellOutput = nil, nil, nil
    self.gradHiddenInput, self.gradCellInput = nil, nil
    return parent.clearState(self)
  end

  function cls:__tostring__()
    return string.format('cudnn.%s(%d -> %d, %d layer%s%s)', name, self.inputSize, self.hiddenSize, self.numLayers,
      self.numLayers == 1 and '' or 's', self.batchFirst and ', batchFirst' or '')
  end
  return cls
end

recurrent('LSTM', 'LSTM', {})
recurrent('GRU', 'GRU', {})
recurrent('RNNTanh', 'RNN', {})
recurrent('RNNReLU', 'RNN', { relu = true })
recurrent('RNN', 'RNN', { relu = true })
recurrent('BLSTM', 'LSTM', { bidirectional = true })
recurrent('BGRU', 'GRU', { bidirectional = true })

return cudnn
