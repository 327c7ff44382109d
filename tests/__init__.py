"""Tests of the card game service."""
