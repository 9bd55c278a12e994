-- The paths package (Torch7's): filename arithmetic table-driven against Torch7's paths.c rules
-- (POSIX basename/dirname where Torch7 agrees, its own answers where it does not), and the file
-- system functions on a temporary tree checked with io.open and the shell (ls, uname, readlink).
local ffi = require 'ffi'
local ret = require 'paths'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function sh(cmd)
  local f = assert(io.popen(cmd))
  local s = f:read('*a')
  f:close()
  return (s:gsub('%s+$', ''))
end

local CWD = sh('pwd -P')
local TMP = os.getenv('TOCHA_TEST_TMP') or '/tmp'
-- A fresh folder for the tree tests, removed by the shell (not by the code under test) at the end.
local ROOT = sh("mktemp -d '" .. TMP .. "/paths_test_XXXXXX'")

local function write(path, text)
  local f = assert(io.open(path, 'w'))
  f:write(text or '')
  f:close()
end

local function exists(path)
  return sh("test -e '" .. path .. "' && echo yes || echo no") == 'yes'
end

function tests.requireSetsTheGlobal()
  tester:assert(ret == paths and type(paths) == 'table', 'require returns the global paths')
  tester:assert(require 'paths' == paths, 'loaded once')
end

-- {path, basename, dirname}: POSIX basename(1)/dirname(1) values, except the rows marked T7
-- where Torch7's paths.c answers otherwise (read from its POSIX branch).
local NAMES = {
  { '/a/b/c', 'c', '/a/b' },
  { 'a/b/', 'b', 'a' },
  { 'a', 'a', '.' },
  { '/a', 'a', '/' },
  { '..', '..', '.' },
  { '.', '.', '.' },
  { '', '', '.' },
  { '/usr/lib/', 'lib', '/usr' },
  { 'a.b/c.d', 'c.d', 'a.b' },
  { '//a//b//', 'b', '//a/' }, -- T7 dirname: the slashes before the last component stay
  { '/', '', '/' },            -- T7 basename: '' (POSIX: '/')
  { '//', '', '//' },          -- T7: the path itself when it is only slashes
  { 'a//b', 'b', 'a/' },       -- T7 dirname keeps the doubled slash
}

function tests.basenameDirname()
  for _, row in ipairs(NAMES) do
    tester:asserteq(paths.basename(row[1]), row[2], 'basename(' .. row[1] .. ')')
    tester:asserteq(paths.dirname(row[1]), row[3], 'dirname(' .. row[1] .. ')')
  end
end

function tests.basenameSuffix()
  local cases = {
    { 'model.t7', 't7', 'model' }, { 'model.t7', '.t7', 'model' }, { '/x/model.t7', 'lua', 'model.t7' },
    { 'model.t7', '7', 'model.t7' },  -- the suffix must follow a dot
    { '.t7', 't7', '' }, { 't7', 't7', 't7' }, { 'a.tar.gz', 'gz', 'a.tar' }, { 'a.t7', '', 'a.t7' },
  }
  for _, c in ipairs(cases) do
    tester:asserteq(paths.basename(c[1], c[2]), c[3], 'basename(' .. c[1] .. ', ' .. c[2] .. ')')
  end
end

function tests.extname()
  tester:asserteq(paths.extname('model.t7'), 't7')
  tester:asserteq(paths.extname('a.tar.gz'), 'gz')
  tester:asserteq(paths.extname('a.'), '')
  tester:asserteq(paths.extname('a.d/f'), 'd/f', 'Torch7 looks at the whole string')
  tester:asserteq(select('#', paths.extname('noext')), 0, 'no value without a dot')
end

function tests.concat()
  -- Absolute results: os.path.normpath(os.path.join(...)) of Python, which agrees with Torch7 here.
  local cases = {
    { { '/data', 'mnist', 'train.t7' }, '/data/mnist/train.t7' },
    { { '/data/', '/abs', 'x' }, '/abs/x' },
    { { '/data', 'a/../b', './c/.' }, '/data/b/c' },
    { { '/a/b', '..', '..', '..' }, '/' },
    { { '/a//b///' }, '/a/b' },
    { { '/', '.' }, '/' },
    { { '/a', '...', '.x' }, '/a/.../.x' },
    { { '/a', 3 }, '/a/3' },  -- numbers are strings, as luaL_checkstring reads them
  }
  for _, c in ipairs(cases) do
    tester:asserteq(paths.concat(unpack(c[1])), c[2], table.concat(c[1], ' '))
  end
  local function under_cwd(rel) return (CWD == '/' and '' or CWD) .. '/' .. rel end
  tester:asserteq(paths.concat('a\\b', 'c'), under_cwd('a/b/c'), 'backslashes become slashes')
  -- Relative parts start from the current directory (pwd -P).
  tester:asserteq(paths.concat(), CWD)
  tester:asserteq(paths.cwd(), CWD)
  tester:asserteq(paths.concat('x', 'y'), under_cwd('x/y'))
  local parent = CWD:match('^(.*)/[^/]*$')
  tester:asserteq(paths.concat('..'), parent == '' and '/' or parent)
end

function tests.typeErrors()
  tester:assertErrorPattern(function() paths.concat('a', {}) end, 'paths%.concat: expected strings, got table')
  tester:assertErrorPattern(function() paths.basename(nil) end, 'paths%.basename: argument #1: expected a string, got nil')
  tester:assertErrorPattern(function() paths.basename('a', true) end, 'paths%.basename: argument #2')
  tester:assertErrorPattern(function() paths.dirname({}) end, 'paths%.dirname')
  tester:assertErrorPattern(function() paths.filep() end, 'paths%.filep')
  tester:assertErrorPattern(function() paths.mkdir(false) end, 'paths%.mkdir')
  tester:assertErrorPattern(function() paths.files('.', 3) end, 'paths%.files: argument #2')
  -- at the caller's line
  tester:assertErrorPattern(function() paths.dirname(1 > 0) end, 'test_paths%.lua:%d+:')
end

function tests.fileKinds()
  local dir, file = ROOT .. '/kinds', ROOT .. '/kinds/f.txt'
  os.execute("mkdir '" .. dir .. "'")
  write(file, 'x')
  tester:assert(paths.dirp(dir) and not paths.filep(dir), 'a directory')
  tester:assert(paths.filep(file) and not paths.dirp(file), 'a file')
  tester:assert(not paths.filep(dir .. '/none') and not paths.dirp(dir .. '/none'), 'nothing')
  tester:assert(paths.dirp('/') and paths.dirp('.'), '/ and .')
  -- links are followed, as stat does
  os.execute("ln -s '" .. dir .. "' '" .. ROOT .. "/kinds_link'")
  tester:assert(paths.dirp(ROOT .. '/kinds_link'), 'a link to a directory is a directory')
end

function tests.mkdirDirFilesRmall()
  local top = ROOT .. '/tree'
  tester:asserteq(paths.mkdir(top .. '/a/b/c'), true, 'parents created')
  tester:assert(exists(top .. '/a/b/c'), 'the shell sees it')
  local ok, msg, errno = paths.mkdir(top .. '/a')
  tester:assert(ok == nil and msg:find('File exists', 1, true) and errno == 17, 'existing: nil, message, EEXIST')
  write(top .. '/x.t7', '1')
  write(top .. '/y.txt', '2')
  write(top .. '/a/z.t7', '3')
  paths.mkdir(top .. '/d2')

  -- paths.dir: '.' and '..' as readdir gives them, then the names (sorted here); ls -A agrees.
  local list = paths.dir(top)
  tester:asserteq(list[1], '.')
  tester:asserteq(list[2], '..')
  local rest = { unpack(list, 3) }
  table.sort(rest)
  local ls = {}
  for name in sh("ls -A '" .. top .. "'"):gmatch('[^\n]+') do ls[#ls + 1] = name end
  table.sort(ls)
  tester:assertTableEq(rest, ls, 'names as ls -A lists them')
  tester:asserteq(paths.dir(top .. '/nope'), nil, 'not a directory: nil')
  tester:asserteq(paths.dir(top .. '/x.t7'), nil, 'a file: nil')

  local function collect(it)
    local t = {}
    for n in it do t[#t + 1] = n end
    table.sort(t)
    return t
  end
  tester:assertTableEq(collect(paths.files(top)), { '.', '..', 'a', 'd2', 'x.t7', 'y.txt' })
  tester:assertTableEq(collect(paths.files(top, '%.t7$')), { 'x.t7' }, 'a pattern')
  tester:assertTableEq(collect(paths.files(top, function(n) return #n == 1 end)), { '.', 'a' }, 'a function')
  tester:assertTableEq(collect(paths.iterfiles(top)), { 'x.t7', 'y.txt' })
  tester:assertTableEq(collect(paths.iterdirs(top)), { 'a', 'd2' })
  tester:assertTableEq(collect(paths.files(top .. '/nope')), {}, 'no directory: an empty iteration')

  -- rmdir refuses a non-empty directory, rmall needs 'yes'
  local r, m, e = paths.rmdir(top .. '/a')
  tester:assert(r == nil and m:find(top .. '/a', 1, true) and e == 39, 'rmdir: not empty (ENOTEMPTY)')
  tester:asserteq(paths.rmdir(top .. '/d2'), true)
  tester:assert(not exists(top .. '/d2'), 'rmdir removed it')
  local n1, n2 = paths.rmall(top)
  tester:assert(n1 == nil and n2 == "missing second argument ('yes')", "rmall without 'yes'")
  tester:assert(exists(top .. '/a/z.t7'), 'nothing removed')
  tester:asserteq(paths.rmall(top .. '/y.txt', 'yes'), true, 'a file')
  tester:assert(not exists(top .. '/y.txt'))
  tester:asserteq(paths.rmall(top, 'yes'), true, 'a tree')
  tester:assert(not exists(top), 'the tree is gone')
  local a, b, c = paths.rmall(top, 'yes')
  tester:assert(a == nil and b == 'not a file or directory' and c == top, 'nothing to remove')
end

function tests.rmallRemovesLinksNotTargets()
  local keep, top = ROOT .. '/keep', ROOT .. '/withlink'
  paths.mkdir(keep)
  write(keep .. '/precious', 'x')
  paths.mkdir(top)
  os.execute("ln -s '" .. keep .. "' '" .. top .. "/link'")
  tester:asserteq(paths.rmall(top, 'yes'), true)
  tester:assert(not exists(top), 'the tree is gone')
  tester:assert(exists(keep .. '/precious'), 'the target of the link is untouched')
end

function tests.homeTmpnameUnameExecdir()
  tester:asserteq(paths.home, os.getenv('HOME') or '.')
  local t1, t2 = paths.tmpname(), paths.tmpname()
  tester:assert(t1 ~= t2 and paths.filep(t1) and paths.filep(t2), 'two new files')
  tester:asserteq(paths.dirname(t1), os.getenv('TMPDIR') or '/tmp')
  tester:assert(paths.basename(t1):find('^luatmp'), 'luatmp prefix')
  local s, n, m = paths.uname()
  tester:asserteq(s, sh('uname -s'))
  tester:asserteq(n, sh('uname -n'))
  tester:asserteq(m, sh('uname -m'))
  tester:asserteq(paths.is_win(), nil)
  tester:asserteq(paths.is_mac(), s == 'Darwin' and 'Darwin' or nil)
  if ffi.os == 'Linux' then
    -- popen's shell is our child: $PPID is this process
    tester:asserteq(paths.execdir(), paths.dirname(sh('readlink /proc/$PPID/exe')))
  end
end

function tests.installPaths()
  tester:assert(paths.filep(paths.concat(paths.install_lua_path, 'paths', 'init.lua')), 'install_lua_path holds the packages')
  for _, k in ipairs({ 'install_prefix', 'install_bin', 'install_lib', 'install_share', 'install_include',
                       'install_cmake', 'install_lua_cpath' }) do
    tester:asserteq(type(paths[k]), 'string', k)
  end
end

function tests.findprogram()
  tester:asserteq(paths.findprogram('sh'), sh('command -v sh'))
  tester:asserteq(paths.findprogram('no_such_program_xyz', 'sh'), sh('command -v sh'), 'the first found')
  tester:asserteq(paths.findprogram('no_such_program_xyz'), nil)
end

function tests.thisfileAndDofile()
  local me = arg[0]:sub(1, 1) == '/' and arg[0] or (CWD .. '/' .. arg[0]:gsub('^%./', ''))
  tester:asserteq(paths.thisfile(), me)
  tester:asserteq(paths.thisfile('data.csv'), paths.dirname(me) .. '/data.csv')
  tester:asserteq(loadstring('local p = paths.thisfile() return p')(), nil, 'a string chunk is no file')
  -- paths.dofile resolves names next to the calling file, whatever the current directory
  local dir = ROOT .. '/dofile'
  paths.mkdir(dir)
  write(dir .. '/main.lua', "return paths.dofile('helper.lua') + 1")
  write(dir .. '/helper.lua', 'return 41')
  tester:asserteq(dofile(dir .. '/main.lua'), 42)
end

function tests.requireIsRequire()
  tester:asserteq(paths.require('paths'), paths)
  tester:assertError(function() paths.require('no_such_module_xyz') end)
  tester:assertErrorPattern(function() paths.getregistryvalue('HKEY_CURRENT_USER', 'x', '') end, 'only on Windows')
end

tester:add(tests)
-- run() raises when a test fails: remove the tree first.
local ok, err = pcall(tester.run, tester)
os.execute("rm -rf '" .. ROOT .. "'")
if not ok then error(err, 0) end
