-- KEYS: due, claims   ARGV: game id, claim token, next_ms ('' to unschedule), wake channel.
-- If the game is still due at the claim's token, makes it due at the earlier of next_ms and any
-- time asked for while it was claimed ('a:<game id>', see schedule.lua), or unschedules it when
-- there is neither, and forgets the claim. Returns 1 if the claim held. A time earlier than the
-- shard's earliest is published on the shard's wake channel (an SPUBLISH on a Redis Cluster).

local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
local asked = redis.call('HGET', KEYS[2], 'a:' .. ARGV[1])
redis.call('HDEL', KEYS[2], 'c:' .. ARGV[1], 'a:' .. ARGV[1])
local at = ARGV[3]
if asked and (at == '' or tonumber(asked) < tonumber(at)) then at = asked end
if at == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[1], at, ARGV[1])
  if tonumber(at) < tonumber(first[2]) then redis.call('PUBLISH', ARGV[4], at) end
end
return 1
