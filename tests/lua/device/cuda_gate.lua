-- The gate of a CUDA suite that has a dry run (loaded with dofile): with a GPU the suite runs for
-- real and its dry run skips; without one the suite skips and its dry run (env_var=1) runs the
-- suite's own logic on CPU stand-ins. Returns dry (a boolean), or nil when the suite must return.
-- Usage: local dry = dofile(dir .. '/device/cuda_gate.lua')('TOCHA_CUDA_X_DRYRUN', 'cuda.x', 'CPU copies')
return function(env_var, real_test, stand_ins)
  local available = torch.cuda.isAvailable()
  local dry = os.getenv(env_var) == '1'
  if dry and available then
    print('SKIPPED: no dry run with a GPU present (' .. real_test .. ' runs the suite for real)')
    return nil
  end
  if not available and not dry then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
    return nil
  end
  if dry then print('DRY RUN: the "device" tensors are ' .. stand_ins) end
  return dry
end
