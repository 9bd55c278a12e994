-- torchnet (Torch7's torchnet, facebookresearch/torchnet): `local tnt = require 'torchnet'` gives
-- the datasets (tnt.ListDataset, BatchDataset, ShuffleDataset... and the iterators, serial and
-- threaded), the engines (tnt.SGDEngine, tnt.OptimEngine with their hooks), the meters
-- (tnt.AverageValueMeter, ClassErrorMeter, APMeter...), tnt.Log, tnt.transform and tnt.utils.
-- Constructors take one table of named arguments, or (where torchnet allowed it) the arguments
-- in order (torchnet/argcheck.lua).
require 'torch'

local tnt = require 'torchnet.env'

require 'torchnet.utils'
require 'torchnet.transform'

require 'torchnet.dataset'
require 'torchnet.dataset.listdataset'
require 'torchnet.dataset.tabledataset'
require 'torchnet.dataset.transformdataset'
require 'torchnet.dataset.batchdataset'
require 'torchnet.dataset.coroutinebatchdataset'
require 'torchnet.dataset.concatdataset'
require 'torchnet.dataset.resampledataset'
require 'torchnet.dataset.shuffledataset'
require 'torchnet.dataset.splitdataset'
require 'torchnet.dataset.datasetiterator'
require 'torchnet.dataset.paralleldatasetiterator'

require 'torchnet.engine'
require 'torchnet.engine.sgdengine'
require 'torchnet.engine.optimengine'

require 'torchnet.meter'
require 'torchnet.meter.apmeter'
require 'torchnet.meter.averagevaluemeter'
require 'torchnet.meter.aucmeter'
require 'torchnet.meter.confusionmeter'
require 'torchnet.meter.mapmeter'
require 'torchnet.meter.multilabelconfusionmeter'
require 'torchnet.meter.classerrormeter'
require 'torchnet.meter.timemeter'
require 'torchnet.meter.msemeter'
require 'torchnet.meter.movingaveragevaluemeter'

require 'torchnet.log'

return tnt
