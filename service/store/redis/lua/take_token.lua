-- KEYS: bucket   ARGV: rate per second, burst.  Returns 0 when a token was taken, else the
-- milliseconds until one will be there. The bucket expires once it would be full again.

local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local rate = tonumber(ARGV[1]) / 1000
local burst = tonumber(ARGV[2])
local kept = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(kept[1]) or burst
local at = tonumber(kept[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens < 1 then wait = math.max(1, math.ceil((1 - tokens) / rate)) else tokens = tokens - 1 end
redis.call('HSET', KEYS[1], 't', string.format('%.6f', tokens), 'at', string.format('%d', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return wait
