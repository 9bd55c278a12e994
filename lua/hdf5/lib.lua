-- The HDF5 C library as the hdf5 package sees it: loading libhdf5 (Debian's serial build) through
-- the LuaJIT FFI, the few declarations and constants the package uses, HDF5's own error stack
-- read into our messages, and the map between HDF5 datatypes and Tocha tensor types.
local ffi = require 'ffi'
local torch = require 'torch'
local tlib = require 'torch.lib'

local L = {}

-- Note [HDF5 1.10 ABI]: from 1.10 on, hid_t is 64 bits wide and the predefined datatypes
-- (H5T_NATIVE_INT...) are global hid_t variables (the H5T_NATIVE_INT macro reads
-- H5T_NATIVE_INT_g after H5open()), so we declare the variables and call H5open() once. The
-- enum values below are HDF5 1.10's (H5Ipublic.h, H5Tpublic.h, H5Spublic.h); 1.8's hid_t was an
-- int, so older libraries are refused at load time rather than read with the wrong widths.

L.PACKAGE = 'libhdf5-103-1'
local SONAMES = { 'libhdf5_serial.so.103', 'libhdf5.so.103', 'hdf5_serial', 'hdf5' }

-- The library by its soname (Debian's serial build first), or an error saying what to install.
local function load_library()
  local errs = {}
  for _, name in ipairs(SONAMES) do
    local ok, lib = pcall(ffi.load, name)
    if ok then return lib end
    errs[#errs + 1] = tostring(lib)
  end
  error("[hdf5] cannot load the HDF5 C library (" .. SONAMES[1] .. "): install Debian's " .. L.PACKAGE
    .. " package (apt-get install " .. L.PACKAGE .. "); tried: " .. table.concat(errs, '; '), 0)
end

local C = load_library()
-- Declared once per process (a second cdef of the structs would be an error): the package may be
-- required again after a failed first try.
if not pcall(ffi.typeof, 'tocha_H5G_info_t') then
  ffi.cdef [[
typedef int64_t hid_t;
typedef int herr_t;
typedef int htri_t;
typedef uint64_t hsize_t;
typedef struct { int storage_type; hsize_t nlinks; int64_t max_corder; bool mounted; } tocha_H5G_info_t;
typedef struct { hid_t cls_id; hid_t maj_num; hid_t min_num; unsigned line;
                 const char *func_name; const char *file_name; const char *desc; } tocha_H5E_error2_t;
typedef herr_t (*tocha_H5E_walk2_t)(unsigned n, const tocha_H5E_error2_t *err, void *data);

herr_t H5open(void);
herr_t H5get_libversion(unsigned *majnum, unsigned *minnum, unsigned *relnum);
herr_t H5Eset_auto2(hid_t estack_id, void *func, void *client_data);
herr_t H5Ewalk2(hid_t estack_id, int direction, tocha_H5E_walk2_t func, void *client_data);
herr_t H5Eclear2(hid_t estack_id);

htri_t H5Fis_hdf5(const char *name);
hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl);
hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl);
herr_t H5Fclose(hid_t file_id);

hid_t H5Gcreate2(hid_t loc, const char *name, hid_t lcpl, hid_t gcpl, hid_t gapl);
hid_t H5Gopen2(hid_t loc, const char *name, hid_t gapl);
herr_t H5Gget_info(hid_t loc, tocha_H5G_info_t *info);
herr_t H5Gclose(hid_t group_id);

htri_t H5Lexists(hid_t loc, const char *name, hid_t lapl);
herr_t H5Ldelete(hid_t loc, const char *name, hid_t lapl);
ptrdiff_t H5Lget_name_by_idx(hid_t loc, const char *group, int idx_type, int order, hsize_t n,
                             char *name, size_t size, hid_t lapl);
hid_t H5Oopen(hid_t loc, const char *name, hid_t lapl);
herr_t H5Oclose(hid_t object_id);
int H5Iget_type(hid_t id);

hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl);
hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl);
hid_t H5Dget_space(hid_t dset);
hid_t H5Dget_type(hid_t dset);
herr_t H5Dread(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t xfer, void *buf);
herr_t H5Dwrite(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t xfer, const void *buf);
herr_t H5Dset_extent(hid_t dset, const hsize_t *size);
herr_t H5Dclose(hid_t dset);

hid_t H5Screate(int type);
hid_t H5Screate_simple(int rank, const hsize_t *dims, const hsize_t *maxdims);
int H5Sget_simple_extent_type(hid_t space);
int H5Sget_simple_extent_ndims(hid_t space);
int H5Sget_simple_extent_dims(hid_t space, hsize_t *dims, hsize_t *maxdims);
herr_t H5Sselect_hyperslab(hid_t space, int op, const hsize_t *start, const hsize_t *stride,
                           const hsize_t *count, const hsize_t *block);
herr_t H5Sclose(hid_t space);

int H5Tget_class(hid_t type);
size_t H5Tget_size(hid_t type);
int H5Tget_sign(hid_t type);
herr_t H5Tclose(hid_t type);

hid_t H5Pcreate(hid_t cls);
herr_t H5Pset_chunk(hid_t plist, int ndims, const hsize_t *dims);
herr_t H5Pset_deflate(hid_t plist, unsigned level);
herr_t H5Pclose(hid_t plist);
htri_t H5Zfilter_avail(int filter);

extern hid_t H5P_CLS_DATASET_CREATE_ID_g;
extern hid_t H5T_NATIVE_SCHAR_g, H5T_NATIVE_UCHAR_g, H5T_NATIVE_SHORT_g, H5T_NATIVE_INT_g;
extern hid_t H5T_NATIVE_LLONG_g, H5T_NATIVE_ULLONG_g, H5T_NATIVE_FLOAT_g, H5T_NATIVE_DOUBLE_g;
extern hid_t H5T_STD_I8LE_g, H5T_STD_U8LE_g, H5T_STD_I16LE_g, H5T_STD_I32LE_g, H5T_STD_I64LE_g;
extern hid_t H5T_IEEE_F32LE_g, H5T_IEEE_F64LE_g;
]]
end
L.C = C
assert(C.H5open() >= 0, '[hdf5] H5open failed')
do
  local v = ffi.new('unsigned[3]')
  C.H5get_libversion(v, v + 1, v + 2)
  L.version = { tonumber(v[0]), tonumber(v[1]), tonumber(v[2]) }
  if L.version[1] ~= 1 or L.version[2] < 10 then
    error(string.format('[hdf5] HDF5 %d.%d.%d is too old: Tocha needs HDF5 1.10 or later (%s)',
      L.version[1], L.version[2], L.version[3], L.PACKAGE), 0)
  end
end
-- Our errors carry HDF5's message; its own printing of the error stack to stderr is noise.
C.H5Eset_auto2(0, nil, nil)

L.P_DEFAULT, L.S_ALL, L.E_DEFAULT = 0, 0, 0
L.ACC_RDONLY, L.ACC_RDWR, L.ACC_TRUNC, L.ACC_EXCL = 0, 1, 2, 4
L.I_GROUP, L.I_DATASET = 2, 5
L.T_INTEGER, L.T_FLOAT = 0, 1
L.T_CLASS_NAMES = { [-1] = 'NO_CLASS', [0] = 'INTEGER', 'FLOAT', 'TIME', 'STRING', 'BITFIELD', 'OPAQUE',
  'COMPOUND', 'REFERENCE', 'ENUM', 'VLEN', 'ARRAY' }
L.T_SGN_NONE = 0
L.S_SCALAR, L.S_SIMPLE, L.S_NULL = 0, 1, 2
L.S_SELECT_SET = 0
L.UNLIMITED = ffi.cast('hsize_t', -1LL)  -- H5S_UNLIMITED: all bits set
L.Z_FILTER_DEFLATE = 1
L.hsize = ffi.typeof('hsize_t[?]')

-- L.fail(fn, fmt, ...): raises "[hdf5.fn] message" at the user's line.
function L.fail(fn, fmt, ...)
  tlib.fail('hdf5.' .. fn, fmt, ...)
end

-- The innermost message of HDF5's error stack (then cleared), e.g. "unable to open file: name =
-- 'x.h5', errno = 2...", or nil. The callback is made once: LuaJIT has few callback slots.
local last_desc
local walker = ffi.cast('tocha_H5E_walk2_t', function(n, err)
  if n == 0 and err.desc ~= nil then last_desc = ffi.string(err.desc) end
  return 0
end)
-- L.inCallback: true while HDF5 runs our callback; a collection there must not re-enter HDF5
-- (handles.lua defers the finalizers it would run).
L.inCallback = false
local function hdf5_message()
  last_desc = nil
  L.inCallback = true
  C.H5Ewalk2(0, 0, walker, nil)  -- H5E_WALK_UPWARD: n == 0 is where the error was detected
  L.inCallback = false
  C.H5Eclear2(0)
  return last_desc
end
-- A C function that calls back into Lua must not be called from compiled code.
jit.off(hdf5_message)

-- L.check(status, fn, cfn, what): returns status when it is >= 0, else raises "[hdf5.fn] cfn
-- failed <what> (HDF5: <its message>)".
function L.check(status, fn, cfn, what)
  if status >= 0 then return status end
  local msg = hdf5_message()
  L.fail(fn, '%s failed %s%s', cfn, what, msg and (' (HDF5: ' .. msg .. ')') or '')
end

-- L.dims(space): the sizes and max sizes of a simple dataspace, as Lua tables ({} for a scalar).
function L.dims(space, fn, what)
  local rank = L.check(C.H5Sget_simple_extent_ndims(space), fn, 'H5Sget_simple_extent_ndims', what)
  local d, m = L.hsize(math.max(rank, 1)), L.hsize(math.max(rank, 1))
  L.check(C.H5Sget_simple_extent_dims(space, d, m), fn, 'H5Sget_simple_extent_dims', what)
  local size, maxSize = {}, {}
  for k = 1, rank do
    size[k] = tonumber(d[k - 1])
    maxSize[k] = m[k - 1] == L.UNLIMITED and math.huge or tonumber(m[k - 1])
  end
  return size, maxSize
end

-- L.toHsize(t): a Lua list of sizes as an hsize_t array.
function L.toHsize(t)
  local out = L.hsize(math.max(#t, 1))
  for k = 1, #t do out[k - 1] = t[k] end
  return out
end

-- Tensor types the package writes: the file type (little-endian, as torch-hdf5 wrote) and the
-- memory type that HDF5 converts from.
local WRITE = {
  ['torch.ByteTensor'] = { 'H5T_STD_U8LE_g', 'H5T_NATIVE_UCHAR_g' },
  ['torch.CharTensor'] = { 'H5T_STD_I8LE_g', 'H5T_NATIVE_SCHAR_g' },
  ['torch.ShortTensor'] = { 'H5T_STD_I16LE_g', 'H5T_NATIVE_SHORT_g' },
  ['torch.IntTensor'] = { 'H5T_STD_I32LE_g', 'H5T_NATIVE_INT_g' },
  ['torch.LongTensor'] = { 'H5T_STD_I64LE_g', 'H5T_NATIVE_LLONG_g' },
  ['torch.FloatTensor'] = { 'H5T_IEEE_F32LE_g', 'H5T_NATIVE_FLOAT_g' },
  ['torch.DoubleTensor'] = { 'H5T_IEEE_F64LE_g', 'H5T_NATIVE_DOUBLE_g' },
}

-- L.writeTypes(typename): the HDF5 file type and memory type for a tensor type, or nil.
function L.writeTypes(typename)
  local w = WRITE[typename]
  if w then return C[w[1]], C[w[2]] end
end

-- Note [int8 and int16 without CharTensor]: Torch7 reads int8 into a CharTensor and int16 into a
-- ShortTensor. A Tocha build without those types reads both into an IntTensor (HDF5 widens the
-- values, so nothing is lost); this is the one place that decides.
local function small_signed(size)
  if size == 1 and torch.CharTensor then return 'torch.CharTensor', C.H5T_NATIVE_SCHAR_g end
  if size == 2 and torch.ShortTensor then return 'torch.ShortTensor', C.H5T_NATIVE_SHORT_g end
  return 'torch.IntTensor', C.H5T_NATIVE_INT_g
end

-- L.readType(typeID): the tensor type a dataset of this HDF5 type reads into, the memory type to
-- read with, and a flag for "unsigned 64-bit" (checked after the read), or nil and a reason.
function L.readType(t)
  local class = C.H5Tget_class(t)
  local size = tonumber(C.H5Tget_size(t))
  if class == L.T_INTEGER then
    local unsigned = C.H5Tget_sign(t) == L.T_SGN_NONE
    -- Note [Unsigned integers]: Torch7 has no uint16/32/64 tensors; uint16 and uint32 widen into
    -- the next signed type, so that no value changes. uint64 reads into a LongTensor and fails if a
    -- value is 2^63 or more (a LongTensor cannot hold it) rather than wrapping it silently.
    if size == 1 then
      if unsigned then return 'torch.ByteTensor', C.H5T_NATIVE_UCHAR_g end
      return small_signed(1)
    elseif size == 2 then
      if unsigned then return 'torch.IntTensor', C.H5T_NATIVE_INT_g end
      return small_signed(2)
    elseif size == 4 then
      if unsigned then return 'torch.LongTensor', C.H5T_NATIVE_LLONG_g end
      return 'torch.IntTensor', C.H5T_NATIVE_INT_g
    elseif size == 8 then
      if unsigned then return 'torch.LongTensor', C.H5T_NATIVE_ULLONG_g, true end
      return 'torch.LongTensor', C.H5T_NATIVE_LLONG_g
    end
    return nil, size .. '-byte integers'
  elseif class == L.T_FLOAT then
    if size == 4 then return 'torch.FloatTensor', C.H5T_NATIVE_FLOAT_g end
    if size == 8 then return 'torch.DoubleTensor', C.H5T_NATIVE_DOUBLE_g end
    -- float16 (h5py's '<f2'): HDF5 converts it exactly to float; the caller makes it a HalfTensor.
    if size == 2 then return 'torch.HalfTensor', C.H5T_NATIVE_FLOAT_g end
    return nil, size .. '-byte floats'
  end
  return nil, 'HDF5 class ' .. (L.T_CLASS_NAMES[class] or tostring(class))
end

-- L.deflateAvailable(): whether this HDF5 build has the DEFLATE (zlib) filter.
function L.deflateAvailable()
  return C.H5Zfilter_avail(L.Z_FILTER_DEFLATE) > 0
end

return L
