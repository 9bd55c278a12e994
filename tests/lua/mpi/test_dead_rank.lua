-- A rank that leaves the job early: the survivor's collective fails with a timeout error instead
-- of hanging (ctest passes on the message; the survivor then exits without MPI_Finalize).
local dist = torch.distributed
dist.init{ backend = 'mpi', timeout = 3 }
dist.barrier()
if dist.rank() ~= 0 then os.exit(0) end  -- finalizes at exit, never joins the allReduce below
local ok, err = pcall(dist.allReduce, torch.FloatTensor(4):fill(1))
if not ok and tostring(err):find('%[allReduce%] timed out after 3 s on rank 0') then
  print('dead rank: timed out as expected: ' .. err)
  -- Later collectives refuse at once: the timed-out one is still posted.
  local ok2, err2 = pcall(dist.barrier)
  if ok2 or not tostring(err2):find('timed out; collectives cannot continue') then print('dead rank: FAIL ' .. tostring(err2)) end
else
  print('dead rank: FAIL ' .. tostring(ok) .. ' ' .. tostring(err))
end
