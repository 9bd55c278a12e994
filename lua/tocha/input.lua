-- The REPL's input lines: GNU readline on a terminal (editing, Ctrl-R, history kept in
-- ~/.tocha_history or $TOCHA_HISTORY, Tab completion), plain lines otherwise (piped scripts,
-- tests), where no prompt is printed so that `tocha < script.lua` prints only results.
local complete = require 'tocha.complete'

local M = {}
M.__index = M

-- History file: $TOCHA_HISTORY ("" disables it), else ~/.tocha_history; at most
-- $TOCHA_HISTORY_SIZE entries (default 1000).
local function history_file()
  local env = os.getenv('TOCHA_HISTORY')
  if env then return env ~= '' and env or nil end
  local home = os.getenv('HOME')
  return home and (home .. '/.tocha_history') or nil
end

-- opts.terminal: stdin is a terminal; opts.editing: readline may be used (stdout is one too,
-- since readline echoes what is typed on stdout).
function M.new(opts)
  local self = setmetatable({ terminal = opts.terminal, last = nil }, M)
  local ok, rl = pcall(require, 'tocha.readline')
  if opts.terminal and opts.editing and ok then
    self.rl = rl
    self.history = history_file()
    self.history_size = tonumber(os.getenv('TOCHA_HISTORY_SIZE')) or 1000
    if self.history then rl.history_load(self.history, self.history_size) end
    rl.set_completer(function(word) return complete.candidates(word) end)
  end
  return self
end

-- The next line: a string, nil at the end of input, false when Ctrl-C cancelled it.
function M:read(prompt)
  if self.rl then return self.rl.readline(prompt) end
  if self.terminal then
    io.stdout:write(prompt)
    io.stdout:flush()
  end
  return io.stdin:read('*l')
end

-- Adds a line to the history (and its file), skipping blanks and repeats of the previous line.
function M:remember(line)
  if not self.rl or line:match('^%s*$') or line == self.last then return end
  self.last = line
  if not self.rl.history_add(line, self.history, self.history_size) then
    io.stderr:write('tocha: cannot write the history to ', self.history, ' (TOCHA_HISTORY="" keeps none)\n')
    self.history = nil  -- say it once
  end
end

return M
