-- data.ImageFolder: a dataset of images stored one sub-folder per class (root/cat/1.png...).
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local files = require 'data.files'
require 'data.dataset'
require 'data.image'

local ImageFolder = torch.class('data.ImageFolder', 'data.Dataset', data)

local default_ext = { png = true, jpg = true, jpeg = true }

--- data.ImageFolder(root[, opts]): sample i is {input = image, target = class index, path = file}
--- for the image files under root/<class>/ (classes are the sub-folders, sorted; .classes names
--- them). Images load with data.image.load (opts.channels, default 3; opts.type, default
--- 'float'); opts.transform(img) is applied to each. Files with other extensions are not
--- samples: .ignored lists them. An empty class folder or a root without sub-folders is an error.
function ImageFolder:__init(root, opts)
  opts = opts or {}
  if type(root) ~= 'string' then util.fail('ImageFolder', 'expected a directory, got %s', type(root)) end
  if opts.extensions ~= nil and (type(opts.extensions) ~= 'table' or getmetatable(opts.extensions) ~= nil) then
    util.fail('ImageFolder', 'extensions must be a list of file extensions, got %s', torch.type(opts.extensions))
  end
  local ext = opts.extensions and {} or default_ext
  for _, e in ipairs(opts.extensions or {}) do ext[e:lower():gsub('^%.', '')] = true end
  self.root, self.classes, self.paths, self.targets, self.ignored = root, {}, {}, {}, {}
  for _, entry in ipairs(files.list(root)) do
    if entry.dir then
      local class = #self.classes + 1
      self.classes[class] = entry.name
      local count = 0
      for _, f in ipairs(files.list(root .. '/' .. entry.name)) do
        local path = root .. '/' .. entry.name .. '/' .. f.name
        local e = f.name:match('%.([^.]+)$')
        if not f.dir and e and ext[e:lower()] then
          self.paths[#self.paths + 1] = path
          self.targets[#self.targets + 1] = class
          count = count + 1
        else
          self.ignored[#self.ignored + 1] = path
        end
      end
      if count == 0 then util.fail('ImageFolder', '%s/%s holds no image files', root, entry.name) end
    end
  end
  if #self.classes == 0 then util.fail('ImageFolder', '%s has no class sub-folders', root) end
  self.channels, self.type, self.transform = opts.channels or 3, opts.type or 'float', opts.transform
end

--- The number of images.
function ImageFolder:size() return #self.paths end

--- Sample i: the decoded (and transformed) image, its class index and its file.
function ImageFolder:get(i)
  util.check_index('ImageFolder', i, #self.paths)
  local img = data.image.load(self.paths[i], { channels = self.channels, type = self.type })
  if self.transform then img = self.transform(img) end
  return { input = img, target = self.targets[i], path = self.paths[i] }
end

return data
