-- nn.TemporalDropout(p [, stochasticInference] [, inverted]): SpatialDropout for N x C x L inputs
-- (or C x L samples): whole channels (feature sequences) are dropped.
require 'nn.SpatialDropout'
local TemporalDropout = torch.class('nn.TemporalDropout', 'nn.SpatialDropout')

TemporalDropout.nDim = 3

return TemporalDropout
