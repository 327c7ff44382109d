-- KEYS: due   ARGV: game id, claim token, next_ms ('' to unschedule), wake channel.  Returns 1 if
-- the claim held. A next_ms earlier than the shard's earliest time is published on the shard's
-- wake channel (an SPUBLISH on a Redis Cluster).

local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  if tonumber(ARGV[3]) < tonumber(first[2]) then redis.call('PUBLISH', ARGV[4], ARGV[3]) end
end
return 1
