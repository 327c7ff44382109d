"""Tests of the table (service/table/): commands, records, the sweeper and bot turns."""
