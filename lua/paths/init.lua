-- Torch7's paths package (require 'paths' sets the global paths; loads without torch): filename
-- arithmetic (paths/names.lua), file kinds, listing, creating and removing folders and trees, the
-- home and install folders, temporary names, uname, and the calling file's path.
if rawget(_G, 'paths') and paths._tocha then return paths end
local lib = require 'torch.lib'
local names = require 'paths.names'
local fs = require 'paths.fs'

paths = rawget(_G, 'paths') or {}
paths._tocha = true

-- Errors name the function as Torch7 users read it ("paths.concat: ...") at the caller's line.
local function fail(fn, fmt, ...)
  error('paths.' .. fn .. ': ' .. string.format(fmt, ...), lib.user_level())
end

-- Torch7 reads its arguments with luaL_checkstring, which takes numbers too.
local function str(fn, v, argn)
  local t = type(v)
  if t == 'string' then return v end
  if t == 'number' then return tostring(v) end
  fail(fn, 'argument #%d: expected a string, got %s', argn, t)
end

--- paths.concat(p1, p2, ...): the absolute, normalised path p1/p2/... ('.' and '..' resolved,
--- relative parts taken from the current directory); paths.concat() is the current directory.
--- Example: paths.concat('/data', 'mnist', '../cifar', 'train.t7')  -- '/data/cifar/train.t7'
function paths.concat(...)
  local parts = { ... }
  for k = 1, select('#', ...) do
    local t = type(parts[k])
    if t == 'number' then parts[k] = tostring(parts[k])
    elseif t ~= 'string' then fail('concat', 'expected strings, got %s (argument #%d)', t, k) end
  end
  return names.concat(fs.cwd(), parts)
end

--- paths.cwd(): the current directory.
--- Example: paths.cwd()
function paths.cwd() return fs.cwd() end

--- paths.basename(path[, suffix]): the last component of path, without suffix (an extension,
--- with or without its dot) when it ends with it.
--- Example: paths.basename('/data/model.t7', 't7')  -- 'model'
function paths.basename(path, suffix)
  path = str('basename', path, 1)
  if suffix ~= nil then suffix = str('basename', suffix, 2) end
  return names.basename(path, suffix)
end

--- paths.dirname(path): path without its last component ('.' when there is none).
--- Example: paths.dirname('/data/model.t7')  -- '/data'
function paths.dirname(path) return names.dirname(str('dirname', path, 1)) end

--- paths.extname(path): the extension (after the last dot, without it), or nil.
--- Example: paths.extname('model.t7')  -- 't7'
function paths.extname(path) return names.extname(str('extname', path, 1)) end

--- paths.filep(path): true when path exists and is not a directory.
--- Example: paths.filep('/etc/passwd')
function paths.filep(path) local k = fs.kind(str('filep', path, 1)) return k ~= nil and k ~= 'dir' end

--- paths.dirp(path): true when path is a directory (links followed).
--- Example: paths.dirp('/tmp')
function paths.dirp(path) return fs.kind(str('dirp', path, 1)) == 'dir' end

--- paths.dir(path): the names in directory path, '.' and '..' first, then sorted; nil when path
--- is not a directory that can be read.
--- Example: paths.dir('.')
function paths.dir(path)
  path = str('dir', path, 1)
  -- Loaded here, not at the top: data.files needs torch, and paths must load without it (so
  -- that torch's own start-up may require paths, as Torch7's did).
  local ok, entries = pcall(require('data.files').list, path)
  if not ok then return nil end
  local out = { '.', '..' }
  for _, e in ipairs(entries) do out[#out + 1] = e.name end
  return out
end

--- paths.files(dir[, filter]): an iterator over the names paths.dir(dir) gives ('.' and '..'
--- included), those matching filter when given: a Lua pattern or a function(name) -> boolean.
--- Example: for f in paths.files('.', '%.t7$') do print(f) end
function paths.files(dir, filter)
  dir = str('files', dir, 1)
  if type(filter) == 'string' then
    local pattern = filter
    filter = function(name) return name:find(pattern) end
  elseif filter ~= nil and type(filter) ~= 'function' then
    fail('files', 'argument #2: expected a function or a string pattern, got %s', type(filter))
  end
  local list = paths.dir(dir) or {}
  local n = 0
  return function()
    while true do
      n = n + 1
      local name = list[n]
      if name == nil then return nil end
      if not filter or filter(name) then return name end
    end
  end
end

--- paths.iterdirs(dir): an iterator over the subdirectories of dir (without '.' and '..').
--- Example: for d in paths.iterdirs('.') do print(d) end
function paths.iterdirs(dir)
  dir = str('iterdirs', dir, 1)
  return paths.files(dir, function(name)
    return name ~= '.' and name ~= '..' and paths.dirp(paths.concat(dir, name))
  end)
end

--- paths.iterfiles(dir): an iterator over the names of dir that are not directories.
--- Example: for f in paths.iterfiles('.') do print(f) end
function paths.iterfiles(dir)
  dir = str('iterfiles', dir, 1)
  return paths.files(dir, function(name)
    return name ~= '.' and name ~= '..' and paths.filep(paths.concat(dir, name))
  end)
end

--- paths.mkdir(path): creates directory path and its missing parents; true, or nil, message,
--- errno (Torch7: an existing directory is an error, "File exists").
--- Example: paths.mkdir('runs/exp1')
function paths.mkdir(path)
  path = str('mkdir', path, 1)
  local parent = names.dirname(path)
  -- The parent test stops at '.' and '/'; the equality guards a current directory that has
  -- been removed, where Torch7 would recurse forever.
  if parent ~= path and fs.kind(parent) ~= 'dir' then paths.mkdir(parent) end
  return fs.mkdir(path)
end

--- paths.rmdir(path): removes the empty directory path; true, or nil, message, errno.
--- Example: paths.mkdir('empty_dir'); paths.rmdir('empty_dir')
function paths.rmdir(path) return fs.rmdir(str('rmdir', path, 1)) end

--- paths.rmall(path, 'yes'): removes the file or the whole tree at path (the second argument must
--- be the string 'yes'); true, or nil, message, the path that failed.
--- Example: paths.mkdir('scratch/a'); paths.rmall('scratch', 'yes')
function paths.rmall(path, more)
  path = str('rmall', path, 1)
  if more ~= 'yes' then return nil, "missing second argument ('yes')" end
  -- Note [rmall and links]: a symbolic link is removed, never followed: Torch7 followed a link
  -- to a directory and emptied its target before failing on the link itself.
  local kind = fs.kind(path, true)
  if kind == 'file' or kind == 'link' then return os.remove(path) end
  if kind == 'dir' then
    for name in paths.files(path) do
      if name ~= '.' and name ~= '..' then
        local child = paths.concat(path, name)
        local ok, err = paths.rmall(child, more)
        if not ok then return ok, err, child end
      end
    end
    return fs.rmdir(path)
  end
  return nil, 'not a file or directory', path
end

--- paths.uname(): the system name ('Linux', 'Darwin'), the host name and the machine ('x86_64').
--- Example: paths.uname()
function paths.uname() return fs.uname() end

--- paths.is_win(): a true value on Windows (never, for Tocha), else nil.
--- Example: paths.is_win()
function paths.is_win() return (paths.uname():match('Windows')) end

--- paths.is_mac(): a true value ('Darwin') on macOS, else nil.
--- Example: paths.is_mac()
function paths.is_mac() return (paths.uname():match('Darwin')) end

paths.home = os.getenv('HOME') or '.'

--- paths.execdir(): the directory of the running executable (Linux), or nil.
--- Example: paths.execdir()
function paths.execdir() return fs.execdir() end

-- Note [Temporary names]: Torch7's tmpname gave a fresh name (tempnam) and removed the file at
-- exit. We create the file (mkstemp: no other process can take the name between the call and
-- the first write) in $TMPDIR or /tmp, and remove it when the Lua state closes, as Torch7 did.
local tmpnames = {}
local sentinel = newproxy(true)
getmetatable(sentinel).__gc = function() for _, f in ipairs(tmpnames) do os.remove(f) end end
paths._tmpsentinel = sentinel

--- paths.tmpname(): the path of a new empty temporary file, removed when Tocha exits.
--- Example: local f = paths.tmpname(); torch.save(f, torch.ones(2))
function paths.tmpname()
  local name, err = fs.mkstemp(os.getenv('TMPDIR') or '/tmp', 'luatmp')
  if not name then fail('tmpname', '%s', err) end
  tmpnames[#tmpnames + 1] = name
  return name
end

--- paths.thisfile([name][, depth]): the absolute path of the Lua file calling it (nil from a
--- string chunk), or of name next to that file when name is given.
--- Example: paths.thisfile('config.lua')
function paths.thisfile(arg, depth)
  local info = debug.getinfo(depth or 2, 'S')
  local s = info and info.source
  if type(s) ~= 'string' then s = nil
  elseif s:sub(1, 1) == '@' then s = paths.concat(s:sub(2))
  else s = nil end
  if type(arg) == 'string' then
    if s then s = paths.concat(names.dirname(s), arg) else s = arg end
  end
  return s
end

--- paths.dofile(name[, depth]): runs the Lua file name found next to the calling file (dofile
--- relative to the script, not to the current directory); returns what it returns.
--- Example: local f = io.open('helpers.lua', 'w'); f:write('return 42'); f:close(); return paths.dofile('helpers.lua')
function paths.dofile(f, depth)
  f = str('dofile', f, 1)
  local s = paths.thisfile(nil, 1 + (depth or 2))
  if s and s ~= '' then f = paths.concat(names.dirname(s), f) end
  return dofile(f)
end

--- paths.findprogram(name, ...): the path of the first of the programs found in $PATH, or nil.
--- Example: paths.findprogram('gnuplot', 'sh')
function paths.findprogram(...)
  local path = os.getenv('PATH') or '.'
  for k = 1, select('#', ...) do
    local exe = str('findprogram', (select(k, ...)), k)
    for dir in path:gmatch('[^:]+') do
      local x = paths.concat(dir, exe)
      if paths.filep(x) then return x end
    end
  end
  return nil
end

--- paths.require(name): require(name). Torch7 used it to load C modules with global symbols;
--- Tocha's packages are Lua files, so this is plain require.
--- Example: paths.require('nn')
function paths.require(name) return require(str('require', name, 1)) end

--- paths.getregistryvalue(): Windows only (an error, as in Torch7 on other systems).
--- Example: pcall(paths.getregistryvalue, 'HKEY_CURRENT_USER', 'x', '')
function paths.getregistryvalue()
  fail('getregistryvalue', 'this function exists only on Windows')
end

-- Note [Install paths]: Torch7 published where it was installed (install_lua_path is the folder
-- holding the packages, which scripts use to find a package's data files). Tocha's Lua files
-- live in <prefix>/share/tocha/lua once installed, or in <source tree>/lua.
do
  local lua_root = lib.lua_root
  local prefix = lua_root:match('^(.*)/share/tocha/lua$') or lua_root:match('^(.*)/lua$') or lua_root
  paths.install_prefix = prefix
  paths.install_bin_subdir, paths.install_lib_subdir = 'bin', 'lib'
  paths.install_share_subdir, paths.install_include_subdir = 'share', 'include'
  paths.install_man_subdir, paths.install_cmake_subdir = 'share/man', 'share/cmake/tocha'
  paths.install_bin = prefix .. '/bin'
  paths.install_lib = prefix .. '/lib'
  paths.install_share = prefix .. '/share'
  paths.install_include = prefix .. '/include'
  paths.install_man = prefix .. '/share/man'
  paths.install_cmake = prefix .. '/share/cmake/tocha'
  paths.install_lua_path = lua_root
  paths.install_lua_cpath = prefix .. '/lib'
  paths.install_lua_path_subdir = lua_root:sub(#prefix + 2)
  paths.install_lua_cpath_subdir = 'lib'
end

package.loaded.paths = paths
return paths
