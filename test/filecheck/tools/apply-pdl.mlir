// PDL patterns apply to GE IR from ge-opt through xDSL's apply-pdl pass; with
// no pdl_file it takes the pdl.pattern ops of the input module itself.
// Limits (xDSL 0.74): `benefit` is ignored (patterns run in file order) and
// native constraints can only be attached from Python, so rules that need a
// shape or value check belong in ge_dialect/patterns.py instead.

// RUN: ge-opt %s -p apply-pdl | filecheck %s

// relu(relu(x)) -> relu(x)
// CHECK-LABEL: func.func @double_relu
// CHECK-NEXT:    %a = ge.relu %in : tensor<4xf32>
// CHECK-NEXT:    func.return %a : tensor<4xf32>
pdl.pattern @relu_relu : benefit(1) {
  %t = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "ge.relu"(%x : !pdl.value) -> (%t : !pdl.type)
  %r = pdl.result 0 of %inner
  %outer = pdl.operation "ge.relu"(%r : !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %outer { pdl.replace %outer with %inner }
}

func.func @double_relu(%in: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %in : tensor<4xf32>
  %b = ge.relu %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
