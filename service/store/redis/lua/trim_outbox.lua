-- KEYS: outbox   ARGV: upto seq.  Drops the leading events whose seq is at most upto; returns how many.

local upto = tonumber(ARGV[1])
local dropped = 0
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head then break end
  local seq = tonumber(string.match(head, '^(%d+) '))
  if not seq or seq > upto then break end
  redis.call('LPOP', KEYS[1])
  dropped = dropped + 1
end
return dropped
