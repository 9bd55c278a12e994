-- CSV files (RFC 4180: quoted fields with separators, doubled quotes and newlines; gzip or not):
-- data.readCSV gives typed columns (numeric or categorical), data.CSV:tensor / :dataset turn
-- them into tensors. Every malformed row and every missing value is an error naming the line.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local files = require 'data.files'
require 'data.datasets'

local CSV = torch.class('data.CSV', data)

local default_na = { [''] = true, NA = true, ['N/A'] = true, NaN = true, nan = true, ['?'] = true, null = true }

-- Splits text into rows of fields; calls row(fields, line) with the line each row starts on.
local function parse(text, sep, path, row)
  local pos, line, len = 1, 1, #text
  local sep_byte = sep:byte()
  local stop_pattern = '[' .. (sep:match('%p') and ('%' .. sep) or sep) .. '\n]'
  while pos <= len do
    local fields, start_line = {}, line
    while true do
      local c = text:byte(pos)
      if c == 34 then  -- a quoted field
        local buf, q = {}, pos + 1
        while true do
          local close = text:find('"', q, true)
          if not close then
            util.fail('readCSV', '%s:%d: unterminated quoted field (the file ends inside quotes)', path, line)
          end
          local piece = text:sub(q, close - 1)
          local _, nl = piece:gsub('\n', '')
          line = line + nl
          buf[#buf + 1] = piece
          if text:byte(close + 1) == 34 then
            buf[#buf + 1] = '"'
            q = close + 2
          else
            pos = close + 1
            break
          end
        end
        fields[#fields + 1] = table.concat(buf)
        local nc = text:byte(pos)
        if nc == 13 and text:byte(pos + 1) == 10 then pos = pos + 1 nc = 10 end
        if nc == sep_byte then pos = pos + 1
        elseif nc == 10 or nc == nil then pos = pos + 1 break
        else util.fail('readCSV', '%s:%d: unexpected character after a closing quote', path, line) end
      else
        local stop = text:find(stop_pattern, pos) or len + 1
        local field = text:sub(pos, stop - 1)
        if field:byte(-1) == 13 then field = field:sub(1, -2) end
        if field:find('"', 1, true) then
          util.fail('readCSV', '%s:%d: a quote inside an unquoted field (field %d)', path, line, #fields + 1)
        end
        fields[#fields + 1] = field
        local b = text:byte(stop)
        pos = stop + 1
        if b ~= sep_byte then break end
      end
    end
    row(fields, start_line)
    line = line + 1
  end
end

local function trim(s) return (s:gsub('^%s+', ''):gsub('%s+$', '')) end

local function as_set(list)
  local set = {}
  for _, v in ipairs(list or {}) do set[v] = true end
  return set
end

--- data.readCSV(path[, opts]): the columns of a CSV file (gzip or not), each numeric (a
--- DoubleTensor) or categorical (a list of strings, with .levels[name] its sorted values).
--- opts: header (true: the first row names the columns, else V1, V2...), separator (','),
--- categorical (names of columns to keep as strings even when they look numeric), na (a list
--- of strings that mean missing; default '', NA, N/A, NaN, nan, ?, null), missing ('error'
--- (default): a missing value is an error naming its line and column; 'nan': NaN in numeric
--- columns, the level '' in categorical ones; a number: that value in numeric columns).
--- A row with another number of fields than the header is an error naming its line.
--- Example: local t = data.readCSV('iris.csv'); local ds = t:dataset{target = 'species'}
function data.readCSV(path, opts)
  opts = opts or {}
  local sep = opts.separator or ','
  if type(sep) ~= 'string' or #sep ~= 1 or sep == '"' or sep == '\n' then
    util.fail('readCSV', 'separator must be one character (not a quote or newline), got %s', tostring(sep))
  end
  local missing = opts.missing or 'error'
  if missing ~= 'error' and missing ~= 'nan' and type(missing) ~= 'number' then
    util.fail('readCSV', "missing must be 'error', 'nan' or a number, got %s", tostring(missing))
  end
  local na = opts.na and as_set(opts.na) or default_na
  local header = opts.header ~= false
  local text = files.text(path)
  -- Note [CSV byte-order marks and CR line ends]: as pandas and Python's csv module, a leading
  -- UTF-8 byte-order mark (Excel's "CSV UTF-8") is not part of the first field, and a file
  -- without any LF ends its lines with lone CRs (old Mac files), not one line holding all.
  if text:sub(1, 3) == '\239\187\191' then text = text:sub(4) end
  if text:find('\r', 1, true) and not text:find('\n', 1, true) then text = (text:gsub('\r', '\n')) end

  local names, rows, lines = nil, {}, {}
  local blank_line
  parse(text, sep, path, function(fields, line)
    if #fields == 1 and trim(fields[1]) == '' then  -- a blank line: only allowed at the end
      blank_line = blank_line or line
      return
    end
    if blank_line then util.fail('readCSV', '%s:%d: empty line in the middle of the data', path, blank_line) end
    if header and not names then
      names = {}
      local seen = {}
      for i, f in ipairs(fields) do
        local n = trim(f)
        if n == '' then n = 'V' .. i end
        if seen[n] then util.fail('readCSV', '%s:%d: column name %s appears twice', path, line, n) end
        seen[n] = true
        names[i] = n
      end
      return
    end
    local expect = names and #names or (rows[1] and #rows[1])
    if expect and #fields ~= expect then
      util.fail('readCSV', '%s:%d: expected %d fields, got %d', path, line, expect, #fields)
    end
    rows[#rows + 1] = fields
    lines[#lines + 1] = line
  end)
  if not names then
    names = {}
    for i = 1, rows[1] and #rows[1] or 0 do names[i] = 'V' .. i end
  end

  local self = setmetatable({}, torch.getmetatable('data.CSV'))
  self.path, self.names, self.n, self.columns, self.kinds, self.levels, self.missing = path, names, #rows, {}, {}, {}, {}
  local force = as_set(opts.categorical)
  for c, name in ipairs(names) do
    local numeric, nmissing = not force[name], 0
    for r = 1, #rows do
      local v = trim(rows[r][c])
      rows[r][c] = v
      if na[v] then
        nmissing = nmissing + 1
        if missing == 'error' then
          util.fail('readCSV', '%s:%d: missing value in column %s (field %d)', path, lines[r], name, c)
        end
      elseif numeric and tonumber(v) == nil then
        numeric = false
      end
    end
    self.missing[name] = nmissing
    if numeric then
      local col = torch.DoubleTensor(#rows)
      local fill = missing == 'nan' and 0 / 0 or missing
      for r = 1, #rows do
        local v = rows[r][c]
        col[r] = na[v] and fill or tonumber(v)
      end
      self.columns[name], self.kinds[name] = col, 'numeric'
    else
      if nmissing > 0 and missing ~= 'nan' then
        local r = 1
        while not na[rows[r][c]] do r = r + 1 end
        util.fail('readCSV', '%s:%d: missing value in categorical column %s (field %d); only missing = \'nan\' keeps '
          .. 'missing categories (as the level \'\')', path, lines[r], name, c)
      end
      local col, set = {}, {}
      for r = 1, #rows do
        local v = na[rows[r][c]] and '' or rows[r][c]
        col[r] = v
        set[v] = true
      end
      local levels = {}
      for v in pairs(set) do levels[#levels + 1] = v end
      table.sort(levels)
      self.columns[name], self.kinds[name], self.levels[name] = col, 'categorical', levels
    end
  end
  return self
end

local function column_index(self, name)
  if not self.columns[name] then util.fail('CSV', 'no column %s in %s (columns: %s)', tostring(name), self.path,
    table.concat(self.names, ', ')) end
end

--- csv:column(name): a numeric column as a DoubleTensor, a categorical one as a LongTensor of
--- level indices (1-based positions in csv.levels[name]).
function CSV:column(name)
  column_index(self, name)
  local col = self.columns[name]
  if self.kinds[name] == 'numeric' then return col end
  local code = {}
  for i, v in ipairs(self.levels[name]) do code[v] = i end
  local out = torch.LongTensor(self.n)
  for r = 1, self.n do out[r] = code[col[r]] end
  return out
end

--- csv:tensor([names]): the columns (all by default) side by side in an n x k FloatTensor;
--- categorical columns hold their level indices.
function CSV:tensor(names)
  names = names or self.names
  local out = torch.FloatTensor(self.n, #names)
  for j, name in ipairs(names) do
    if self.n > 0 then out:select(2, j):copy(self:column(name)) else column_index(self, name) end
  end
  return out
end

--- csv:dataset{target=[, inputs=]}: a data.TensorDataset of the inputs (by default every
--- column but the target) as floats and the target column: class indices for a categorical
--- target (csv.levels[target] names them), floats for a numeric one.
function CSV:dataset(opts)
  opts = opts or {}
  local target = opts.target
  local inputs = opts.inputs
  if not inputs then
    inputs = {}
    for _, name in ipairs(self.names) do if name ~= target then inputs[#inputs + 1] = name end end
  end
  local x = self:tensor(inputs)
  if target == nil then return data.TensorDataset(x) end
  column_index(self, target)
  local y = self:column(target)
  if self.kinds[target] == 'numeric' then y = y:float() end
  local ds = data.TensorDataset(x, y)
  ds.columns, ds.classes = inputs, self.levels[target]
  return ds
end

function CSV:__tostring__()
  local parts = {}
  for _, name in ipairs(self.names) do parts[#parts + 1] = name .. ':' .. self.kinds[name] end
  return string.format('data.CSV %s (%d rows; %s)', self.path, self.n, table.concat(parts, ', '))
end

return data
