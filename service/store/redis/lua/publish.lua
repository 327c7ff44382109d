-- KEYS: stream, seq hash   ARGV: game id, max_len, seq ttl_ms, event...
-- Appends each event whose seq is above the game's last published one; returns how many.

local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
local added = 0
for i = 4, #ARGV do
  local seq = tonumber(string.match(ARGV[i], '^(%d+) '))
  if seq > last then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[i], 'g', ARGV[1])
    last = seq
    added = added + 1
  end
end
if added > 0 then redis.call('HSET', KEYS[2], ARGV[1], string.format('%d', last)) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return added
