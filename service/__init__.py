"""gRPC service: servicer, auth, errors, stores, bots and config around the pure engine."""
