// RUN: not ge-opt %s -p 'lower-to-ascend,pipeline-partition' 2>&1 | filecheck %s

// Negative: shapes unknown at compile time cannot be sent as whole buffers.
// CHECK: ge-opt: error: pipeline-partition: @dynamic has buffers with dynamic shapes; stages send whole buffers, so shapes must be static
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = ge.relu %x : tensor<?x4xf32>
  %b = ge.relu %a : tensor<?x4xf32>
  func.return %b : tensor<?x4xf32>
}
