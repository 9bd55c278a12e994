-- gnuplot's decorations and settings of the current figure: title, axis labels, grid, key
-- position, axis ranges and aspect, log scale, raw commands, and the terminal calls
-- (setterm, setgnuplotexe) that chose gnuplot's window.
return function(gnuplot, figures, redraw, raw)
  local function fail(who, msg, ...) error(string.format('[' .. who .. '] ' .. msg, ...), 0) end

  -- A label: a string or a number (Torch7 concatenated it into a gnuplot command).
  local function label(v, who)
    if type(v) == 'number' then return tostring(v) end
    if type(v) ~= 'string' then fail(who, 'expected a string, got %s', type(v)) end
    return v
  end

  local function setter(field)
    local who = 'gnuplot.' .. field
    return function(text)
      local fig = figures.active(who)
      fig[field] = label(text, who)
      redraw(fig, who)
    end
  end

  --- gnuplot.title(text): the current figure's title.
  --- Example: require 'gnuplot'; gnuplot.pngfigure('titled.png'); gnuplot.plot(torch.Tensor{1, 2}); gnuplot.title('Loss')
  gnuplot.title = setter('title')
  --- gnuplot.xlabel(text): the label of the x axis.
  --- Example: require 'gnuplot'; gnuplot.xlabel('epoch')
  gnuplot.xlabel = setter('xlabel')
  --- gnuplot.ylabel(text): the label of the y axis.
  --- Example: require 'gnuplot'; gnuplot.ylabel('loss')
  gnuplot.ylabel = setter('ylabel')
  --- gnuplot.zlabel(text): the label of the z axis (the colour bar of gnuplot.splot's heat map).
  --- Example: require 'gnuplot'; gnuplot.zlabel('height')
  gnuplot.zlabel = setter('zlabel')

  --- gnuplot.grid(toggle): shows (true) or hides grid lines at the ticks.
  --- Example: require 'gnuplot'; gnuplot.grid(true)
  function gnuplot.grid(toggle)
    local fig = figures.active('gnuplot.grid')
    fig.grid = toggle and true or false
    redraw(fig, 'gnuplot.grid')
  end

  --- gnuplot.movelegend(hloc, vloc): moves the key: hloc 'left', 'right' or 'center', vloc
  --- 'top', 'bottom' or 'middle' (gnuplot's default: right top).
  --- Example: require 'gnuplot'; gnuplot.movelegend('left', 'bottom')
  function gnuplot.movelegend(h, v)
    local who = 'gnuplot.movelegend'
    if h ~= 'left' and h ~= 'right' and h ~= 'center' then
      fail(who, "the horizontal location must be 'left', 'right' or 'center', got %s", tostring(h))
    end
    if v ~= 'top' and v ~= 'bottom' and v ~= 'middle' then
      fail(who, "the vertical location must be 'top', 'bottom' or 'middle', got %s", tostring(v))
    end
    local fig = figures.active(who)
    fig.key.h, fig.key.v, fig.key.show = h, v, true
    redraw(fig, who)
  end

  -- One end of gnuplot.axis's table: a finite number, '' (keep the current end) or '*' (auto).
  local function axis_end(v, keep, who, k)
    if v == '' then return keep end
    if v == '*' then return nil end
    if type(v) ~= 'number' or v ~= v or v == math.huge or v == -math.huge then
      fail(who, "axis[%d] must be a finite number, '' (keep) or '*' (autoscale), got %s", k, tostring(v))
    end
    return v
  end

  --- gnuplot.axis(a): axis ranges and aspect: {xmin, xmax, ymin, ymax} (an entry '' keeps the
  --- current end, '*' autoscales it), 'auto' (autoscale, free aspect), 'image' or 'equal' (the
  --- same units on both axes), 'fill' (free aspect).
  --- Example: require 'gnuplot'; gnuplot.axis{0, 10, 0, ''}
  function gnuplot.axis(a)
    local who = 'gnuplot.axis'
    local fig = figures.active(who)
    if a == 'auto' then
      fig.range, fig.ratio = { x = {}, y = {} }, nil
    elseif a == 'image' or a == 'equal' then
      fig.ratio = 'equal'
    elseif a == 'fill' then
      fig.ratio = nil
    elseif type(a) == 'table' then
      if #a ~= 4 then fail(who, 'expected {xmin, xmax, ymin, ymax}, got a table of %d entries', #a) end
      local r = {}
      for i, ax in ipairs({ 'x', 'x', 'y', 'y' }) do
        r[i] = axis_end(a[i], fig.range[ax][(i - 1) % 2 + 1], who, i)
      end
      for i = 1, 3, 2 do
        if r[i] and r[i + 1] and not (r[i] < r[i + 1]) then
          fail(who, '%smin must be below %smax, got %g and %g', i == 1 and 'x' or 'y', i == 1 and 'x' or 'y', r[i], r[i + 1])
        end
      end
      fig.range = { x = { r[1], r[2] }, y = { r[3], r[4] } }
    else
      fail(who, "expected {xmin, xmax, ymin, ymax}, 'auto', 'image', 'equal' or 'fill', got %s", tostring(a))
    end
    redraw(fig, who)
  end

  --- gnuplot.logscale(toggle[, axes]): log scale on (true) or off for axes 'x', 'y' or 'xy' (the
  --- default, as gnuplot's `set logscale`); values <= 0 are left out of a log axis.
  --- Example: require 'gnuplot'; gnuplot.pngfigure('log.png'); gnuplot.plot(torch.Tensor{100, 10, 1, 0.1}); gnuplot.logscale(true, 'y')
  function gnuplot.logscale(toggle, which)
    local who = 'gnuplot.logscale'
    which = which or 'xy'
    if which ~= 'x' and which ~= 'y' and which ~= 'xy' and which ~= 'yx' then
      fail(who, "axes must be 'x', 'y' or 'xy', got %s", tostring(which))
    end
    local fig = figures.active(who)
    if which:find('x') then fig.log.x = toggle and true or false end
    if which:find('y') then fig.log.y = toggle and true or false end
    redraw(fig, who)
  end

  --- gnuplot.raw(cmd): gnuplot's set/unset commands for the current figure (title, xlabel,
  --- ylabel, zlabel, xrange, yrange, logscale, grid, key, xtics, ytics, size, terminal, output);
  --- other commands are errors (there is no gnuplot process), purely cosmetic ones are ignored.
  --- They take effect at the next plot or plotflush, as in Torch7.
  --- Example: require 'gnuplot'; gnuplot.raw('set logscale y; set key left top')
  function gnuplot.raw(cmd)
    raw.run(figures.active('gnuplot.raw'), cmd)
  end

  local WINDOWS = { wxt = true, qt = true, x11 = true, aqua = true, windows = true }

  --- gnuplot.setterm(term): the format of figures without a file (Torch7's windows): 'png' (the
  --- default) or 'svg'; window terminals ('wxt', 'qt', 'x11', 'aqua', 'windows') keep PNG files.
  --- Example: require 'gnuplot'; gnuplot.setterm('png')
  function gnuplot.setterm(term)
    if term == 'png' or term == 'pngcairo' or WINDOWS[term] then figures.windowTerm = 'png'
    elseif term == 'svg' then figures.windowTerm = 'svg'
    else
      fail('gnuplot.setterm', "Tocha draws to PNG or SVG files: term must be 'png', 'svg' or a window "
        .. "terminal (wxt, qt, x11, aqua, windows), got %s", tostring(term))
    end
  end

  --- gnuplot.setgnuplotexe(exe): accepted and ignored: Tocha needs no gnuplot executable.
  --- Example: require 'gnuplot'; gnuplot.setgnuplotexe('/usr/bin/gnuplot')
  function gnuplot.setgnuplotexe(exe)
    if type(exe) ~= 'string' then fail('gnuplot.setgnuplotexe', 'expected a path, got %s', type(exe)) end
  end
end
