// --print-ir-after-all, --timing and --pass-statistics write to stderr, so
// stdout stays the resulting IR. Stages of a ge-O<n> level appear one by one.

// RUN: ge-opt %s -p ge-O1 --print-ir-after-all --timing --pass-statistics 2>&1 >/dev/null | filecheck %s
// CHECK:      // -----// IR Dump After ge-O1/canonicalize //----- //
// CHECK:        %s = ge.add %x, %w
// CHECK:      // -----// IR Dump After ge-O1/cse //----- //
// CHECK:      // -----// IR Dump After ge-O1/dce //----- //
// CHECK:      // -----// IR Dump After ge-O1 //----- //
// CHECK:      pass timing
// CHECK-NEXT:   seconds {{ *}}% pass
// CHECK-NEXT:   {{[0-9.]+ +[0-9.]+}}  ge-O1
// CHECK-NEXT:   {{[0-9.]+ +[0-9.]+}}    canonicalize
// CHECK-NEXT:   {{[0-9.]+ +[0-9.]+}}    cse
// CHECK-NEXT:   {{[0-9.]+ +[0-9.]+}}    dce
// CHECK-NEXT:   {{[0-9.]+ +100.0}}  total
// CHECK-NEXT:   {{[0-9.]+}}          start-up before the first pass: imports, parsing the input
// CHECK:      pass statistics
// CHECK-NEXT:   ge-O1/canonicalize
// CHECK-DAG:           1  x + 0 -> x
// CHECK-DAG:           1  erase-dead-op

// RUN: ge-opt %s -p ge-O1 --print-ir-after-all --timing | filecheck %s --check-prefix=STDOUT
// STDOUT:     {{^}}builtin.module {
// STDOUT-NOT: IR Dump
// STDOUT-NOT: timing

func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %zero = ge.const dense<0.0> : tensor<4xf32>
  %a = ge.add %x, %zero : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = ge.add %a, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
