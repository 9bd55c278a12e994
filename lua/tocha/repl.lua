-- The REPL (Torch7's trepl, with IPython's comforts): reads lines (input.lua), runs the REPL's
-- commands (commands.lua) or Lua (eval.lua), prints results (pretty.lua) and errors with the
-- library's frames hidden, and keeps going, with all state kept, until Ctrl-D.
local colors = require 'tocha.colors'
local commands = require 'tocha.commands'
local eval = require 'tocha.eval'
local input = require 'tocha.input'
local pretty = require 'tocha.pretty'
local traceback = require 'tocha.traceback'

local M = {}

local Session = {}
Session.__index = Session

-- Ctrl-C handling from the host, or stand-ins when running under a plain luajit.
local function sigint_module(interactive)
  local ok, sig = pcall(require, 'tocha.sigint')
  if ok and interactive then
    sig.install()
    return sig
  end
  return { reset = function() end }
end

function Session:show_error(err)
  self.failed = true
  io.stdout:flush()
  local text = tostring(err)
  -- The terminal echoed ^C where the command's output stopped: start on a line of our own.
  if self.interactive and text:find('[interrupt] interrupted', 1, true) then io.stderr:write('\n') end
  local head, rest = text:match('^([^\n]*)(.*)$')
  io.stderr:write(colors.paint('red', head), rest, '\n')
end

function Session:show_results(res)
  if res.n == 0 then return end
  _G._LAST = res[res.n]
  io.stdout:write(pretty.results(res.n, res), '\n')
end

-- Runs one complete piece of Lua code (its results shown unless it ends with `;`).
function Session:run_chunk(chunk, kind, silent)
  self.sigint.reset()
  local t0 = self.timer and commands.clock and commands.clock:time().real
  local ok, res = eval.run(chunk, kind, traceback.repl_traceback)
  self.sigint.reset()
  if not ok then self:show_error(res)
  elseif not silent then
    local shown, err = pcall(self.show_results, self, res)
    if not shown then self:show_error(err) end
  end
  if t0 then
    io.stdout:write(colors.paint('Black', string.format('%80s', string.format('[%0.4fs]',
      commands.clock:time().real - t0))), '\n')
  end
  io.stdout:flush()
end

-- Runs complete code given at once (%time uses it); an incomplete piece is an error.
function Session:execute(src)
  local chunk, kind = eval.compile(src)
  if not chunk then
    self:show_error(kind == 'incomplete' and 'stdin: incomplete code' or kind)
    return
  end
  self:run_chunk(chunk, kind, eval.silent(src))
end

-- Feeds one typed line; returns the prompt for the next one.
function Session:feed(line)
  if not self.buffer then
    if line:match('^%s*$') then return self.prompt end
    if commands.handle(self, line) then return self.prompt end
    line = line:gsub('^%s*=', 'return ', 1)  -- Lua 5.1's `=expr`
  end
  local src = self.buffer and (self.buffer .. '\n' .. line) or line
  local chunk, kind = eval.compile(src)
  if kind == 'incomplete' then
    self.buffer = src
    return self.continuation
  end
  self.buffer = nil
  if not chunk then self:show_error(kind)
  else self:run_chunk(chunk, kind, eval.silent(src)) end
  return self.prompt
end

function M.run(opts)
  opts = opts or {}
  local interactive = colors.isatty(0)
  colors.enable(colors.wanted())
  commands.init()
  local self = setmetatable({
    prompt = 'tocha> ', continuation = '   ..> ', timer = false, interactive = interactive,
    input = input.new({ terminal = interactive, editing = colors.isatty(1) }), sigint = sigint_module(interactive),
  }, Session)
  _G.print = pretty.print
  _G.help = require('tocha.help').help
  if interactive and not opts.quiet then
    print(colors.paint('bold', 'Tocha ' .. torch.version()) .. ' on ' .. jit.version
      .. '. Type ? for help, Ctrl-D to exit.')
  end
  local prompt = self.prompt
  while true do
    self.sigint.reset()
    local line = self.input:read(prompt)
    if line == nil then
      if interactive then io.stdout:write('\n') end
      -- Input that ends inside a statement is an error, not something to drop silently.
      if self.buffer then self:show_error(select(2, loadstring(self.buffer, '=stdin'))) end
      -- Note [Piped REPL status]: `tocha < script.lua` runs the lines as typed ones and goes on
      -- after an error, as at a terminal, but a shell or CI job must see that something failed:
      -- the status is 1 when any line raised an error (sqlite3 < file does the same). At a
      -- terminal the session ends with 0.
      return (self.failed and not interactive) and 1 or 0
    end
    if line == false then  -- Ctrl-C: drop the line and any unfinished statement
      self.buffer = nil
      prompt = self.prompt
    else
      self.input:remember(line)
      -- Protected: a Ctrl-C can also land in the REPL's own code (between two commands).
      local ok, next_prompt = pcall(self.feed, self, line)
      if not ok then
        self.buffer = nil
        self:show_error(next_prompt)
      end
      prompt = ok and next_prompt or self.prompt
    end
  end
end

return M
