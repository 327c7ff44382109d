"""Tests of the test kit (testkit/, tests/redis_server.py): servers and Redis on ports nobody else takes."""
