-- append_outbox(outbox key, first ARGV index, last ARGV index, cap, ttl_ms): the events of a
-- successful write join the game's outbox, which keeps the latest ``cap``.

local function append_outbox(key, first, last, cap, ttl)
  if last < first then
    if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, ttl) end
    return
  end
  for i = first, last do redis.call('RPUSH', key, ARGV[i]) end
  redis.call('LTRIM', key, -cap, -1)
  redis.call('PEXPIRE', key, ttl)
end
