-- KEYS: state, log, hands, req, outbox.  Returns 1 if the game existed.

local existed = redis.call('EXISTS', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return existed
