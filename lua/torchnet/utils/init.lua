-- tnt.utils (Torch7 torchnet's utils/): table helpers (utils.table) and script helpers (utils.sys).
local tnt = require 'torchnet.env'

local utils = {}
tnt.utils = utils
utils.table = require 'torchnet.utils.table'
utils.sys = require 'torchnet.utils.sys'

return utils
