-- include: retry outbox
-- KEYS: state, log, hands, req, outbox
-- ARGV: state, ttl_ms, channel, req_ttl_ms, max_requests, request_id ('' for none), retry,
--       max_outbox, n_events, event..., entry...
-- Returns 1 when the game was created, 0 when its id is taken. The notification is a PUBLISH on
-- the channel (an SPUBLISH on a Redis Cluster).

if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
local first_entry = 10 + tonumber(ARGV[9])
for i = first_entry, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local v = string.format('%d', #ARGV - first_entry + 1)
redis.call('HSET', KEYS[1], 'v', v, 's', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
append_outbox(KEYS[5], 10, first_entry - 1, tonumber(ARGV[8]), ARGV[2])
if ARGV[6] ~= '' then remember(KEYS[4], ARGV[6], ARGV[7], now, tonumber(ARGV[5]), ARGV[2]) end
redis.call('PUBLISH', ARGV[3], v)
return 1
