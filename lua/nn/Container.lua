-- nn.Container: a module made of modules (self.modules); parameters, modes, type conversion and
-- errors are delegated to the children. Containers are transparent to autograd: each child
-- decides whether it is a coarse node (Note [Modules and autograd] in nn/Module.lua).
local Container, parent = torch.class('nn.Container', 'nn.Module')

function Container:__init(...)
  parent.__init(self, ...)
  self.modules = {}
  self._transparent = true
end

--- c:add(module): appends a module; returns c.
function Container:add(module)
  if type(module) ~= 'table' or not module.forward then
    error(string.format('[%s] add expects a module, got %s', torch.typename(self), torch.type(module)), torch._lib.user_level())
  end
  table.insert(self.modules, module)
  return self
end
function Container:get(index) return self.modules[index] end
function Container:size() return #self.modules end

-- Runs module:fn(...) and, on error, names the child (index and type) in the message.
function Container:rethrowErrors(module, index, fn, ...)
  local res = { pcall(module[fn], module, ...) }
  if not res[1] then
    local msg = tostring(res[2])
    error(string.format('%s (in module %d (%s) of %s, %s)', msg, index, tostring(module), torch.typename(self), fn), 0)
  end
  return unpack(res, 2, table.maxn(res))
end

function Container:zeroGradParameters()
  for _, m in ipairs(self.modules) do m:zeroGradParameters() end
end
local function update_children(self, lr)
  for _, m in ipairs(self.modules) do m:updateParameters(lr) end
end
-- One batch for the whole tree: its CUDA updates launch together (Note [Multi-tensor optimizer steps]).
function Container:updateParameters(lr)
  require('optim.fused').batch(update_children, self, lr)
end
function Container:training()
  parent.training(self)
  for _, m in ipairs(self.modules) do m:training() end
end
function Container:evaluate()
  parent.evaluate(self)
  for _, m in ipairs(self.modules) do m:evaluate() end
end
function Container:share(other, ...)
  for i, m in ipairs(self.modules) do m:share(other.modules[i], ...) end
  return self
end
function Container:reset(stdv)
  for _, m in ipairs(self.modules) do m:reset(stdv) end
end

--- c:parameters(): the children's parameters and gradients, concatenated.
function Container:parameters()
  local w, gw = {}, {}
  for _, m in ipairs(self.modules) do
    local mw, mgw = m:parameters()
    if mw then
      for i = 1, #mw do
        w[#w + 1] = mw[i]
        gw[#gw + 1] = mgw[i]
      end
    end
  end
  return w, gw
end

function Container:clearState(...)
  parent.clearState(self, ...)
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

--- c:applyToModules(fn): calls fn(child) for each direct child (Torch7).
function Container:applyToModules(fn)
  for _, m in ipairs(self.modules) do fn(m) end
end

-- Torch7 converts children through their own type() (nn.utils.recursiveType), so overrides like
-- nn.Copy's dontCast or modules keeping LongTensor buffers are honoured inside containers.
function Container:type(name, cache)
  if not name then return self._type end
  cache = cache or {}
  for _, m in ipairs(self.modules) do m:type(name, cache) end
  local modules = self.modules
  self.modules = nil
  local ok, err = pcall(nn.utils.convertTensors, self, name, cache)
  self.modules = modules
  if not ok then error(err, 0) end
  self._type = name
  return self
end

-- Torch7's branch printing of Concat, ConcatTable, Parallel and ParallelTable:
--   name {
--     input
--       |`-> (1): child
--       `-> (n): last child      (lastArrow and lastExt differ between the Torch7 classes)
--      ... -> output
--   }
function Container:_branchString(lastArrow, lastExt)
  local tab, line = '  ', '\n'
  local arrow, ext = '  |`-> ', '  |    '
  local str = torch.type(self) .. ' {' .. line .. tab .. 'input'
  for i, m in ipairs(self.modules) do
    local last = i == #self.modules
    local body = tostring(m):gsub(line, line .. tab .. (last and lastExt or ext))
    str = str .. line .. tab .. (last and lastArrow or arrow) .. '(' .. i .. '): ' .. body
  end
  return str .. line .. tab .. '   ... -> output' .. line .. '}'
end

return Container
