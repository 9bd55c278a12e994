-- nn.ChannelShuffle(groups): PyTorch's nn.ChannelShuffle (ShuffleNet): the C channels of an
-- N x C x ... input, seen as groups x C/groups, transposed. Differentiated by autograd.
local A = require 'nn.functional_args'
local ChannelShuffle, parent = torch.class('nn.ChannelShuffle', 'nn.Module')

function ChannelShuffle:__init(groups)
  parent.__init(self)
  if type(groups) ~= 'number' or groups < 1 or groups ~= math.floor(groups) then
    A.fail('nn.ChannelShuffle', 'groups must be a positive integer, got %s', tostring(groups))
  end
  self.groups = groups
end

function ChannelShuffle:updateOutput(input)
  self.output = require('nn.functional_pool').call(self, nn.functional.channelShuffle, input, self.groups)
  return self.output
end

function ChannelShuffle:__tostring__() return string.format('nn.ChannelShuffle(%d)', self.groups) end

return ChannelShuffle
