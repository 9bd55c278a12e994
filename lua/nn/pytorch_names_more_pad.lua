-- PyTorch's padding modules missing from pytorch_names_pool.lua: nn.ZeroPad1d/3d,
-- nn.ConstantPad1d/2d/3d, nn.ReflectionPad1d/3d, nn.ReplicationPad1d/3d and nn.CircularPad1d/2d/3d.
-- Each pads the last nd dims of a (nd+1)-D unbatched or (nd+2)-D batched input; padding is a
-- number or PyTorch's {left, right [, top, bottom [, front, back]]} (from the last dim). Forward
-- is nn.functional.pad's recorded op (circular: narrow and cat), backward autograd's (Note
-- [Modules and autograd]); ReplicationPad3d extends Torch7's VolumetricReplicationPadding.
-- Note [Pad classes]: PyTorch 2.x derives ZeroPadNd from ConstantPadNd; here ZeroPad1d/3d are
-- constant pads with value 0 too (ZeroPad2d stays Torch7's SpatialZeroPadding), negative pads
-- crop as in PyTorch's constant and circular pads.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.VolumetricReplicationPadding'
require 'nn.pytorch_names_pool'  -- ZeroPad2d, ReflectionPad2d, ReplicationPad2d
require 'nn.functional_pool'
local F = nn.functional

-- Circular padding of the last #pads/2 dims by narrow and cat (PyTorch's 'circular' mode): the
-- left pad repeats the end of the dim, the right pad its start; negative pads crop.
local function circular(name, x, pads)
  local y = x
  for k = 1, #pads / 2 do
    local d = y:dim() - k + 1
    local left, right = pads[2 * k - 1], pads[2 * k]
    local L = y:size(d)
    if left > L or right > L then
      lib.fail(name, 'circular padding (%d, %d) must not exceed the size %d of dim %d', left, right, L, d)
    end
    if left < 0 then y, L, left = y:narrow(d, 1 - left, L + left), L + left, 0 end
    if right < 0 then y, L, right = y:narrow(d, 1, L + right), L + right, 0 end
    if L <= 0 then lib.fail(name, 'padding crops dim %d to nothing', d) end
    local parts = {}
    if left > 0 then parts[#parts + 1] = y:narrow(d, L - left + 1, left) end
    parts[#parts + 1] = y
    if right > 0 then parts[#parts + 1] = y:narrow(d, 1, right) end
    if #parts > 1 then y = torch.cat(parts, d) end
  end
  return y
end

local MODES = { Zero = 'constant', Constant = 'constant', Reflection = 'reflect', Replication = 'replicate',
                Circular = 'circular' }

local function check_input(name, nd, input)
  if not torch.isTensor(input) or (input:dim() ~= nd + 1 and input:dim() ~= nd + 2) then
    lib.fail(name, 'expected a %dD (unbatched) or %dD (batched) input, got %s', nd + 1, nd + 2,
      nn.utils.describe(input))
  end
end

local function pad_forward(self, input)
  local name, nd = torch.typename(self), self._nd
  check_input(name, nd, input)
  nn.utils.checkFloatInput(self, input)
  if self._mode == 'circular' then return circular(name, input, self.padding) end
  if self._mode == 'reflect' then
    for k = 1, nd do
      local L = input:size(input:dim() - k + 1)
      if self.padding[2 * k - 1] >= L or self.padding[2 * k] >= L then
        lib.fail(name, 'reflection padding (%d, %d) must be smaller than the size %d of dim %d',
          self.padding[2 * k - 1], self.padding[2 * k], L, input:dim() - k + 1)
      end
    end
  end
  return F.pad(input, self.padding, self._mode, self._mode == 'constant' and self.value or nil)
end

for _, kind in ipairs({ 'Zero', 'Constant', 'Reflection', 'Replication', 'Circular' }) do
  for nd = 1, 3 do
    local cname = kind .. 'Pad' .. nd .. 'd'
    if not nn[cname] then
      local name = 'nn.' .. cname
      local parent_name = cname == 'ReplicationPad3d' and 'nn.VolumetricReplicationPadding' or 'nn.Module'
      local cls, parent = torch.class(name, parent_name)
      local mode = MODES[kind]
      cls.__init = function(self, ...)
        local o = P.parse(name, kind == 'Constant' and { 'padding', 'value' } or { 'padding' }, ...)
        local signed = mode == 'constant' or mode == 'circular'
        local p = P.tuple(name, 'padding', o.padding, 2 * nd, nil, signed and -math.huge or 0)
        if parent_name == 'nn.Module' then parent.__init(self) else parent.__init(self, unpack(p)) end
        self.padding, self._nd, self._mode = p, nd, mode
        if kind == 'Constant' then
          if o.value == nil then lib.fail(name, 'expected a value to pad with (PyTorch\'s ConstantPad needs one)') end
          self.value = P.number(name, 'value', o.value)
        elseif mode == 'constant' then
          self.value = 0
        end
      end
      cls.updateOutput = function(self, input)
        self.output = pad_forward(self, input)
        return self.output
      end
      if parent_name ~= 'nn.Module' then
        -- the parent's updateGradInput would make it a coarse node; the pad's recorded op is differentiated instead
        cls.updateGradInput = nn.Module.updateGradInput
        cls.accGradParameters = nn.Module.accGradParameters
      end
      cls.__tostring__ = function(self)
        local s = string.format('%s(%s)', name, table.concat(self.padding, ', '))
        if kind == 'Constant' then s = s:sub(1, -2) .. string.format(', value=%g)', self.value) end
        return s
      end
    end
  end
end

return nn.ConstantPad2d
