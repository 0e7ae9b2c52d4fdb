func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = tlir.log %x : (tensor<3xf64>) -> tensor<3xf64>
  func.return %y : tensor<3xf64>
}
