-- Part of the char-rnn imitation (karpathy/char-rnn util/model_utils.lua, after
-- wojciechz/learning_to_execute): clone_many_times makes T copies of a network that share its
-- parameters, by writing the network once to a torch.MemoryFile and reading it back T times,
-- then pointing each copy's parameters at the original's storages with Tensor:set.
require 'torch'
local model_utils = {}

function model_utils.clone_many_times(net, T)
  local clones = {}
  local params, gradParams
  if net.parameters then
    params, gradParams = net:parameters()
    if params == nil then params = {} end
  end
  local paramsNoGrad
  if net.parametersNoGrad then paramsNoGrad = net:parametersNoGrad() end

  local mem = torch.MemoryFile("w"):binary()
  mem:writeObject(net)

  for t = 1, T do
    -- a fresh reader per clone, so no object is shared through the reader's memo
    local reader = torch.MemoryFile(mem:storage(), "r"):binary()
    local clone = reader:readObject()
    reader:close()
    if net.parameters then
      local cloneParams, cloneGradParams = clone:parameters()
      for i = 1, #params do
        cloneParams[i]:set(params[i])
        cloneGradParams[i]:set(gradParams[i])
      end
      if paramsNoGrad then
        local cloneParamsNoGrad = clone:parametersNoGrad()
        for i = 1, #paramsNoGrad do cloneParamsNoGrad[i]:set(paramsNoGrad[i]) end
      end
    end
    clones[t] = clone
    collectgarbage()
  end
  mem:close()
  return clones
end

return model_utils
