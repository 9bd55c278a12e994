-- nn.VolumetricMaxUnpooling(poolingModule): the inverse of a 3D max pooling (nn.VolumetricMaxPooling
-- or nn.VolumetricDilatedMaxPooling): each input value goes back to the position its pooling
-- module's `indices` recorded (1-based (t-1)*H*W + (h-1)*W + w in the T x H x W volume), the rest
-- is zero; the output has the size of the pooling module's last input. nn.SpatialMaxUnpooling with
-- three pooled dims (Note [Unpooling sizes]). Torch7 also required the pooling's kernel to equal its
-- stride; any window works here (overlapping windows that share a maximum write it once).
require 'nn.SpatialMaxUnpooling'
local VolumetricMaxUnpooling, parent = torch.class('nn.VolumetricMaxUnpooling', 'nn.SpatialMaxUnpooling')

VolumetricMaxUnpooling._spec = {
  name = 'nn.VolumetricMaxUnpooling', layout = 'N x C x T x H x W', input = { 'itime', 'iheight', 'iwidth' },
  output = { 'otime', 'oheight', 'owidth' }, k = { 'kT', 'kH', 'kW' }, d = { 'dT', 'dH', 'dW' },
  pad = { 'padT', 'padH', 'padW' }, dilation = { 'dilationT', 'dilationH', 'dilationW' }, what = 'a 3D max pooling module',
}
parent._onLoad(VolumetricMaxUnpooling)
pcall(require, 'nn.VolumetricMaxPooling')
if rawget(nn, 'VolumetricMaxPooling') then
  parent._recordInputSizes(torch.getmetatable('nn.VolumetricMaxPooling'), VolumetricMaxUnpooling._spec)
end

--- u:setParams(input): as nn.SpatialMaxUnpooling's, and Torch7's window fields (dT, dH, dW, padT,
--- padH, padW) from the pooling module.
function VolumetricMaxUnpooling:setParams(input)
  parent.setParams(self, input)
  local pool = self.pooling
  self.dT, self.dH, self.dW = pool.dT, pool.dH, pool.dW
  self.padT, self.padH, self.padW = pool.padT or 0, pool.padH or 0, pool.padW or 0
end

return VolumetricMaxUnpooling
