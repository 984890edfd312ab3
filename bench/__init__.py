"""Benchmark scripts; `ge-bench` is bench/benchmark.py."""
