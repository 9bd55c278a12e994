-- cutorch's stream functions. Tocha queues all of a device's work on one stream, in order, so
-- every ordering that cutorch's user streams, waits and barriers ask for already holds: the
-- functions keep cutorch's bookkeeping (reserved streams, the current stream index) and check
-- their arguments; streamSynchronize waits for the device.
local cutorch = rawget(_G, 'cutorch')
local cuda = torch.cuda

local function fail(fn, fmt, ...)
  error(string.format('[cutorch.%s] ' .. fmt, fn, ...), torch._lib.user_level())
end

local reserved, current = 0, 0

local function stream_index(fn, s)
  if type(s) ~= 'number' or s % 1 ~= 0 or s < 0 or s > reserved then
    fail(fn, 'expected a stream index in [0, %d] (0: the default stream; reserve more with cutorch.reserveStreams), '
      .. 'got %s', reserved, tostring(s))
  end
  return s
end

local function stream_list(fn, list)
  if type(list) ~= 'table' then fail(fn, 'expected a table of stream indices, got %s', type(list)) end
  for _, s in ipairs(list) do stream_index(fn, s) end
end

--- cutorch.reserveStreams(n[, nonBlocking]): makes user streams 1..n usable (Tocha runs them all
--- on the device's one stream, in order).
--- Example: require 'cutorch'; cutorch.reserveStreams(2)
function cutorch.reserveStreams(n, nonBlocking)
  if type(n) ~= 'number' or n % 1 ~= 0 or n < 0 then
    fail('reserveStreams', 'expected a number of streams >= 0, got %s', tostring(n))
  end
  if n > reserved then reserved = n end
end

--- cutorch.getNumStreams(): the number of reserved user streams (0 by default).
--- Example: require 'cutorch'; cutorch.getNumStreams()
function cutorch.getNumStreams() return reserved end

--- cutorch.setStream(s): makes stream s current (0: default; 1..getNumStreams(): user streams).
--- Example: require 'cutorch'; cutorch.setStream(0)
function cutorch.setStream(s) current = stream_index('setStream', s) end

--- cutorch.getStream(): the current stream index (0 by default).
--- Example: require 'cutorch'; cutorch.getStream()
function cutorch.getStream() return current end

--- cutorch.setDefaultStream(): cutorch.setStream(0).
--- Example: require 'cutorch'; cutorch.setDefaultStream()
function cutorch.setDefaultStream() current = 0 end

--- cutorch.streamWaitFor(waiting, {streams...}): a barrier; already satisfied (one in-order stream).
--- Example: require 'cutorch'; cutorch.streamWaitFor(0, {0})
function cutorch.streamWaitFor(waiting, streams)
  stream_index('streamWaitFor', waiting)
  stream_list('streamWaitFor', streams)
end

--- cutorch.streamWaitForMultiDevice(device, waiting, {[device] = {streams...}}): as streamWaitFor.
--- Example: require 'cutorch'; cutorch.streamWaitForMultiDevice(1, 0, {[1] = {0}})
function cutorch.streamWaitForMultiDevice(device, waiting, spec)
  stream_index('streamWaitForMultiDevice', waiting)
  if type(spec) ~= 'table' then
    fail('streamWaitForMultiDevice', 'expected a table {[device] = {streams...}}, got %s', type(spec))
  end
  for _, list in pairs(spec) do stream_list('streamWaitForMultiDevice', list) end
end

--- cutorch.streamBarrier({streams...}): an N-to-N barrier; already satisfied.
--- Example: require 'cutorch'; cutorch.streamBarrier({0})
function cutorch.streamBarrier(streams) stream_list('streamBarrier', streams) end

--- cutorch.streamBarrierMultiDevice({[device] = {streams...}}): as streamBarrier.
--- Example: require 'cutorch'; cutorch.streamBarrierMultiDevice({[1] = {0}})
function cutorch.streamBarrierMultiDevice(spec)
  if type(spec) ~= 'table' then
    fail('streamBarrierMultiDevice', 'expected a table {[device] = {streams...}}, got %s', type(spec))
  end
  for _, list in pairs(spec) do stream_list('streamBarrierMultiDevice', list) end
end

--- cutorch.streamSynchronize(s): waits until stream s's work is done (the current device's work).
--- Example: require 'cutorch'; if cutorch.isAvailable() then cutorch.streamSynchronize(0) end
function cutorch.streamSynchronize(s)
  stream_index('streamSynchronize', s)
  if cuda.deviceCount() == 0 then fail('streamSynchronize', 'no CUDA device: %s', cuda.unavailableReason()) end
  cuda.synchronize()
end

return cutorch
