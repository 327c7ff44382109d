-- The index of one owner: KEYS[1] the ``all`` set, KEYS[2] the hash of each game's terms (joined
-- by newlines); a term's set is ``<term prefix><term>``, under the owner's hash tag like the rest,
-- so keys read from the terms hash stay on the script's slot.
-- unindex(game, term prefix, terms...): remove the game from all, the given and its recorded terms.

local function unindex(game, tprefix, given)
  local removed = redis.call('ZREM', KEYS[1], game)
  for _, term in ipairs(given) do redis.call('ZREM', tprefix .. term, game) end
  local recorded = redis.call('HGET', KEYS[2], game)
  if recorded then
    for term in string.gmatch(recorded, '[^\n]+') do redis.call('ZREM', tprefix .. term, game) end
    redis.call('HDEL', KEYS[2], game)
  end
  return removed
end
