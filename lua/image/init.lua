-- The image package (require 'image'): Torch7's image toolbox for Tocha, so that Torch7 vision
-- scripts (data augmentation, dataset preprocessing) run unmodified. Like Torch7's, it sets the
-- global `image`. Files: io.lua (load/save/compress), scale.lua (scale, crop), geometry.lua (flips,
-- translate, rotate, warp), color.lua (colour spaces, colormaps), kernels.lua (gaussian, laplacian,
-- convolve, lcn...), display.lua (minmax, toDisplayTensor, drawRect; no GUI).
local torch = require 'torch'
local U = require 'image.util'

if rawget(_G, 'image') and rawget(_G, 'image')._tocha then return rawget(_G, 'image') end

local image = { _tocha = true }

require('image.io')(image)
require('image.scale')(image)
require('image.geometry')(image)
require('image.color')(image)
require('image.kernels')(image)
require('image.display')(image)

-- Note [No sample images]: Torch7 shipped lena.jpg and fabio.jpg with the package; Tocha ships no
-- sample photographs (their licences, and their size), so image.lena and image.fabio say so.
local function no_sample(name)
  return function()
    U.fail(name, 'Tocha ships no sample images (Note [No sample images]); load your own with '
      .. "image.load(path), or make one: torch.rand(3, 64, 64)")
  end
end

--- image.lena(): Torch7's sample photograph; not shipped with Tocha: an error saying so.
--- Example: local image = require 'image'; pcall(image.lena)
image.lena = no_sample('lena')

--- image.fabio(): Torch7's sample photograph; not shipped with Tocha: an error saying so.
--- Example: local image = require 'image'; pcall(image.fabio)
image.fabio = no_sample('fabio')

-- Torch7 functions Tocha does not provide: an error naming the function and the way around it.
local MISSING = {
  polar = 'polar coordinates are not implemented; build the sampling field and use image.warp',
  logpolar = 'log-polar coordinates are not implemented; build the sampling field and use image.warp',
  loadPPM = 'PPM/PGM files are not supported (PNG and JPEG are); convert the file to PNG',
  savePPM = 'PPM/PGM files are not supported; save as PNG with image.save',
  savePGM = 'PPM/PGM files are not supported; save as PNG with image.save',
}
local doc = require 'torch.doc'
for name, why in pairs(MISSING) do
  image[name] = function() U.fail(name, '%s', why) end
  doc.register(image[name], 'image.' .. name .. '(...)', "Torch7's image." .. name .. ' is not available in Tocha: '
    .. why .. '.', "local image = require 'image'; pcall(image." .. name .. ')')
end

rawset(_G, 'image', image)
package.loaded.image = image
return image
