"""The pass driver's room: what runs around passes, not a pass itself.

- `instrument`: guard rails, timing, IR dumps, rewrite counts and the rewrite
  budget, for every PatternRewriteWalker of a pipeline;
- `plugins`: out-of-tree pass files loaded by path (`--load-pass-plugin`);
- `gc_tuning`: fewer garbage-collector runs while a large module compiles.
"""
