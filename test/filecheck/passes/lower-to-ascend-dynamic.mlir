// RUN: ge-opt %s --split-input-file -p lower-to-ascend --verify-diagnostics | filecheck %s

// Dynamic shapes cannot get a static memory plan: a diagnostic, not a crash.
// CHECK: lower-to-ascend: @dyn has a dynamic shape (?x4) at argument #0; the static memory plan needs static shapes
func.func @dyn(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = ge.relu %x : tensor<?x4xf32>
  func.return %y : tensor<?x4xf32>
}

// -----

// CHECK: lower-to-ascend: @dyn_inner has a dynamic shape (?) at 'ge.reshape'; the static memory plan needs static shapes
func.func @dyn_inner(%x: tensor<4xf32>) -> tensor<?xf32> {
  %y = ge.reshape %x : tensor<4xf32> -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
