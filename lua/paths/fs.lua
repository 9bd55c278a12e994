-- The libc calls behind paths (and sys), through the FFI: file kind (statx on Linux, stat on
-- macOS), getcwd, mkdir, rmdir, uname, the executable's path and temporary names.
local ffi = require 'ffi'
local bit = require 'bit'

local fs = {}

-- One declaration at a time: another module may already have declared some of them.
for _, decl in ipairs({
  'char *getcwd(char *buf, size_t size);',
  'int mkdir(const char *path, unsigned int mode);',
  'int rmdir(const char *path);',
  'char *strerror(int errnum);',
  'int uname(void *buf);',
  'long readlink(const char *path, char *buf, size_t size);',
  'int mkstemp(char *tmpl);',
  'int close(int fd);',
  'int statx(int dirfd, const char *path, int flags, unsigned int mask, void *buf);',
  'int stat(const char *path, void *buf);',
  'int lstat(const char *path, void *buf);',
}) do pcall(ffi.cdef, decl) end

local function has(name)
  return (pcall(function() return ffi.C[name] end))
end

local S_IFMT, S_IFDIR, S_IFLNK = 0xF000, 0x4000, 0xA000
local statbuf = ffi.new('uint8_t[512]')

-- Note [File kinds without struct stat]: struct stat differs between architectures, and glibc
-- before 2.33 exports no `stat` symbol at all; statx (glibc 2.28+) has one layout everywhere
-- (st_mode: a uint16 at byte 28). macOS's 64-bit-inode stat keeps st_mode at byte 4. Elsewhere
-- (an old libc), opendir and fopen tell directories from files.
local mode_of
if ffi.os == 'Linux' and has('statx') then
  local AT_FDCWD, AT_SYMLINK_NOFOLLOW, STATX_TYPE = -100, 0x100, 1
  mode_of = function(path, nofollow)
    if ffi.C.statx(AT_FDCWD, path, nofollow and AT_SYMLINK_NOFOLLOW or 0, STATX_TYPE, statbuf) ~= 0 then return nil end
    return ffi.cast('uint16_t *', statbuf + 28)[0]
  end
elseif ffi.os == 'OSX' and has('stat') then
  mode_of = function(path, nofollow)
    if (nofollow and ffi.C.lstat or ffi.C.stat)(path, statbuf) ~= 0 then return nil end
    return ffi.cast('uint16_t *', statbuf + 4)[0]
  end
end

local function kind_fallback(path)
  pcall(ffi.cdef, 'void *opendir(const char *name); int closedir(void *dirp);')
  local d = ffi.C.opendir(path)
  if d ~= nil then ffi.C.closedir(d) return 'dir' end
  local f = io.open(path, 'rb')
  if f then f:close() return 'file' end
  return nil
end

--- fs.kind(path[, nofollow]): 'dir', 'link' (only when nofollow), 'file' (anything else that
--- exists) or nil when path does not exist.
function fs.kind(path, nofollow)
  if not mode_of then return kind_fallback(path) end
  local m = mode_of(path, nofollow)
  if not m then return nil end
  local t = bit.band(m, S_IFMT)
  if t == S_IFDIR then return 'dir' end
  if t == S_IFLNK then return 'link' end
  return 'file'
end

--- fs.cwd(): the current directory ('.' when it cannot be found).
function fs.cwd()
  local size = 4096
  while size <= 1048576 do
    local buf = ffi.new('char[?]', size)
    if ffi.C.getcwd(buf, size) ~= nil then return ffi.string(buf) end
    if ffi.errno() ~= 34 then break end -- ERANGE: a longer buffer may do
    size = size * 4
  end
  return '.'
end

-- true, or nil, "path: message", errno (Torch7's pushresult).
local function result(ok, path)
  if ok then return true end
  local en = ffi.errno()
  return nil, path .. ': ' .. ffi.string(ffi.C.strerror(en)), en
end

--- fs.mkdir(path): one directory (mode 0777 less the umask); true or nil, message, errno.
function fs.mkdir(path) return result(ffi.C.mkdir(path, 511) == 0, path) end

--- fs.rmdir(path): removes an empty directory; true or nil, message, errno.
function fs.rmdir(path) return result(ffi.C.rmdir(path) == 0, path) end

--- fs.uname(): sysname, nodename, machine (as uname(2) gives them).
function fs.uname()
  -- Linux: six fields of 65 bytes; macOS and the BSDs: five of 256 (machine is the 5th on both).
  local width = ffi.os == 'Linux' and 65 or 256
  local buf = ffi.new('char[?]', width * 6)
  if ffi.C.uname(buf) ~= 0 then return 'Unknown' end
  local function field(k) return ffi.string(buf + k * width) end
  return field(0), field(1), field(4)
end

--- fs.execdir(): the directory of the running executable, or nil where it cannot be known.
function fs.execdir()
  if ffi.os ~= 'Linux' then return nil end
  local buf = ffi.new('char[4096]')
  local n = tonumber(ffi.C.readlink('/proc/self/exe', buf, 4095))
  if n <= 0 then return nil end
  local exe = ffi.string(buf, n)
  return exe:match('^(.*)/[^/]*$')
end

--- fs.mkstemp(dir, prefix): a new empty file dir/prefixXXXXXX (created, so no other process can
--- take the name); its path, or nil, message.
function fs.mkstemp(dir, prefix)
  local tmpl = dir .. '/' .. prefix .. 'XXXXXX'
  local buf = ffi.new('char[?]', #tmpl + 1)
  ffi.copy(buf, tmpl)
  local fd = ffi.C.mkstemp(buf)
  if fd < 0 then return nil, tmpl .. ': ' .. ffi.string(ffi.C.strerror(ffi.errno())) end
  ffi.C.close(fd)
  return ffi.string(buf)
end

return fs
