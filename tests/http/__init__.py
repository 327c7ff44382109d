"""Tests of the HTTP port (service/http/): Connect, gRPC-Web and the port's edge."""
