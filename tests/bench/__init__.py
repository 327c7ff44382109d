"""Checks of the benchmarks (bench/): every module imports and has its entry point."""
