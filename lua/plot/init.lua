-- The plot module (local plot = require 'plot'): learning curves and confusion matrices written
-- as PNG (through libpng) or SVG files, drawn by a small rasteriser with a built-in bitmap font.
-- optim.Logger:plot and nn.Trainer's plots use it.
local plot = {}

--- plot.lines{path=, series={{name=, x=, y=}, ...}[, title=][, xlabel=][, ylabel=][, width=][,
--- height=][, xlim=][, ylim=]}: a line chart written to path (.png or .svg). Returns path.
--- Example: plot.lines{path = 'loss.png', xlabel = 'epoch', series = {{name = 'train', y = {1, 0.5, 0.3}}}}
plot.lines = require 'plot.lines'

--- plot.confusion{path=, matrix=[, labels=][, title=][, normalize=]}: a confusion matrix heat map
--- (rows: true class, columns: predicted) written to path (.png or .svg). Returns path.
plot.confusion = require 'plot.confusion'

package.loaded.plot = plot
return plot
