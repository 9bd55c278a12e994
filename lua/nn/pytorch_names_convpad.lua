-- padding = 'same' and paddingMode ('reflect', 'replicate', 'circular') for the PyTorch-named
-- convolutions (nn.Conv1d/2d/3d, pytorch_names_conv.lua): parsing the options, padding the input
-- and taking the gradient back through the padding.
-- Note [Explicit padding on PyTorch-named convolutions]: PyTorch pads the input with F.pad (in the
-- padding mode, or with zeros for an asymmetric 'same', whose total dilation*(k-1) per dim puts the
-- odd cell on the right/bottom) and convolves with padding 0. Here the same: a module whose padding
-- the conv op cannot do itself keeps m._pads (F.pad's order, last dim first) and m._padMode, runs
-- its Torch7 parent's updateOutput/updateGradInput/accGradParameters on the padded input with
-- padding 0, and takes the padded input's gradient back through the padding (nn.functional_pool's
-- padBackward, or the sum of the wrapped borders for 'circular'). So the module stays a Torch7-style
-- one (one coarse autograd node, Note [Modules and autograd]) whose backward needs no replay. Cost:
-- each of updateOutput, updateGradInput and accGradParameters pads the input again (one copy of it,
-- nothing cached between calls, so a call never sees a stale padding), and updateGradInput
-- allocates the padded input's gradient. Symmetric zero padding (odd kernels with 'same') stays
-- inside the conv op, with no copy.
local lib = require 'torch.lib'
local P = require 'nn.pytorch_names_args'
local M = require 'nn.functional_pool'

local MODES = { zeros = 0, reflect = 1, replicate = 2, circular = 3 }
local pad = {}

-- Sets g.p (the conv op's own padding), g.pads/g.padMode (explicit padding) and g.padding
-- (PyTorch's padding argument, for printing) from the options o.
function pad.parse(cls, nd, transposed, o, g)
  local mode = o.paddingMode
  if mode == nil then mode = 'zeros' end
  if MODES[mode] == nil then
    lib.fail(cls, "paddingMode must be 'zeros', 'reflect', 'replicate' or 'circular', got %s", tostring(mode))
  end
  if transposed and mode ~= 'zeros' then
    lib.fail(cls, "only paddingMode = 'zeros' is supported for transposed convolutions (as PyTorch), got '%s'", mode)
  end
  local lo, hi = {}, {}
  if o.padding == 'same' then
    if transposed then lib.fail(cls, "padding = 'same' is not supported for transposed convolutions (as PyTorch)") end
    for d = 1, nd do
      if g.s[d] ~= 1 then
        lib.fail(cls, "padding = 'same' needs stride 1, got stride %s", table.concat(g.s, ','))
      end
      local total = g.d[d] * (g.k[d] - 1)
      lo[d], hi[d] = math.floor(total / 2), total - math.floor(total / 2)
    end
    g.padding = 'same'
  elseif type(o.padding) == 'string' and o.padding ~= 'valid' then
    lib.fail(cls, "padding must be numbers, 'valid' or 'same', got '%s'", o.padding)
  else
    lo = P.tuple(cls, 'padding', o.padding == 'valid' and 0 or o.padding, nd, 0, 0)
    for d = 1, nd do hi[d] = lo[d] end
    g.padding = o.padding == 'valid' and 'valid' or lo
  end
  local explicit = false
  for d = 1, nd do explicit = explicit or lo[d] ~= hi[d] or (mode ~= 'zeros' and lo[d] > 0) end
  g.p = {}
  for d = 1, nd do g.p[d] = explicit and 0 or lo[d] end
  if explicit then
    g.pads, g.padMode = {}, mode
    for d = nd, 1, -1 do
      g.pads[#g.pads + 1], g.pads[#g.pads + 2] = lo[d], hi[d]
    end
  end
  g.paddingMode = mode
end

function pad.setup(self, g)
  self._pads, self._padMode = g.pads, g.padMode
  self.padding, self.paddingMode = g.padding, g.paddingMode
end

-- The dim of x that F.pad's i-th pair pads (the last dim first).
local function dim_of(x, i) return x:dim() - i + 1 end

local function circular(self, x)
  for i = 1, #self._pads / 2 do
    local d = dim_of(x, i)
    local lo, hi, n = self._pads[2 * i - 1], self._pads[2 * i], x:size(d)
    if lo > n or hi > n then
      lib.fail(torch.typename(self), 'circular padding %d,%d is larger than the input size %d of dim %d', lo, hi, n, d)
    end
    local parts = {}
    if lo > 0 then parts[#parts + 1] = x:narrow(d, n - lo + 1, lo) end
    parts[#parts + 1] = x
    if hi > 0 then parts[#parts + 1] = x:narrow(d, 1, hi) end
    if #parts > 1 then x = torch.cat(parts, d) end
  end
  return x
end

-- The gradient of the circular padding: the middle plus the wrapped borders, dim by dim.
local function circular_back(self, g)
  for i = #self._pads / 2, 1, -1 do
    local d = dim_of(g, i)
    local lo, hi = self._pads[2 * i - 1], self._pads[2 * i]
    local n = g:size(d) - lo - hi
    local gi = g:narrow(d, lo + 1, n):clone()
    if lo > 0 then gi:narrow(d, n - lo + 1, lo):add(g:narrow(d, 1, lo)) end
    if hi > 0 then gi:narrow(d, 1, hi):add(g:narrow(d, lo + n + 1, hi)) end
    g = gi
  end
  return g
end

local function padded(self, input)
  if not torch.isTensor(input) then
    lib.fail(torch.typename(self), 'expected a tensor input, got %s', nn.utils.describe(input))
  end
  if self._padMode == 'circular' then return circular(self, input) end
  return M.call(self, M.pad, nil, input, self._pads, MODES[self._padMode], 0)
end

local function unpadded_grad(self, g, input)
  if self._padMode == 'circular' then return circular_back(self, g) end
  return M.call(self, M.padBackward, nil, g, input, self._pads, MODES[self._padMode])
end

-- Routes a convolution class's Torch7 methods through the explicit padding when an instance has one.
function pad.wrap(cls)
  local out, gin, acc = cls.updateOutput, cls.updateGradInput, cls.accGradParameters
  function cls:updateOutput(input)
    if not self._pads then return out(self, input) end
    return out(self, padded(self, input))
  end
  function cls:updateGradInput(input, gradOutput)
    if not self._pads or not self.gradInput then return gin(self, input, gradOutput) end
    self.gradInput = self.gradInput.new()
    local g = gin(self, padded(self, input), gradOutput)
    self.gradInput = unpadded_grad(self, g, input)
    return self.gradInput
  end
  function cls:accGradParameters(input, gradOutput, scale)
    if not self._pads then return acc(self, input, gradOutput, scale) end
    return acc(self, padded(self, input), gradOutput, scale)
  end
end

-- The printout's note of a padding the Torch7 fields do not show.
function pad.describe(self)
  local s = ''
  if self.padding == 'same' then s = s .. ', padding same'
  elseif self._pads then s = s .. ', padding ' .. table.concat(self.padding, ',') end
  if self.paddingMode and self.paddingMode ~= 'zeros' then s = s .. ', paddingMode ' .. self.paddingMode end
  return s
end

return pad
