"""Tests of the gRPC API (service/rpc/) through real channels against real Redis."""
