"""`make bench`: every benchmark, one `name value` line per figure."""

from bench import engine_hands, service_moves

if __name__ == "__main__":
    engine_hands.main()
    service_moves.main()
