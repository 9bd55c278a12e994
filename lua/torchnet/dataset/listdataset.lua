-- tnt.ListDataset (Torch7 torchnet's dataset/listdataset.lua): sample i is load(list[i]) (with
-- `path/` prefixed when path is given), for a list (Lua table or LongTensor) or the lines of a file.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.dataset'

local ListDataset, Dataset = torch.class('tnt.ListDataset', 'tnt.Dataset', tnt)

local list_args = argcheck.parser{ name = 'tnt.ListDataset',
  { name = 'list', type = 'table|torch.LongTensor|tds.Hash|tds.Vec' },
  { name = 'load', type = 'function' },
  { name = 'path', type = 'string', opt = true },
}
local file_args = argcheck.parser{ name = 'tnt.ListDataset',
  { name = 'filename', type = 'string' },
  { name = 'load', type = 'function' },
  { name = 'maxload', type = 'number', opt = true },
  { name = 'path', type = 'string', opt = true },
}

--- tnt.ListDataset{list=, load=[, path=]} or tnt.ListDataset{filename=, load=[, maxload=, path=]}:
--- sample i is load(list[i]) (load('path/' .. list[i]) with path), list being a Lua table, a
--- LongTensor, a tds.Hash or a tds.Vec; with filename, the list is the file's lines (at most maxload).
--- Example: local tnt = require 'torchnet'
---   local ds = tnt.ListDataset{list = {3, 5}, load = function(x) return {input = torch.Tensor{x}} end}  -- ds:get(2).input[1] == 5
function ListDataset:__init(...)
  local first = ...
  local byfile = type(first) == 'string' or (select('#', ...) == 1 and argcheck.isplain(first) and first.filename ~= nil)
  Dataset.__init(self)
  if byfile then
    local filename, load, maxload, path = file_args(...)
    local f = io.open(filename)
    if not f then error(string.format('[tnt.ListDataset] cannot open list file %s', filename), 2) end
    f:close()
    local list = {}
    for line in io.lines(filename) do
      list[#list + 1] = line
      if maxload and maxload > 0 and #list == maxload then break end
    end
    self.list, self.load, self.path = list, load, path
    print(string.format('| loaded <%s> with %d examples', filename, #list))
  else
    self.list, self.load, self.path = list_args(...)
  end
end

--- listdataset:size(): the length of the list.
--- Example: local tnt = require 'torchnet'; local n = tnt.ListDataset{list = torch.LongTensor{4, 5, 6}, load = function(x) return x end}:size()  -- 3
function ListDataset:size()
  return torch.isTensor(self.list) and self.list:size(1) or #self.list
end

--- listdataset:get(idx): load(list[idx]), or load(path .. '/' .. list[idx]) when a path was given.
--- Example: local tnt = require 'torchnet'; local s = tnt.ListDataset{list = {'a.jpg'}, path = 'img', load = function(p) return {p = p} end}:get(1)  -- {p = 'img/a.jpg'}
function ListDataset:get(idx)
  self:__checkindex(idx, self:size())
  if self.path then
    return self.load(string.format('%s/%s', self.path, self.list[idx]))
  end
  return self.load(self.list[idx])
end

return ListDataset
