"""Tests of the test kit (testkit/): servers and Redis on ports nobody else takes."""
