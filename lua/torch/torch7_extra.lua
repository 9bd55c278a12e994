-- Torch7 functions built in Lua from existing ops: torch.tpow, torch.bhistc (per-row histc), the
-- function forms Torch7 had of tensor methods (torch.zero, fill, totable) and torch.PipeFile, a
-- torch.DiskFile over a command's pipe (io.popen) on the File machinery of file.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local File = require 'torch.file'
local S = require 'torch.serialize_stream'
local fail = lib.fail
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local methods = torch._tensor_methods
local unpack = table.unpack or unpack

local function check_number(op, what, v)
  if type(v) ~= 'number' then fail(op, '%s must be a number, got %s', what, describe(v)) end
  return v
end

-- ---- tpow --------------------------------------------------------------------------------------

--- torch.tpow([res,] val, x): val to the power of each element of x (a number raised to a tensor),
--- the same as torch.pow(val, x): Torch7's THTensor_tpow, which Lua reached only through
--- torch.pow. Differentiable in x.
--- Example: torch.tpow(2, torch.Tensor({0, 1, 2, 3}))
function torch.tpow(a1, a2, a3)
  if is_tensor(a1) then
    check_number('tpow', 'val', a2)
    check_tensor('tpow', a3, 3)
    return (torch.pow(a1, a2, a3))
  end
  check_number('tpow', 'val', a1)
  check_tensor('tpow', a2, 2)
  if a3 ~= nil then fail('tpow', 'expected ([res,] val, x), got an extra %s', describe(a3)) end
  return (torch.pow(a1, a2))
end

-- ---- bhistc ------------------------------------------------------------------------------------

local DT = lib.dtype
local FLOATING = { [DT.f32] = true, [DT.f64] = true, [DT.f16] = true, [DT.bf16] = true }

local function bhistc(x, nbins, lo, hi)
  check_tensor('bhistc', x, 1)
  if x:dim() ~= 2 then fail('bhistc', 'expected a 2-D tensor, got %s', describe(x)) end
  nbins = check_number('bhistc', 'nbins', nbins == nil and 100 or nbins)
  lo = check_number('bhistc', 'min', lo == nil and 0 or lo)
  hi = check_number('bhistc', 'max', hi == nil and 0 or hi)
  if nbins < 1 or nbins ~= math.floor(nbins) or nbins > 2 ^ 40 then
    fail('bhistc', 'nbins must be a positive integer, got %s', tostring(nbins))
  end
  if lo > hi then fail('bhistc', 'max %s must not be smaller than min %s', tostring(hi), tostring(lo)) end
  local xd = methods.to(x, 'torch.DoubleTensor')  -- on x's device
  -- Torch7: min == max means the range of the whole tensor (one range for every row), widened
  -- by 1 each side when the data is constant.
  if lo == hi and xd:nElement() > 0 then lo, hi = xd:min(), xd:max() end
  if lo ~= lo or hi ~= hi or lo == math.huge or hi == math.huge or lo == -math.huge or hi == -math.huge then
    fail('bhistc', 'range [%s, %s] is not finite', tostring(lo), tostring(hi))
  end
  if lo == hi then lo, hi = lo - 1, hi + 1 end
  local rows = x:size(1)
  -- One extra column catches the values outside [lo, hi] (and NaN); bins as histc's kernel
  -- computes them, in double: floor((v - lo) / (hi - lo) * nbins), hi in the last bin (indices
  -- are 1-based).
  local hist = torch.zeros(rows, nbins + 1):double()
  if xd:device() ~= 'cpu' then hist = hist:to(xd:device()) end
  if xd:nElement() > 0 then
    local bin = xd:clone():add(-lo):div(hi - lo):mul(nbins):floor():clamp(0, nbins - 1):add(1)
    local outside = xd:ge(lo):cmul(xd:le(hi)):eq(0)
    bin:maskedFill(outside, nbins + 1)
    hist:scatterAdd(2, methods.to(bin, 'torch.LongTensor'), xd:clone():fill(1))
  end
  local rtype = FLOATING[x.p.dtype] and x.p.dtype or types.dtype_of_name[torch.getdefaulttensortype()]
  return methods.to(hist:narrow(2, 1, nbins), types.tensor_name[rtype])
end

--- torch.bhistc([res,] x [, nbins [, min [, max]]]): histc of each row of the 2-D tensor x: a
--- rows x nbins tensor (default 100 bins) counting each row's values in equal bins from min to
--- max. When min and max are equal (both 0 by default) the range is the smallest to largest
--- value of the whole x (Torch7), widened by 1 each side for constant data; values outside the
--- range and NaN are not counted. With res, res is resized and filled.
--- Example: torch.bhistc(torch.Tensor({{1, 2, 2}, {3, 3, 3}}), 3)
function torch.bhistc(a1, a2, ...)
  if is_tensor(a2) then
    check_tensor('bhistc', a1, 1)
    local r = bhistc(a2, ...)
    methods.resizeAs(a1, r)
    methods.copy(a1, r)
    return a1
  end
  return (bhistc(a1, a2, ...))
end
methods.bhistc = torch.bhistc

-- ---- function forms of methods -----------------------------------------------------------------
-- Torch7 had torch.zero, torch.fill (TensorMath.lua) and torch.totable (Tensor.lua); isSameSizeAs,
-- isSetTo, apply, map and map2 were methods only, and stay so here.

--- torch.zero(x): fills x with zeros in place and returns it (x:zero()).
--- Example: torch.zero(torch.ones(2, 2))
function torch.zero(x)
  check_tensor('zero', x, 1)
  return (methods.zero(x))
end
--- torch.fill(x, value): fills x with value in place and returns it (x:fill(value)).
--- Example: torch.fill(torch.Tensor(2, 2), 7)
function torch.fill(x, value)
  check_tensor('fill', x, 1)
  return (methods.fill(x, value))
end
--- torch.totable(x): x's values as nested Lua tables (x:totable()); a number for a 0-dim tensor.
--- Example: torch.totable(torch.Tensor({{1, 2}, {3, 4}}))
function torch.totable(x)
  check_tensor('totable', x, 1)
  return (methods.totable(x))
end
--- torch.data(x[, asnumber]): Torch7's raw pointer to x's first element (x:data(), a typed cdata
--- pointer; a Lua number holding the address when asnumber). Unsafe: valid while x lives.
--- Example: local x = torch.Tensor({1, 2}); local p = torch.data(x); p[1] = 5
function torch.data(x, asnumber)
  check_tensor('data', x, 1)
  local p = methods.data(x)
  if asnumber then return tonumber(ffi.cast('intptr_t', p)) end
  return p
end

-- Note [Lua 5.2 table functions]: Torch7's LuaJIT was built with LUAJIT_ENABLE_LUA52COMPAT, so
-- scripts call table.unpack and table.pack (fb.resnet.torch's data loader does); Debian's LuaJIT
-- is built without it. The two are added here, for every state that loads torch.
table.unpack = table.unpack or unpack
table.pack = table.pack or function(...) return { n = select('#', ...), ... } end

-- ---- PipeFile ------------------------------------------------------------------------------------
-- Note [PipeFile buffers]: the File methods work on a C byte stream, so a PipeFile keeps one in
-- memory. Mode 'r' runs the command to its end at construction and reads its whole output from
-- memory; mode 'w' collects writes and sends them to the command at synchronize(), close(), when
-- more than FLUSH_AT bytes wait, and when an unclosed file is collected. Neither mode can seek.
local FLUSH_AT = 1024 * 1024

local PipeFile = torch.class('torch.PipeFile', 'torch.DiskFile', torch)

-- The write buffer of a PipeFile: a memory stream freed by the file (close, or its guard), not by
-- a finalizer of its own.
local function buffer_stream()
  local st = S.open_memory(nil, 'PipeFile')
  require('ffi').gc(st.s, nil)
  return st
end

--- torch.PipeFile(command [, mode = 'r'] [, quiet]): a File reading the output of a shell command
--- ('r') or writing to its input ('w'), with DiskFile's read/write methods. A quiet PipeFile that
--- cannot be opened is nil instead of an error.
function PipeFile:__init(command, mode, quiet)
  mode = mode or 'r'
  if type(command) ~= 'string' then fail('PipeFile', 'expected a command (string), got %s', describe(command)) end
  if mode ~= 'r' and mode ~= 'w' then fail('PipeFile', "mode should be 'r' or 'w', got %s", tostring(mode)) end
  local pipe, err = io.popen(command, mode)
  if not pipe then fail('PipeFile', 'cannot run %s: %s', command, tostring(err)) end
  local stream
  if mode == 'r' then
    local data = pipe:read('*a') or ''
    pipe:close()
    stream = S.borrow_string(data, 'PipeFile')
  else
    stream = buffer_stream()
    self._pipe, self._sent = pipe, 0
    -- Torch7 flushed an unclosed file when it was collected (Note [PipeFile buffers]). The guard
    -- frees the buffer too: its stream has no finalizer of its own, which at exit could run
    -- before the guard's and leave it a freed stream.
    local guard = newproxy(true)
    getmetatable(guard).__gc = function()
      pcall(PipeFile.close, self)
      if self._stream then self._stream:free() end
    end
    self._guard = guard
  end
  stream.name = command
  self:_open(stream)
  self._name, self._mode = command, mode
  if quiet then self._quiet = true end
end
File._quietConstructor(PipeFile, 'PipeFile')

-- Note [Writes to a command that has exited]: writing to a pipe whose reader is gone raises
-- SIGPIPE, whose default action kills the process (Torch7 died so). Around our own pipe writes,
-- flushes and closes SIGPIPE is ignored, so the write fails with EPIPE and becomes a Lua error;
-- the previous handler comes back at once (a host embedding Tocha keeps its own).
pcall(ffi.cdef, 'typedef void (*tocha_sighandler)(int); tocha_sighandler signal(int, tocha_sighandler);')
local SIGPIPE, SIG_IGN = 13, ffi.cast('tocha_sighandler', 1)
local function pack(...) return { n = select('#', ...), ... } end
local function without_sigpipe(f, ...)
  local ok_c, previous = pcall(ffi.C.signal, SIGPIPE, SIG_IGN)
  local r = pack(pcall(f, ...))
  if ok_c then ffi.C.signal(SIGPIPE, previous) end
  return unpack(r, 1, r.n)
end
local function pipe_write(pipe, bytes) return pipe:write(bytes) end
local function pipe_flush(pipe) return pipe:flush() end
local function pipe_close(pipe) return pipe:close() end

-- Sends the collected bytes to the command and starts a new buffer.
function PipeFile:_send()
  local st = self._stream
  if self._mode ~= 'w' or not st or not st:is_open() or st:size() == 0 then return end
  local bytes = st:contents()
  local called, ok, err = without_sigpipe(pipe_write, self._pipe, bytes)
  if called and ok then called, ok, err = without_sigpipe(pipe_flush, self._pipe) end
  if not (called and ok) then
    fail('PipeFile', '%s: write to the pipe failed: %s', self._name, tostring(err or ok))
  end
  self._sent = self._sent + #bytes
  st:free()
  local fresh = buffer_stream()
  fresh.name = self._name
  self._stream = fresh
end

function PipeFile:_s()
  local st = File._s(self)
  if self._mode == 'w' and st:size() > FLUSH_AT then
    self:_send()
    return self._stream
  end
  return st
end

--- Sends what was written so far to the command.
function PipeFile:synchronize()
  File._s(self)
  self:_send()
  return self
end
--- Closes the pipe: in mode 'w' sends the rest and waits for the command to finish.
function PipeFile:close()
  if self._stream and self._pipe then
    -- closed even when the last send fails (the command has exited): the error comes after
    local sent, err = pcall(self._send, self)
    local pipe = self._pipe
    self._pipe = nil
    if sent then
      File.close(self)
    else
      self._stream:free()
      self._stream = nil
    end
    without_sigpipe(pipe_close, pipe)
    if not sent then error(err, 0) end
    return self
  end
  return (File.close(self))
end
--- The current byte position (1-based): bytes read, or written since the start.
function PipeFile:position() return File._s(self):tell() + (self._sent or 0) + 1 end
--- A pipe cannot seek (Torch7).
function PipeFile:seek() fail('seek', 'a PipeFile cannot seek') end
--- A pipe cannot seek (Torch7).
function PipeFile:seekEnd() fail('seekEnd', 'a PipeFile cannot seek') end
--- Whether the file can be read (mode 'r').
function PipeFile:isReadable() File._s(self) return self._mode == 'r' end
--- Whether the file can be written (mode 'w').
function PipeFile:isWritable() File._s(self) return self._mode == 'w' end

-- Reads of a 'w' PipeFile and writes of an 'r' one fail naming the method (readObject and
-- writeObject, added by t7.lua later, go through these).
for name, f in pairs(File) do
  local need = type(f) == 'function' and (name:match('^read') and 'r' or name:match('^write') and 'w')
  if need then
    PipeFile[name] = function(self, ...)
      if self._mode ~= need then fail(name, "the PipeFile is opened in mode '%s'", tostring(self._mode)) end
      return f(self, ...)
    end
  end
end

return torch
