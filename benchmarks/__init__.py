"""Speed, memory and identity benchmarks, each a module run as `python -m benchmarks.<name> ...` from a
checkout (ratios to a baseline measured in the same run; figures go to docs/performance.md, never into a timed
test)."""
