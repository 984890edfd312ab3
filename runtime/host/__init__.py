"""The host fast path: how the executor runs Ascend tasks fast on this CPU.

- `runners`: task runners, one prepared call per task writing its arena
  view, picked by a dispatch table on the task body's ops;
- `conv_algorithms`: the conv forms and the rule that picks one per shape;
- `activations`: the one table of activations (torch forms, oneDNN kinds);
- `onednn`: oneDNN primitives created at load through its C API;
- `channels_last`, `blocked`: which arena buffers are viewed NHWC, and which
  are held in oneDNN's blocked layout;
- `nc1hwc0`: NCHW <-> NC1HWC0 on host tensors, for the 5-D kernels of
  layout-transform's graphs;
- `cc`: small C kernels compiled once and called through ctypes, used by
  `rms_norm`, `rotary` and `row_attention` (a decode step's norms, rotary
  embeddings and attention, each one loop where torch takes several ops),
  and `int8`: the int8-weight GEMV.

The kernel table (runtime/kernels.py) stays the reference: every runner
here computes what the task body's kernels compute, and the tests check it.
"""
