-- KEYS: state, log, hands, req, outbox.  ARGV: the game's change channel.
-- Returns 1 if the game existed; then its watchers are told version 0 (a PUBLISH on the
-- channel, an SPUBLISH on a Redis Cluster).

local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
if existed == 1 then
  redis.call('PUBLISH', ARGV[1], 0)
end
return existed
