-- KEYS: due   ARGV: game id, at_ms, wake channel.  Makes the game due at at_ms unless it is due
-- earlier (ZADD LT); when at_ms is the shard's earliest time now, publishes it on the shard's wake
-- channel (an SPUBLISH on a Redis Cluster). Returns the game's time before, nil if it had none.

local prior = redis.call('ZSCORE', KEYS[1], ARGV[1])
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1])
if first[2] == nil or tonumber(ARGV[2]) < tonumber(first[2]) then
  redis.call('PUBLISH', ARGV[3], ARGV[2])
end
return prior
