-- require 'tds': torch/tds's data structures (tds.Hash, tds.Vec, tds.AtomicCounter) for Torch7
-- programs such as OpenNMT-lua. They are Lua tables here, not C containers: see Note [tds on Lua
-- tables] in lua/tds/env.lua for why and for what differs (#h on a hash; tds.size counts).
local tds = require 'tds.env'
require 'tds.hash'
require 'tds.vec'
require 'tds.atomic'
return tds
