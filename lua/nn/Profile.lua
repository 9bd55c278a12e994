-- nn.Profile(module[, print_interval=100, name]): a Decorator that times its module's forward and
-- backward passes and prints the summed time every print_interval passes (Torch7's nn, from
-- dpnn). GPU work is waited for before the clock is read, so the times are the module's own.
require 'nn.Decorator'
local S = require 'nn.support'
local Profile, parent = torch.class('nn.Profile', 'nn.Decorator')

function Profile:__init(module, print_interval, name)
  parent.__init(self, module)
  if print_interval ~= nil then S.argInt('nn.Profile', 'print_interval', print_interval, 1) end
  if name ~= nil and type(name) ~= 'string' then error('[nn.Profile] name must be a string, got ' .. S.describe(name), torch._lib.user_level()) end
  self.print_interval = print_interval or 100
  self.name = name or torch.type(module)
  self.numFwds, self.numBwds = 0, 0
  self.summedFwdTime, self.summedBwdTime = 0, 0
  self.timer = torch.Timer()
end

local function on_gpu(x)
  local yes = false
  nn.Module._each_tensor(x, function(t) if t:isCuda() then yes = true end end)
  return yes
end

-- Runs fn(...) and adds its time to the pass counter `kind` ('Fwd' or 'Bwd'), printing the sum
-- every print_interval passes (Torch7's message).
local function timed(self, kind, input, fn, ...)
  local gpu = on_gpu(input)
  if gpu then torch.cuda.synchronize() end
  self.timer:reset()
  local res = fn(...)
  if gpu then torch.cuda.synchronize() end
  local sum, n = 'summed' .. kind .. 'Time', 'num' .. kind .. 's'
  self[sum] = self[sum] + self.timer:time().real
  self[n] = self[n] + 1
  if self[n] % self.print_interval == 0 then
    print(string.format('%s took %.3f seconds for %d %s passes', self.name, self[sum], self.print_interval,
      kind == 'Fwd' and 'forward' or 'backward'))
    self[n], self[sum] = 0, 0
  end
  return res
end

function Profile:updateOutput(input)
  self.output = timed(self, 'Fwd', input, parent.updateOutput, self, input)
  return self.output
end

function Profile:updateGradInput(input, gradOutput)
  self.gradInput = timed(self, 'Bwd', input, parent.updateGradInput, self, input, gradOutput)
  return self.gradInput
end

function Profile:backward(input, gradOutput, scale)
  self.gradInput = timed(self, 'Bwd', input, parent.backward, self, input, gradOutput, scale)
  return self.gradInput
end

return Profile
