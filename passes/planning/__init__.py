"""Planning over plain data, shared by the Ascend-level passes.

- `task_graph`: a lowered function read into tasks, buffers and their orders
  (happens-before, data dependences), what every planner reasons on;
- `memory`: lifetimes, conflicts, offset assignment and memory-aware task
  orders, used by the `memory-reuse` pass;
- `streams`: stream assignment and event placement, used by `task-parallel`.
"""
