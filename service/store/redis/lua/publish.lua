-- include: publish
-- KEYS: stream, seq hash   ARGV: game id, max_len, seq ttl_ms, event...
-- Appends each event whose seq is above the game's last published one; returns how many.

return publish_events(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV, 4)
