-- Reading float and double memory into Lua numbers without letting a NaN's payload become some
-- other Lua value (Note [NaNs that LuaJIT reads as other values]).
--
-- Note [NaNs that LuaJIT reads as other values]: LuaJIT keeps nil, booleans, strings, tables...
-- in the NaN space of a double: a TValue whose top bits are those of a negative NaN with certain
-- payloads is not a number but a tagged value (with GC64, every 64-bit pattern above
-- 0xFFF9800000000000). Its FFI does not canonicalize NaNs when it loads a float or double (Debian
-- 12's 2.1.0~beta3 does not), so reading an element whose bits are such a NaN gave nil, true, a
-- "string" at the payload's address, and later a crash: printing uninitialized memory, a float of
-- all ones (0xFFFFFFFF, a bitwise pattern or a corrupt file) or a half NaN widened to double. Every
-- read of tensor or file memory into a Lua number goes through these functions, which look at the
-- high word as an integer first and return the canonical NaN (0xFFF8000000000000, a number in
-- every LuaJIT build) for any negative NaN. Positive NaNs are never tagged. Values coming back
-- from C through a double out-parameter are canonicalized on the C side (capi::lua_number).
local ffi = require 'ffi'

local M = {}

local u32p, f32p, f64p = ffi.typeof('const uint32_t *'), ffi.typeof('const float *'), ffi.typeof('const double *')
local HI = ffi.abi('le') and 1 or 0  -- index of a double's high 32-bit word
-- A double above this high word (as an unsigned integer) is a negative NaN with a payload.
local F64_NEG_NAN_HI, F32_NEG_NAN = 0xFFF80000, 0xFF800000
M.NAN = ffi.cast(f64p, ffi.new('uint64_t[1]', 0xFFF8000000000000ULL))[0]
local NAN = M.NAN

--- The double at ptr[i] as a Lua number (ptr: any pointer; i: an element index).
function M.f64(ptr, i)
  if ffi.cast(u32p, ptr)[2 * i + HI] > F64_NEG_NAN_HI then return NAN end
  return ffi.cast(f64p, ptr)[i]
end

--- The float at ptr[i] as a Lua number.
function M.f32(ptr, i)
  if ffi.cast(u32p, ptr)[i] > F32_NEG_NAN then return NAN end
  return (tonumber(ffi.cast(f32p, ptr)[i]))
end

--- Replaces in place each NaN of the double array buf[0..n-1] that Lua would misread.
function M.canonicalize(buf, n)
  local w = ffi.cast(u32p, buf)
  for i = 0, n - 1 do
    if w[2 * i + HI] > F64_NEG_NAN_HI then buf[i] = NAN end
  end
  return buf
end

return M
