// Three independent branches joined by adds: the sample input for the device
// back end (task-parallel streams and events, memory-reuse plan). Try:
//   ge-opt examples/branches.mlir -p lower-to-ascend,task-parallel,memory-reuse --memory-report
func.func @branches(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = ge.relu %x : tensor<1x4x8x8xf32>
  %a2 = ge.relu %a : tensor<1x4x8x8xf32>
  %b = ge.relu %x : tensor<1x4x8x8xf32>
  %b2 = ge.relu %b : tensor<1x4x8x8xf32>
  %c = ge.relu %x : tensor<1x4x8x8xf32>
  %ab = ge.add %a2, %b2 : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %y = ge.add %ab, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}
