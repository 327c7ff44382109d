"""Tests of the stores (service/store/): the contract of memory and Redis, the schedule, feeds, Redis Cluster."""
