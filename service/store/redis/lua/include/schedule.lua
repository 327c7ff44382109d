-- schedule_game(due key, claims key, game id, at_ms, wake channel) -> the game's time before (nil
-- if none): the game is due at at_ms unless it is due earlier (ZADD LT); when at_ms is the shard's
-- earliest time now, it is published on the shard's wake channel (an SPUBLISH on a Redis
-- Cluster). A game under a sweeper's claim (its time is the claim's token) keeps an at_ms after
-- the claim's end as asked ('a:<game id>'), so the claim's settle, which works from the game as it
-- read it, cannot drop it (an earlier at_ms takes the score, and the claim no longer holds).

local function schedule_game(due, claims, game, at, channel)
  local prior = redis.call('ZSCORE', due, game)
  local claim = redis.call('HGET', claims, 'c:' .. game)
  if prior and claim and tonumber(claim) == tonumber(prior) and tonumber(at) >= tonumber(prior) then
    local asked = redis.call('HGET', claims, 'a:' .. game)
    if not asked or tonumber(at) < tonumber(asked) then
      redis.call('HSET', claims, 'a:' .. game, at)
    end
  end
  local first = redis.call('ZRANGE', due, 0, 0, 'WITHSCORES')
  redis.call('ZADD', due, 'LT', at, game)
  if first[2] == nil or tonumber(at) < tonumber(first[2]) then
    redis.call('PUBLISH', channel, at)
  end
  return prior
end
