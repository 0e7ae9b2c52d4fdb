// A linear layer whose weight is computed from the input: no payload (tlir-translate-export-folded.mlir).
func.func @main(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %m = tlir.const {value = dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf64>} : tensor<2x2xf64>
  %w = tlir.mul_elem %x, %m : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  %b = tlir.const {value = dense<[0.5, 0.25]> : tensor<2xf64>} : tensor<2xf64>
  %y = tlir.linear %x, %w, %b : (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  func.return %y : tensor<2x2xf64>
}
