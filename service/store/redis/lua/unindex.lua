-- include: unindex
-- KEYS: all, terms hash   ARGV: term prefix, then per game: game id, n terms, term...
-- Returns how many of the games were in ``all``.

local removed = 0
local i = 2
while i <= #ARGV do
  local n = tonumber(ARGV[i + 1])
  local given = {}
  for j = i + 2, i + 1 + n do given[#given + 1] = ARGV[j] end
  removed = removed + unindex(ARGV[i], ARGV[1], given)
  i = i + 2 + n
end
return removed
