-- torch.utils.tensorboard.SummaryWriter (PyTorch's): scalars, scalar groups, histograms, images
-- and text written as TensorBoard event files, one per run directory, named as PyTorch names them.
-- Bytes: lua/torch/tensorboard_proto.lua; histogram and image values: tensorboard_summary.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local pb = require 'torch.tensorboard_proto'
local summaries = require 'torch.tensorboard_summary'
local utf8_ok = require('torch.safetensors_json').is_utf8
local fail = lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local floor, concat = math.floor, table.concat

local M = {}
local CLASS = 'tensorboard.SummaryWriter'

-- Each declaration on its own: another module may have declared some already.
for _, decl in ipairs({
  'struct timespec { long tv_sec; long tv_nsec; };',
  'int clock_gettime(int clk_id, struct timespec *tp);',
  'int gethostname(char *name, size_t len);',
  'int getpid(void);',
  'int mkdir(const char *path, unsigned int mode);',
}) do pcall(ffi.cdef, decl) end

local CLOCK_REALTIME = 0
local ts = ffi.new('struct timespec')
local function now()
  ffi.C.clock_gettime(CLOCK_REALTIME, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local function hostname()
  local buf = ffi.new('char[256]')
  if ffi.C.gethostname(buf, 255) == 0 and buf[0] ~= 0 then return ffi.string(buf) end
  return os.getenv('HOSTNAME') or 'localhost'
end

-- mkdir -p without a shell: each prefix in turn; existing ones fail harmlessly, and a real
-- failure shows when the event file cannot be opened.
local function mkdir_p(dir)
  for i = 2, #dir do
    if dir:sub(i, i) == '/' then ffi.C.mkdir(dir:sub(1, i - 1), 511) end
  end
  ffi.C.mkdir(dir, 511)
end

-- ---- One event file ------------------------------------------------------------------------------

-- Note [Event file buffering]: like PyTorch, an event reaches the file when maxQueue events are
-- pending, when flushSecs have passed since the last flush (checked at each add: there is no
-- background thread), or at flush()/close(). The file_version record is written and flushed at
-- once, so TensorBoard sees the run as soon as the writer exists. A writer dropped without
-- close() is flushed and closed by the garbage collector (a proxy's __gc).
local FileWriter = {}
FileWriter.__index = FileWriter
local file_counter = 0  -- PyTorch's _global_uid: the last part of the file name

local function write_or_fail(fw, op, bytes)
  local ok, err = fw.file:write(bytes)
  if not ok then fail(op, 'cannot write %s: %s', fw.path, tostring(err)) end
end

local function open_file_writer(op, dir, o)
  mkdir_p(dir)
  local t = now()
  local path = string.format('%s/events.out.tfevents.%010d.%s.%d.%d%s', dir, floor(t), hostname(),
    tonumber(ffi.C.getpid()), file_counter, o.filenameSuffix)
  file_counter = file_counter + 1
  local f, err = io.open(path, 'wb')
  if not f then fail(op, 'cannot create the event file %s: %s', path, tostring(err)) end
  local fw = setmetatable({ dir = dir, path = path, file = f, pending = {}, lastFlush = t,
    maxQueue = o.maxQueue, flushSecs = o.flushSecs }, FileWriter)
  write_or_fail(fw, op, pb.record(pb.event({ wall_time = t, file_version = 'brain.Event:2' })))
  f:flush()
  local proxy = newproxy(true)
  getmetatable(proxy).__gc = function() if fw.file then pcall(fw.close, fw, op) end end
  fw.proxy = proxy
  return fw
end

function FileWriter:add(op, event)
  local p = self.pending
  p[#p + 1] = pb.record(event)
  if #p >= self.maxQueue or now() - self.lastFlush >= self.flushSecs then self:flush(op) end
end

function FileWriter:flush(op)
  if #self.pending > 0 then
    write_or_fail(self, op, concat(self.pending))
    self.pending = {}
  end
  self.file:flush()
  self.lastFlush = now()
end

function FileWriter:close(op)
  self:flush(op)
  self.file:close()
  self.file = nil
end

-- ---- Arguments ---------------------------------------------------------------------------------------

local OPTS = { flushSecs = 'number', filenameSuffix = 'string', maxQueue = 'number', comment = 'string', purgeStep = 'number' }

local function read_opts(op, opts)
  local o = { flushSecs = 120, filenameSuffix = '', maxQueue = 10, comment = '' }
  if opts == nil then return o end
  if type(opts) ~= 'table' or is_tensor(opts) then fail(op, 'options must be a table, got %s', describe(opts)) end
  for k, v in pairs(opts) do
    if not OPTS[k] then fail(op, 'unknown option %s (expected flushSecs, filenameSuffix, maxQueue, comment, purgeStep)', tostring(k)) end
    if type(v) ~= OPTS[k] then fail(op, 'option %s must be a %s, got %s', k, OPTS[k], describe(v)) end
    o[k] = v
  end
  if o.flushSecs <= 0 then fail(op, 'flushSecs must be positive, got %s', tostring(o.flushSecs)) end
  if o.maxQueue < 1 or o.maxQueue ~= floor(o.maxQueue) then fail(op, 'maxQueue must be a positive integer, got %s', tostring(o.maxQueue)) end
  local p = o.purgeStep
  if p ~= nil and (p ~= floor(p) or math.abs(p) >= 2 ^ 53) then fail(op, 'purgeStep must be an integer, got %s', tostring(p)) end
  return o
end

-- Note [Tags are UTF-8]: tags are protobuf `string` fields, which TensorBoard's readers (Python
-- protobuf, the Rust data server) reject unless they are valid UTF-8: a Latin-1 tag made a record
-- that hid the run's data. PyTorch's tags are Python str, always valid.
local function check_tag(op, tag, what)
  if type(tag) ~= 'string' or tag == '' then fail(op, '%s must be a non-empty string, got %s', what or 'tag', describe(tag)) end
  if not utf8_ok(tag) then fail(op, '%s must be valid UTF-8, got %q', what or 'tag', tag) end
end

-- A number, or the value of a one-element tensor.
local function read_number(op, what, v)
  if is_tensor(v) then
    if v:nElement() ~= 1 then fail(op, '%s must be a number or a one-element tensor, got a %s', what, describe(v)) end
    return v:item()
  end
  if type(v) ~= 'number' then fail(op, '%s must be a number or a one-element tensor, got %s', what, describe(v)) end
  return v
end

local function read_step(op, step)
  if step == nil then return nil end
  step = read_number(op, 'step', step)
  if step ~= floor(step) or math.abs(step) >= 2 ^ 53 then fail(op, 'step must be an integer, got %s', tostring(step)) end
  return step
end

local function read_walltime(op, t)
  if t == nil then return now() end
  return read_number(op, 'wallTime', t)
end

-- ---- SummaryWriter -------------------------------------------------------------------------------------

local SummaryWriter = torch.class('torch.utils.tensorboard.SummaryWriter', M)

--- torch.utils.tensorboard.SummaryWriter([logDir][, opts]): a writer of TensorBoard event files
--- in logDir (default 'runs/<Mon><dd>_<HH>-<MM>-<SS>_<host><opts.comment>'), PyTorch's. opts:
--- flushSecs (120), maxQueue (10: pending events that force a flush), filenameSuffix (''),
--- comment (''), purgeStep (after a crash: TensorBoard hides the events of this run's earlier
--- files whose step is purgeStep or more). The file is events.out.tfevents.<time>.<host>.<pid>.<n><suffix>.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addScalar('loss', 0.5, 1); w:close()
function SummaryWriter:__init(logDir, opts)
  local op = CLASS
  if type(logDir) == 'table' and opts == nil and not is_tensor(logDir) then logDir, opts = nil, logDir end
  local o = read_opts(op, opts)
  if logDir == nil or logDir == '' then
    logDir = 'runs/' .. os.date('%b%d_%H-%M-%S') .. '_' .. hostname() .. o.comment
  elseif type(logDir) ~= 'string' then
    fail(op, 'logDir must be a string, got %s', describe(logDir))
  end
  -- purgeStep is the main run's only: the runs of addScalars and addHparams reuse _opts
  local purge = o.purgeStep
  o.purgeStep = nil
  self.logDir, self._opts = logDir, o
  self._main = open_file_writer(op, logDir, o)
  self._writers = { self._main }
  self._byDir = { [logDir] = self._main }
  if purge then
    -- PyTorch's: a file_version event and a SessionLog START (status 1) at the purge step
    local t = now()
    self._main:add(op, pb.event({ wall_time = t, step = purge, file_version = 'brain.Event:2' }))
    self._main:add(op, pb.event({ wall_time = t, step = purge, session_log = pb.int(1, 1) }))
  end
end

local function main_writer(self, op)
  if not self._main then fail(op, 'the writer is closed') end
  return self._main
end

--- writer:getLogdir(): the directory of the writer's event file.
--- Example: torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'):getLogdir()
function SummaryWriter:getLogdir() return self.logDir end

--- writer:addScalar(tag, value, step[, wallTime]): logs value (a number or a one-element tensor)
--- under tag at step (an integer, optional), stamped wallTime (default now, Unix seconds).
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addScalar('loss', torch.Tensor({0.3}), 2); w:close()
function SummaryWriter:addScalar(tag, value, step, wallTime)
  local op = CLASS .. '.addScalar'
  local fw = main_writer(self, op)
  check_tag(op, tag)
  local v = read_number(op, 'value', value)
  local summary = pb.summary({ pb.value({ tag = tag, simple_value = v }) })
  local t = read_walltime(op, wallTime)
  fw:add(op, pb.event({ wall_time = t, step = read_step(op, step), summary = summary }))
end

--- writer:addScalars(mainTag, values, step[, wallTime]): logs each name = value of the table
--- values as the scalar mainTag of the run logDir/<mainTag>_<name> ('/' in mainTag becomes
--- '_'), as PyTorch does, so TensorBoard draws them in one chart.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addScalars('loss', {train = 0.5, test = 0.7}, 1); w:close()
function SummaryWriter:addScalars(mainTag, values, step, wallTime)
  local op = CLASS .. '.addScalars'
  main_writer(self, op)
  check_tag(op, mainTag, 'mainTag')
  if type(values) ~= 'table' or is_tensor(values) then fail(op, 'values must be a table of name = value, got %s', describe(values)) end
  step = read_step(op, step)
  local t = read_walltime(op, wallTime)
  local names = {}
  for name, v in pairs(values) do
    if type(name) ~= 'string' or name == '' then fail(op, 'values must be keyed by names (strings), got key %s', describe(name)) end
    read_number(op, 'value ' .. name, v)
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local dir = self.logDir .. '/' .. mainTag:gsub('/', '_') .. '_' .. name
    local fw = self._byDir[dir]
    if not fw then
      fw = open_file_writer(op, dir, self._opts)
      self._byDir[dir] = fw
      self._writers[#self._writers + 1] = fw
    end
    local summary = pb.summary({ pb.value({ tag = mainTag, simple_value = read_number(op, name, values[name]) }) })
    fw:add(op, pb.event({ wall_time = t, step = step, summary = summary }))
  end
end

--- writer:addHistogram(tag, values, step[, bins[, wallTime]]): logs the distribution of values
--- (a tensor or a table of numbers, finite) with bins 'tensorflow' (default: TensorBoard's
--- exponential buckets) or a number of equal-width bins over [min, max].
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addHistogram('w', torch.randn(100), 1); w:close()
function SummaryWriter:addHistogram(tag, values, step, bins, wallTime)
  local op = CLASS .. '.addHistogram'
  local fw = main_writer(self, op)
  check_tag(op, tag)
  local histo = summaries.histogram(op, values, bins)
  local t = read_walltime(op, wallTime)
  fw:add(op, pb.event({ wall_time = t, step = read_step(op, step), summary = pb.summary({ pb.value({ tag = tag, histo = histo }) }) }))
end

--- writer:addImage(tag, img, step[, opts]): logs img as a PNG: a byte tensor (0..255) or a
--- floating one in [0, 1], with 1, 3 or 4 channels; opts.dataformats 'CHW' (default), 'HWC' or
--- 'HW'; opts.wallTime.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addImage('img', torch.rand(3, 8, 8), 1); w:close()
function SummaryWriter:addImage(tag, img, step, opts)
  local op = CLASS .. '.addImage'
  local fw = main_writer(self, op)
  check_tag(op, tag)
  if opts ~= nil and (type(opts) ~= 'table' or is_tensor(opts)) then fail(op, 'options must be a table, got %s', describe(opts)) end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= 'dataformats' and k ~= 'wallTime' then fail(op, 'unknown option %s (expected dataformats, wallTime)', tostring(k)) end
  end
  step = read_step(op, step)
  local hwc, h, w, c = summaries.image_hwc(op, img, opts.dataformats or 'CHW')
  local image = pb.image({ height = h, width = w, colorspace = c, encoded = summaries.png_bytes(op, hwc) })
  local t = read_walltime(op, opts.wallTime)
  fw:add(op, pb.event({ wall_time = t, step = step, summary = pb.summary({ pb.value({ tag = tag, image = image }) }) }))
end

--- writer:addText(tag, text, step[, wallTime]): logs the string text (Markdown in TensorBoard's
--- text tab) under tag .. '/text_summary', as PyTorch does.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addText('notes', 'lr = **0.1**', 0); w:close()
function SummaryWriter:addText(tag, text, step, wallTime)
  local op = CLASS .. '.addText'
  local fw = main_writer(self, op)
  check_tag(op, tag)
  if type(text) ~= 'string' then fail(op, 'text must be a string, got %s', describe(text)) end
  local value = pb.value({ tag = tag .. '/text_summary', tensor = pb.string_tensor(text), metadata = pb.plugin_metadata('text') })
  local t = read_walltime(op, wallTime)
  fw:add(op, pb.event({ wall_time = t, step = read_step(op, step), summary = pb.summary({ value }) }))
end

--- writer:flush(): writes the pending events of every run of the writer to disk.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:addScalar('a', 1, 0); w:flush(); w:close()
function SummaryWriter:flush()
  local op = CLASS .. '.flush'
  main_writer(self, op)
  for _, fw in ipairs(self._writers) do fw:flush(op) end
end

--- writer:close(): flushes and closes the event files; adding to a closed writer is an error.
--- Closing twice does nothing.
--- Example: local w = torch.utils.tensorboard.SummaryWriter(os.tmpname() .. '_tb'); w:close()
function SummaryWriter:close()
  if not self._main then return end
  local op = CLASS .. '.close'
  for _, fw in ipairs(self._writers) do fw:close(op) end
  self._main = nil
end

-- What lua/torch/tensorboard_more.lua (hparams, PR curves, embeddings, audio, image grids) needs.
M._internals = { main_writer = main_writer, check_tag = check_tag, read_number = read_number, read_step = read_step,
  read_walltime = read_walltime, now = now, mkdir_p = mkdir_p }

torch.utils = torch.utils or {}
torch.utils.tensorboard = M
require 'torch.tensorboard_more'
return M
