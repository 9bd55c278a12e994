-- The ```lua blocks of README.md and docs/*.md run without error, so that the user-facing docs do
-- not drift from the code. The files are read at test time (paths relative to this file:
-- ../../README.md, ../../docs/*.md).
--
-- Blocks are grouped by section (a `#` or `##` heading; `###` subsections belong to their `##`):
-- a section's blocks run in order as one chunk in a fresh environment (a table over _G with nn and
-- optim loaded, as the docs assume), so a block may use the locals of an earlier block of its
-- section. Each code line keeps its line number in the chunk, whose name is the doc file, so an
-- error reads "README.md:156: ...". Sections run in a temporary folder (blocks write runs/,
-- trace.json), with print and io.write silenced.
--
-- Markers: HTML comments (invisible on GitHub) on the lines right above the opening fence.
--   <!-- setup: CODE -->      hidden code run just before the block (one line, or several lines
--                             between `<!-- setup:` and `-->`): the x, y, model... that the prose
--                             takes as given. Several markers may be stacked above one fence.
--   <!-- not run: REASON -->  the block is only compiled, not run. A reason starting with
--                             "needs a GPU" runs the block when torch.cuda.isAvailable().
-- Keep not-run blocks few, each with its reason: MPI, several GPUs, a dataset and minutes of
-- training. Skipped blocks are still compiled (with their setup), so they at least parse.
local ffi = require 'ffi'
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

local GPU = torch.cuda.isAvailable()
local HERE = arg and arg[0] and arg[0]:match('^(.*)/[^/]*$') or '.'
local ROOT = HERE .. '/../..'
local DOCS = { 'README.md', 'docs/coming_from_pytorch.md', 'docs/pytorch_functions.md', 'docs/cuda.md',
  'docs/torch7_packages.md' }

pcall(ffi.cdef, [[
  char *getcwd(char *buf, size_t size);
  int chdir(const char *path);
  int mkdir(const char *path, unsigned int mode);
]])
local function cwd()
  local buf = ffi.new('char[4096]')
  return ffi.string(ffi.C.getcwd(buf, 4096))
end
-- Absolute, since the sections run elsewhere.
if ROOT:sub(1, 1) ~= '/' then ROOT = cwd() .. '/' .. ROOT end
local WORK = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/docs_snippets_' .. tostring(os.time()) .. '_'
  .. tostring(math.random(1, 1e9))
assert(ffi.C.mkdir(WORK, tonumber('755', 8)) == 0, 'cannot create ' .. WORK)
local HOME = cwd()

local function read_lines(path)
  local f = assert(io.open(path), 'cannot open ' .. path)
  local lines = {}
  for l in f:lines() do lines[#lines + 1] = l end
  f:close()
  return lines
end

-- The markers in the HTML comments that end on the lines right above line i (stacked comments
-- included): { setup = { {line = n, code = '...'}... }, notRun = reason or nil }.
local function markers_above(lines, i)
  local m = { setup = {} }
  local j = i - 1
  while j >= 1 and lines[j]:match('%-%->%s*$') do
    local s = j
    while s >= 1 and not lines[s]:find('<!--', 1, true) do s = s - 1 end
    assert(s >= 1, 'unterminated HTML comment above line ' .. i)
    local first = lines[s]:match('<!%-%-%s*(.-)$')
    local kind, rest = first:match('^([%w ]-):%s*(.*)$')
    if kind == 'not run' then
      m.notRun = (table.concat({ unpack(lines, s, j) }, ' '):match('not run:%s*(.-)%s*%-%->')) or rest
    elseif kind == 'setup' then
      local code = {}
      if s == j then
        code[1] = { line = s, code = rest:gsub('%s*%-%->%s*$', '') }
      else
        if rest ~= '' then code[#code + 1] = { line = s, code = rest } end
        for k = s + 1, j - 1 do code[#code + 1] = { line = k, code = lines[k] } end
        local last = lines[j]:gsub('%s*%-%->%s*$', '')
        if last ~= '' then code[#code + 1] = { line = j, code = last } end
      end
      for n = #code, 1, -1 do table.insert(m.setup, 1, code[n]) end
    end
    j = s - 1
  end
  return m
end

-- The sections of a doc that hold ```lua blocks: { title, line, blocks = { {line (the fence),
-- first, last (code lines), setup, notRun} } }.
local function sections_of(path)
  local lines = read_lines(path)
  local sections, cur = {}, nil
  local fence  -- the open fence's language, or nil outside fences
  for i, l in ipairs(lines) do
    if fence then
      if l:match('^```%s*$') then
        if fence.lang == 'lua' then fence.block.last = i - 1 end
        fence = nil
      end
    elseif l:match('^```') then
      local lang = l:match('^```%s*(%w*)')
      fence = { lang = lang }
      if lang == 'lua' then
        local m = markers_above(lines, i)
        fence.block = { line = i, first = i + 1, setup = m.setup, notRun = m.notRun }
        if not cur then cur = { title = '(top)', line = 1, blocks = {} } sections[#sections + 1] = cur end
        cur.blocks[#cur.blocks + 1] = fence.block
      end
    elseif l:match('^##?%s') then
      cur = { title = l:gsub('^#+%s*', ''), line = i, blocks = {} }
      sections[#sections + 1] = cur
    end
  end
  assert(not fence, path .. ': unterminated ``` fence')
  local out = {}
  for _, s in ipairs(sections) do if #s.blocks > 0 then out[#out + 1] = s end end
  return out, lines
end

local function runs(block)
  if not block.notRun then return true end
  return GPU and block.notRun:match('^needs a GPU') ~= nil
end

-- One chunk of the doc's length: the code lines of `blocks` (with their setup) at their own line
-- numbers, every other line empty.
local function chunk_text(lines, blocks)
  local out = {}
  for i = 1, #lines do out[i] = '' end
  for _, b in ipairs(blocks) do
    for _, s in ipairs(b.setup) do out[s.line] = s.code end
    for i = b.first, b.last do out[i] = lines[i] end
  end
  return table.concat(out, '\n')
end

local function quiet(fn, handler)
  local print0, write0 = print, io.write
  print, io.write = function() end, function() return io.stdout end
  local r = { xpcall(fn, handler) }
  print, io.write = print0, write0
  return unpack(r)
end

-- Runs a chunk named `name` in a fresh environment; returns nil or the error, prefixed with the
-- doc line that was running when it was raised.
local function run_chunk(name, text)
  local chunk, err = loadstring(text, '@' .. name)
  if not chunk then return 'does not parse: ' .. tostring(err) end
  setfenv(chunk, setmetatable({}, { __index = _G }))
  local grad, ttype = torch.isGradEnabled(), torch.getdefaulttensortype()
  local ok, msg = quiet(chunk, function(e)
    for level = 2, 60 do
      local info = debug.getinfo(level, 'Sl')
      if not info then break end
      if info.source == '@' .. name then
        local where = name .. ':' .. info.currentline .. ':'
        e = tostring(e)
        return e:sub(1, #where) == where and e or where .. ' ' .. e
      end
    end
    return tostring(e)
  end)
  torch.setdefaulttensortype(ttype)
  torch.setGradEnabled(grad)
  if not ok then return msg end
end

local counts = { blocks = 0, run = 0, skipped = 0 }
for _, doc in ipairs(DOCS) do
  local sections, lines = sections_of(ROOT .. '/' .. doc)
  for _, s in ipairs(sections) do
    local run, skipped = {}, {}
    for _, b in ipairs(s.blocks) do
      counts.blocks = counts.blocks + 1
      if runs(b) then run[#run + 1] = b else skipped[#skipped + 1] = b end
    end
    counts.run, counts.skipped = counts.run + #run, counts.skipped + #skipped
    tests[doc .. ':' .. s.line .. ' ' .. s.title] = function()
      for _, b in ipairs(skipped) do
        io.write(string.format('  not run %s:%d: %s\n', doc, b.line, b.notRun))
        tester:assert(b.notRun:match('%S') ~= nil, doc .. ':' .. b.line .. ': a not-run marker needs a reason')
        -- Compiled alone (with its setup): it must at least parse.
        local _, err = loadstring(chunk_text(lines, { b }), '@' .. doc)
        tester:assert(err == nil, 'does not parse: ' .. tostring(err))
      end
      if #run == 0 then return end
      ffi.C.chdir(WORK)
      local err = run_chunk(doc, chunk_text(lines, run))
      ffi.C.chdir(HOME)
      local where = {}
      for _, b in ipairs(run) do where[#where + 1] = doc .. ':' .. b.line end
      tester:assert(err == nil, 'a block of "' .. s.title .. '" (' .. table.concat(where, ', ')
        .. ') fails:\n    ' .. tostring(err))
    end
  end
end

-- The extraction itself: the docs hold at least the blocks they held when this suite was written,
-- and most of them run (a broken parser would otherwise pass by finding nothing).
function tests.blocksFound()
  io.write(string.format('  %d blocks: %d run, %d not run\n', counts.blocks, counts.run, counts.skipped))
  tester:assert(counts.blocks >= 13, 'found only ' .. counts.blocks .. ' ```lua blocks')
  tester:assert(counts.run >= 8, 'only ' .. counts.run .. ' blocks run')
  tester:assert(counts.skipped <= 6, counts.skipped .. ' blocks are not run: keep that list short')
end

-- The marker parser on a small document.
function tests.markers()
  local lines = {
    '# T', '<!-- not run: needs MPI -->', '```lua', 'error("no")', '```',
    '<!-- setup:', 'local a = 1', '-->', '<!-- setup: local b = 2 -->', '```lua', 'return a + b', '```',
  }
  local m1, m2 = markers_above(lines, 3), markers_above(lines, 10)
  tester:asserteq(m1.notRun, 'needs MPI')
  tester:asserteq(#m1.setup, 0)
  tester:asserteq(m2.notRun, nil)
  tester:asserteq(#m2.setup, 2)
  tester:asserteq(m2.setup[1].line, 7)
  tester:asserteq(m2.setup[1].code, 'local a = 1')
  tester:asserteq(m2.setup[2].line, 9)
  tester:asserteq(m2.setup[2].code, 'local b = 2')
  local text = chunk_text(lines, { { setup = m2.setup, first = 11, last = 11 } })
  tester:asserteq(select(2, text:gsub('\n', '')), #lines - 1)
  tester:asserteq(assert(loadstring(text))(), 3)
  local err = run_chunk('T.md', chunk_text(lines, { { setup = {}, first = 4, last = 4 } }))
  tester:assert(err and err:find('^T%.md:4:') ~= nil, 'error names the doc line: ' .. tostring(err))
end

tester:add(tests)
local ok, err = pcall(tester.run, tester)
os.execute("rm -rf '" .. WORK .. "'")
if not ok then error(err, 0) end
