"""Tests of running the service (service/ops/): flags, health, TLS, credentials, telemetry, deployment, releases."""
