-- The steps shared by the wrappers that reparametrize a module's weight (nn.WeightNorm,
-- nn.SpectralNorm): both write the weight from their own parameters in updateOutput and turn the
-- wrapped module's weight gradient into their parameters' gradients in accGradParameters.
local reparam = {}

-- The gradient the wrapped module m gives its weight for this call alone: m accumulates into
-- wrapper._gradW (zeroed, shaped like w) in place of its own m[gradName], which is put back even
-- when m raises.
-- Note [The reparametrized weight under autograd]: the wrapper exposes the module's weight as its
-- own (wn.weight, sn.weight), which requires grad (the module linked it), so it is an input of the
-- wrapper's coarse node (Note [Parameters with a history]). The node captures its gradient by
-- putting a buffer at wrapper[gradName], a field the wrapper has only then; that buffer gets this
-- call's dL/dweight. Before, nothing filled it: torch.autograd.grad(loss, {wn.weight}) was
-- silently zeros (PyTorch gives dL/dweight), and loss:backward() added zeros to its .grad.
function reparam.weightGradient(wrapper, m, w, gradName, input, gradOutput, scale)
  local saved = m[gradName]
  wrapper._gradW = (wrapper._gradW and wrapper._gradW:type() == w:type()) and wrapper._gradW or w.new()
  wrapper._gradW:resize(w:size()):zero()
  m[gradName] = wrapper._gradW
  local ok, err = pcall(m.accGradParameters, m, input, gradOutput, scale or 1)
  m[gradName] = saved
  if not ok then error(err, 0) end
  local own = rawget(wrapper, gradName)
  if torch.isTensor(own) and not rawequal(own, saved) then own:add(wrapper._gradW) end
  return wrapper._gradW
end

-- Note [Gradient penalties through a reparametrized weight]: under createGraph=true the coarse
-- node's backward records, and the module's updateGradInput builds the input gradient's graph
-- from the weight it reads: the module's weight, a leaf written with recording off. The input
-- gradient then depended on v and g (weight_orig) through its gradOutput only, and a gradient
-- penalty (||dL/dx||^2 differentiated with respect to the parameters, WGAN-GP) silently missed
-- the path through the weight (wrong against finite differences). While recording, with a
-- parameter that needs a gradient, the wrapper's weight is recomputed with recording on
-- (wrapper:_recordedWeight()) and put in the module's place for updateGradInput.
-- Torch7's backward runs with recording off and is unchanged.
function reparam.updateGradInput(wrapper, m, name, input, gradOutput)
  if not (torch.isGradEnabled() and wrapper:_paramsNeedGrad()) then return m:updateGradInput(input, gradOutput) end
  local w = m[name]
  m[name] = wrapper:_recordedWeight()
  local ok, res = pcall(m.updateGradInput, m, input, gradOutput)
  m[name] = w
  if not ok then error(res, 0) end
  return res
end

-- Torch7's accUpdateGradParameters for a wrapper whose parameters() are its own: the step
-- p -= lr * g with this call's gradients alone, leaving the accumulated ones as they were.
function reparam.accUpdateGradParameters(wrapper, input, gradOutput, lr)
  local params, grads = wrapper:parameters()
  local saved = {}
  for i, g in ipairs(grads) do saved[i] = g:clone() g:zero() end
  wrapper:accGradParameters(input, gradOutput, 1)
  for i, p in ipairs(params) do
    p:add(-lr, grads[i])
    grads[i]:copy(saved[i])
  end
end

-- Note [Wrappers relink after a type change]: nn.Container:type converts the children through
-- their own type(), which relinks their parameters (nn.utils.linkGradients), but not the
-- wrapper's own: after m:float() the new v and g (weight_orig) required no grad and had no .grad,
-- so loss:backward() gave them nothing. A wrapper whose parameters() lists tensors of its own
-- uses this type() instead.
function reparam.type(wrapper, name, cache)
  if not name then return wrapper._type end
  nn.Container.type(wrapper, name, cache)
  nn.utils.linkGradients(wrapper)
  return wrapper
end

return reparam
