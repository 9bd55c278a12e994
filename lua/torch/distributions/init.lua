-- torch.distributions: PyTorch's probability distributions built from tensor ops (so they run on
-- every device and under autograd), with camelCase methods, and klDivergence with a registry.
local torch = require 'torch.env'

local D = torch.distributions or {}
torch.distributions = D
D.constraints = require 'torch.distributions.constraints'
require 'torch.distributions.distribution'
for _, name in ipairs({ 'normal', 'uniform', 'bernoulli', 'categorical', 'exponential', 'poisson', 'gamma', 'mvn',
                         'independent', 'kl', 'kl_more',
                         -- transforms and the families built on them
                         'transforms', 'constraint_registry', 'transformed', 'transformed_families', 'relaxed',
                         'kl_transformed',
                         -- more univariate and discrete families
                         'studentt', 'vonmises', 'continuous_bernoulli', 'multinomial', 'mixture', 'kl_families2',
                         -- more multivariate families
                         'lowrank_mvn', 'wishart', 'lkj', 'kl_multivariate' }) do
  require('torch.distributions.' .. name)
end
return D
