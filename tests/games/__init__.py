"""Games defined only by the tests, to prove a game is one module plus one registry line."""
