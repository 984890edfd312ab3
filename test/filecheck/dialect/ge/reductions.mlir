// RUN: ge-opt %s | filecheck %s
// RUN: GE_ROUNDTRIP

// keepdim keeps reduced dims as 1; empty dims reduce everything.
// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT:    %s = ge.reduce_sum %x {dims = array<i64: -1>, keepdim = true} : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %mean = ge.reduce_mean %x {dims = array<i64: 1>, keepdim = false} : tensor<2x8xf32> -> tensor<2xf32>
// CHECK-NEXT:    %max = ge.reduce_max %x {dims = array<i64>, keepdim = false} : tensor<2x8xf32> -> tensor<f32>
// CHECK-NEXT:    %min = ge.reduce_min %x {dims = array<i64: 0>, keepdim = false} : tensor<2x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    %any = ge.reduce_any %m {dims = array<i64: -1>, keepdim = true} : tensor<4x4xi1> -> tensor<4x1xi1>
// CHECK-NEXT:    func.return %s, %mean, %max, %min, %any : tensor<2x1xf32>, tensor<2xf32>, tensor<f32>, tensor<8xf32>, tensor<4x1xi1>
func.func @reductions(%x: tensor<2x8xf32>, %m: tensor<4x4xi1>) -> (tensor<2x1xf32>, tensor<2xf32>, tensor<f32>, tensor<8xf32>, tensor<4x1xi1>) {
  %s = ge.reduce_sum %x {dims = array<i64: -1>, keepdim = true} : tensor<2x8xf32> -> tensor<2x1xf32>
  %mean = ge.reduce_mean %x {dims = array<i64: 1>, keepdim = false} : tensor<2x8xf32> -> tensor<2xf32>
  %max = ge.reduce_max %x {dims = array<i64>, keepdim = false} : tensor<2x8xf32> -> tensor<f32>
  %min = ge.reduce_min %x {dims = array<i64: 0>, keepdim = false} : tensor<2x8xf32> -> tensor<8xf32>
  %any = ge.reduce_any %m {dims = array<i64: -1>, keepdim = true} : tensor<4x4xi1> -> tensor<4x1xi1>
  func.return %s, %mean, %max, %min, %any : tensor<2x1xf32>, tensor<2xf32>, tensor<f32>, tensor<8xf32>, tensor<4x1xi1>
}

// A dynamic batch survives reductions over the other dims.
// CHECK-LABEL: func.func @reduce_dynamic(
// CHECK-NEXT:    %y = ge.reduce_mean %x {dims = array<i64: 1>, keepdim = true} : tensor<?x8x16xf32> -> tensor<?x1x16xf32>
// CHECK-NEXT:    func.return %y : tensor<?x1x16xf32>
func.func @reduce_dynamic(%x: tensor<?x8x16xf32>) -> tensor<?x1x16xf32> {
  %y = ge.reduce_mean %x {dims = array<i64: 1>, keepdim = true} : tensor<?x8x16xf32> -> tensor<?x1x16xf32>
  func.return %y : tensor<?x1x16xf32>
}
