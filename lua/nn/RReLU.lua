-- nn.RReLU(l=1/8, u=1/3[, inplace[, channelwise]]): randomized leaky ReLU. In training each
-- non-positive element (or each channel) gets a slope drawn from U(l, u); in evaluate() the slope
-- is (l + u) / 2. The drawn factors are kept (self.noise) for the backward.
local S = require 'nn.support'
local RReLU, parent = torch.class('nn.RReLU', 'nn.Module')

--- nn.RReLU([l=1/8, u=1/3, inplace=false, channelwise=false]).
function RReLU:__init(l, u, ip, cw)
  parent.__init(self)
  self.lower = l or 1 / 8
  self.upper = u or 1 / 3
  if type(self.lower) ~= 'number' or type(self.upper) ~= 'number' or self.lower > self.upper or self.lower < 0 then
    error(string.format('[nn.RReLU] expected 0 <= l <= u, got l=%s, u=%s', tostring(l), tostring(u)), torch._lib.user_level())
  end
  self.noise = torch.Tensor()
  self.train = true
  self.inplace = ip or false
  self.channelwise = cw or false
end

-- Channel dim of Torch7's channel-wise mode: 1 for a vector or C x H x W, 2 for N x C (x H x W).
local function channel_dim(input) return input:dim() % 2 == 0 and 2 or 1 end

-- The factors: 1 where x > 0, the slope elsewhere.
function RReLU:_factors(input)
  self._pos = torch.gt(nn.utils.maskBuffer(self._pos, input), input, 0)
  local f = nn.utils.buffer(self.noise, input)
  if self.train and self.channelwise then
    local cd = channel_dim(input)
    local shape = {}
    for d = 1, input:dim() do shape[d] = d == cd and input:size(d) or 1 end
    self._slopes = nn.utils.buffer(self._slopes, input)
    self._slopes:resize(input:size(cd)):uniform(self.lower, self.upper)
    f:resizeAs(input):copy(self._slopes:view(unpack(shape)):expandAs(input))
  elseif self.train then
    f:resizeAs(input):uniform(self.lower, self.upper)
  else
    f:resizeAs(input):fill((self.lower + self.upper) / 2)
  end
  f:maskedFill(self._pos, 1)
  self.noise = f
  return f
end

function RReLU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local f = self:_factors(input)
  if self.inplace then
    input:cmul(f)
    self.output = input
  else
    self.output = torch.cmul(self.output, input, f)
  end
  return self.output
end

function RReLU:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  if self.inplace then
    self.gradInput = gradOutput:cmul(self.noise)
  else
    self.gradInput = torch.cmul(self.gradInput, gradOutput, self.noise)
  end
  return self.gradInput
end

function RReLU:__tostring__()
  return string.format('%s (l:%f, u:%f, channel-wise:%s)', torch.typename(self), self.lower, self.upper,
    tostring(self.channelwise))
end

function RReLU:clearState()
  self.noise = self.noise.new()
  return parent.clearState(self)
end

return RReLU
