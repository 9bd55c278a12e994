-- Momentum cycling for the cyclical schedules (optim.lr.CyclicLR, optim.lr.OneCycleLR), as
-- PyTorch's cycle_momentum: while the rate climbs, the momentum falls from maxMomentum to
-- baseMomentum, and the other way round. Where a group keeps its momentum:
--   * an optimizer object's `betas` (Adam, AdamW, NAdam, RAdam: beta1 cycles, beta2 stays; the
--     group gets a new table, so groups that shared one do not move together),
--   * an optimizer object's or a config table's `momentum` (SGD, RMSprop, optim.sgd, optim.nag),
--   * a config table's `beta1` (optim.adam and the other functional Adams).
-- Note [Default momentum cycling]: PyTorch cycles by default and refuses optimizers without a
-- momentum. Here cycleMomentum defaults to true only when every group has one of the slots above,
-- and is off otherwise (optim.sgd's config without a momentum, Adagrad): a Torch7 script that
-- adds a schedule keeps working. cycleMomentum = true where a group has no slot is an error.
local lib = require 'torch.lib'
local M = {}

local function slot_of(g)
  if type(g.betas) == 'table' then return 'betas' end
  if type(g.momentum) == 'number' then return 'momentum' end
  if type(g.beta1) == 'number' then return 'beta1' end
end

--- M.bind(sched, defaults): reads cycleMomentum, baseMomentum and maxMomentum (numbers or one per
--- group) from the schedule's options and records where each group's momentum lives.
function M.bind(sched, base_default, max_default)
  local slots, all = {}, true
  for i, g in ipairs(sched._groups) do
    slots[i] = slot_of(g)
    all = all and slots[i] ~= nil
  end
  if sched.cycleMomentum == nil then sched.cycleMomentum = all end
  if not sched.cycleMomentum then return end
  if not all then
    lib.fail(sched._name, 'cycleMomentum needs a momentum (momentum, betas or beta1) in every parameter group')
  end
  local function per_group(v, what)
    sched:_checkPerGroup(v, what)
    local t = {}
    for i = 1, #sched._groups do
      local x = type(v) == 'table' and v[i] or v
      if type(x) ~= 'number' or x < 0 or x >= 1 then
        lib.fail(sched._name, '%s must be a number in [0, 1) or one per group (%d), got %s', what, #sched._groups,
          tostring(x))
      end
      t[i] = x
    end
    return t
  end
  sched.baseMomentums = per_group(sched.baseMomentum == nil and base_default or sched.baseMomentum, 'baseMomentum')
  sched.maxMomentums = per_group(sched.maxMomentum == nil and max_default or sched.maxMomentum, 'maxMomentum')
  sched._momentumSlots = slots
end

--- M.apply(sched, epoch): sets every group's momentum to sched:momentumAt(epoch, i).
function M.apply(sched, epoch)
  if not sched._momentumSlots then return end
  for i, g in ipairs(sched._groups) do
    local m, slot = sched:momentumAt(epoch, i), sched._momentumSlots[i]
    if slot == 'betas' then g.betas = { m, g.betas[2] } else g[slot] = m end
  end
end

--- M.get(sched): the momentum of each group as the schedule set it (nil when it does not cycle).
function M.get(sched)
  if not sched._momentumSlots then return nil end
  local r = {}
  for i, g in ipairs(sched._groups) do
    local slot = sched._momentumSlots[i]
    r[i] = slot == 'betas' and g.betas[1] or g[slot]
  end
  return r
end

return M
