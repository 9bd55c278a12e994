-- Every `--- Example:` line in lua/ runs without error. test_repl_doc.lua checks that each public
-- function has a doc comment and runs the op table's examples (doc_ops.lua); this suite runs the
-- examples written above the functions themselves, one test per source file, each example in its
-- own environment (a fresh table over _G, with `data` and `plot` as a user would require them, and
-- the file's own package required first when it is one of Torch7's: paths, xlua, nngraph...).
-- Examples are self-contained; the few that read a file named in their text (iris.csv,
-- model.pth) get it from CONTEXT; one that cannot run here is in SKIP with its reason. The examples
-- run in a temporary folder, so the files some of them write (loss.png) do not land in the tree.
-- everyPublicFunctionHasAnExample checks that every public torch and data function's doc has one.
local ffi = require 'ffi'
require 'nn'
require 'optim'
local data = require 'data'
local plot = require 'plot'
local doc = require 'torch.doc'
local tester = torch.Tester()
local tests = torch.TestSuite()

local LUA_ROOT = torch._lib.lua_root
local GPU = torch.cuda.isAvailable()
local SANITIZE = os.getenv('TOCHA_SANITIZE') == '1'

-- Examples that cannot run here, as "file | example" (file relative to lua/, the example's text as
-- written after `Example:`), so that edits around them do not move the keys. gpu = true: runs when
-- torch.cuda.isAvailable(). Each entry must still name an example (skipListIsCurrent).
local SKIP = {
  ['torch/cuda.lua | torch.cuda.getDevice()'] = { gpu = true, reason = 'needs a GPU' },
  ['torch/cuda.lua | torch.cuda.setDevice(0)'] = { gpu = true, reason = 'needs a GPU' },
  ['torch/cuda.lua | torch.cuda.synchronize()'] = { gpu = true, reason = 'needs a GPU' },
  ['torch/cuda.lua | torch.cuda.getDeviceProperties(0).name'] = { gpu = true, reason = 'needs a GPU' },
}
-- Whole families, by file and a pattern of the example: the onnxExport helpers' examples are
-- fragments of an onnxExport method body, whose E, x and module only exist inside torch.onnx.export
-- (test_onnx_models.lua exports modules that use these calls).
local SKIP_RULES = {
  { file = 'torch/onnx_custom.lua', pattern = 'E:', reason = 'fragment of an onnxExport body (E, x)' },
}

local function skip_of(file, code)
  local key = file .. ' | ' .. code
  if SKIP[key] then return SKIP[key], key end
  for i, rule in ipairs(SKIP_RULES) do
    if rule.file == file and code:find(rule.pattern, 1, true) then return rule, 'rule ' .. i end
  end
end

-- Files the examples of a file ("file", or "file | example" for one example) read by a name that
-- reads well in the docs, written before each example (in the temporary folder).
local CONTEXT = {
  ['data/csv.lua'] = [[
    local f = assert(io.open('iris.csv', 'w'))
    f:write('sepal_length,sepal_width,species\n5.1,3.5,setosa\n7.0,3.2,versicolor\n6.3,3.3,virginica\n')
    f:close()]],
  ['torch/pt_checkpoint.lua'] = [[torch.save('model.pth', nn.Linear(2, 2):stateDict(), 'pytorch')]],
}

-- Building every torchvision model takes minutes under the sanitizers.
local function sanitizer_skip(file)
  return SANITIZE and file:find('^nn/models/') and 'builds full-size models (slow under TOCHA_SANITIZE)'
end

pcall(ffi.cdef, [[
  char *getcwd(char *buf, size_t size);
  int chdir(const char *path);
  int mkdir(const char *path, unsigned int mode);
]])
local function cwd()
  local buf = ffi.new('char[4096]')
  return ffi.string(ffi.C.getcwd(buf, 4096))
end
local WORK = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/doc_examples_' .. tostring(os.time()) .. '_'
  .. tostring(math.random(1, 1e9))
assert(ffi.C.mkdir(WORK, tonumber('755', 8)) == 0, 'cannot create ' .. WORK)
local HOME = cwd()

-- Every Lua file under lua/, relative to it, sorted.
local function lua_files()
  local files = {}
  local p = assert(io.popen("cd '" .. LUA_ROOT .. "' && find . -name '*.lua' | sort"))
  for l in p:lines() do files[#files + 1] = l:gsub('^%./', '') end
  p:close()
  return files
end

-- The examples of a file: { line = n (the `--- Example:` line), code = '...' }, parsed as doc.get does.
local function examples_of(path)
  local blocks, cur = {}, nil
  local i = 0
  for line in io.lines(path) do
    i = i + 1
    local c = line:match('^%s*%-%-%-%s?(.*)$')
    if c then
      if not cur then cur = { lines = {} } blocks[#blocks + 1] = cur end
      cur.lines[#cur.lines + 1] = c
      if not cur.line and c:match('^%s*Example:') then cur.line = i end
    else
      cur = nil
    end
  end
  local out = {}
  for _, b in ipairs(blocks) do
    local e = doc.parse(b.lines)
    if e.example then out[#out + 1] = { line = b.line, code = e.example } end
  end
  return out
end

local function quiet(fn, ...)
  local print0, write0 = print, io.write
  print, io.write = function() end, function() return io.stdout end
  local r = { pcall(fn, ...) }
  print, io.write = print0, write0
  return unpack(r)
end

-- Runs one example (as an expression if it is one, else as statements); returns nil or the error.
local function run_example(file, code, where)
  local env = setmetatable({ data = data, plot = plot }, { __index = _G })
  local context = CONTEXT[file .. ' | ' .. code] or CONTEXT[file]
  if context then
    local pre = assert(loadstring(context, '=context of ' .. where))
    setfenv(pre, env)
    local ok, err = quiet(pre)
    if not ok then return 'context: ' .. tostring(err) end
  end
  local chunk = loadstring('return ' .. code, '=' .. where)
  if not chunk then
    local err
    chunk, err = loadstring(code, '=' .. where)
    if not chunk then return 'does not parse: ' .. tostring(err) end
  end
  setfenv(chunk, env)
  local grad = torch.isGradEnabled()
  local ok, err = quiet(chunk)
  -- state an example may change on purpose
  torch.setdefaulttensortype('torch.FloatTensor')
  torch.setGradEnabled(grad)
  if not ok then return tostring(err) end
end

local PRELOADED = { torch = true, nn = true, optim = true, data = true, plot = true, tocha = true }
-- cutorch, cunn and cudnn refuse to load without a GPU unless told (Note [cutorch without a device]).
pcall(ffi.cdef, 'int setenv(const char *name, const char *value, int overwrite);')
ffi.C.setenv('TOCHA_CUTORCH_WITHOUT_GPU', '1', 1)
local used = {}
local count = 0
local seen = {}  -- example texts found in the sources
for _, file in ipairs(lua_files()) do
  local examples = examples_of(LUA_ROOT .. '/' .. file)
  for _, ex in ipairs(examples) do seen[ex.code] = true end
  if #examples > 0 then
    tests[file] = function()
      local failed = {}
      -- The Torch7 packages (paths, xlua, nngraph, image...) set their global when required, as a
      -- user's script does before it calls them; their examples take that for granted.
      local package_name = file:match('^([^/]+)/')
      if package_name and not PRELOADED[package_name] then require(package_name) end
      ffi.C.chdir(WORK)
      for _, ex in ipairs(examples) do
        local where = file .. ':' .. ex.line
        local skip, key = skip_of(file, ex.code)
        if key then used[key] = true end
        local why = (skip and not (skip.gpu and GPU)) and skip.reason or sanitizer_skip(file)
        if why then
          io.write(string.format('  skipped %s: %s\n', where, why))
        else
          count = count + 1
          local err = run_example(file, ex.code, where)
          if err then failed[#failed + 1] = where .. ': ' .. ex.code .. '\n    -> ' .. err end
        end
      end
      ffi.C.chdir(HOME)
      tester:asserteq(#failed, 0, 'examples that fail:\n  ' .. table.concat(failed, '\n  '))
    end
  end
end

-- Examples given to torch.doc.register by functions installed in loops (pointwise_math.lua,
-- conv_t7.lua...), reached through the public names of torch, nn, optim and data as `?` finds them.
function tests.registeredExamples()
  local failed, n = {}, 0
  ffi.C.chdir(WORK)
  for _, module in ipairs({ 'torch', 'nn', 'optim', 'data' }) do
    local m = module == 'data' and data or _G[module]
    local names = {}
    for name, f in pairs(m) do
      if type(name) == 'string' and not name:match('^_') and type(f) == 'function' then names[#names + 1] = name end
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local entry = doc.get(m[name], module .. '.' .. name)
      if entry and entry.example and not seen[entry.example] then
        seen[entry.example] = true
        n = n + 1
        local err = run_example(module, entry.example, module .. '.' .. name)
        if err then failed[#failed + 1] = module .. '.' .. name .. ': ' .. entry.example .. '\n    -> ' .. err end
      end
    end
  end
  ffi.C.chdir(HOME)
  io.write(string.format('  ran %d registered examples\n', n))
  tester:assert(n > 100, 'ran ' .. n .. ' registered examples')
  tester:asserteq(#failed, 0, 'registered examples that fail:\n  ' .. table.concat(failed, '\n  '))
end

-- Public torch and data functions whose doc has no `Example:` line, as "module.name" = why.
-- Empty: every one has an example. Add an entry only for a function no example can show
-- (and say why); each entry must still name such a function.
local EXAMPLE_EXCEPTIONS = {
}

-- Every public function of torch and data (string keys not starting with `_`, function values,
-- as test_repl_doc.lua's everyPublicFunctionHasADoc) has a doc, as help() finds it (a `---`
-- comment, a named block above a loop, doc_ops.lua or torch.doc.register), with an example.
function tests.everyPublicFunctionHasAnExample()
  local missing, stale, n = {}, {}, 0
  for _, module in ipairs({ 'torch', 'data' }) do
    local m = module == 'data' and data or torch
    for name, f in pairs(m) do
      if type(name) == 'string' and not name:match('^_') and type(f) == 'function' then
        n = n + 1
        local key = module .. '.' .. name
        local entry = doc.get(f, key)
        if entry and entry.example and entry.example:match('%S') then
          if EXAMPLE_EXCEPTIONS[key] then stale[#stale + 1] = key .. ' (has an example now)' end
        elseif not EXAMPLE_EXCEPTIONS[key] then
          missing[#missing + 1] = key .. ' (' .. (entry and entry.source or doc.where(f) or 'C')
            .. (entry and '' or ', no doc at all') .. ')'
        end
      end
    end
  end
  for key in pairs(EXAMPLE_EXCEPTIONS) do
    local module, name = key:match('^(%w+)%.(.+)$')
    local m = module == 'data' and data or module == 'torch' and torch or nil
    if not (m and type(rawget(m, name)) == 'function') then stale[#stale + 1] = key .. ' (no such function)' end
  end
  table.sort(missing)
  table.sort(stale)
  tester:assert(n > 500, 'found ' .. n .. ' public functions')
  tester:asserteq(#missing, 0, 'public functions whose doc has no `--- Example:` line:\n  '
    .. table.concat(missing, '\n  '))
  tester:asserteq(#stale, 0, 'stale EXAMPLE_EXCEPTIONS entries:\n  ' .. table.concat(stale, '\n  '))
end

-- Added last, so it runs after the per-file tests (a TestSuite keeps the order of definition).
function tests.skipListIsCurrent()
  local stale = {}
  for key in pairs(SKIP) do
    if not used[key] then stale[#stale + 1] = key end
  end
  for i, rule in ipairs(SKIP_RULES) do
    if not used['rule ' .. i] then stale[#stale + 1] = rule.file .. ' (pattern ' .. rule.pattern .. ')' end
  end
  table.sort(stale)
  tester:asserteq(#stale, 0, 'SKIP entries that no longer name an example:\n  ' .. table.concat(stale, '\n  '))
  io.write(string.format('  ran %d examples from the sources\n', count))
  tester:assert(count > 1000, 'ran ' .. count .. ' examples')
  os.execute("rm -rf '" .. WORK .. "'")
end

tester:add(tests)
tester:run()
