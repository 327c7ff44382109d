-- publish_events(stream key, seq hash key, game id, max_len, seq ttl_ms, events, from): appends to
-- the owner's stream each of events[from..] whose seq is above the game's last published one
-- (the seq hash), in order, and records the last; returns how many it appended.

local function publish_events(stream, seqs, game, max_len, ttl, events, from)
  local last = tonumber(redis.call('HGET', seqs, game) or '-1')
  local added = 0
  for i = from, #events do
    local seq = tonumber(string.match(events[i], '^(%d+) '))
    if seq > last then
      redis.call('XADD', stream, 'MAXLEN', '~', max_len, '*', 'e', events[i], 'g', game)
      last = seq
      added = added + 1
    end
  end
  if added > 0 then redis.call('HSET', seqs, game, string.format('%d', last)) end
  if redis.call('EXISTS', seqs) == 1 then redis.call('PEXPIRE', seqs, ttl) end
  return added
end
