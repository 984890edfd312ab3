// --load-pass-plugin FILE registers the passes a Python file defines; here
// test/plugins/relu_rules.py, whose PATTERNS list becomes the pass relu-rules.

// RUN: ge-opt %s --load-pass-plugin %S/../../plugins/relu_rules.py -p relu-rules | filecheck %s
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[P:.*]] = ge.max_pool2d %x
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[P]]
// CHECK-NEXT:    func.return %[[R]]

// A plugin that cannot be loaded is one line and exit status 1.
// RUN: sh -c 'echo BEGIN; ge-opt %s --load-pass-plugin %S/no-such-plugin.py -p relu-rules 2>&1; echo "exit status $?"' | filecheck %s --check-prefix=MISSING
// MISSING:      {{^}}BEGIN{{$}}
// MISSING-NEXT: {{^}}ge-opt: error: plugin file not found: {{.*}}no-such-plugin.py{{$}}
// MISSING-NEXT: {{^}}exit status 1{{$}}

func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %r = ge.relu %x : tensor<1x2x4x4xf32>
  %p = ge.max_pool2d %r {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = false} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  func.return %p : tensor<1x2x2x2xf32>
}
