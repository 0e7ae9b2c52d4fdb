// concat: tensor.empty, then each operand copied in at its offset along the axis
// (extract_slice, copying generic, insert_slice: in-place after bufferization).
// RUN: tlir-opt %s --split-input-file -p convert-tlir-to-linalg | filecheck %s

// CHECK-LABEL: func.func @concat_axis1
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x1xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %[[S0:.*]] = tensor.extract_slice %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x4xf32> to tensor<2x3xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[S0]] : tensor<2x3xf32>)
// CHECK:         %[[I0:.*]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x4xf32>
// CHECK-NEXT:    %[[S1:.*]] = tensor.extract_slice %[[I0]][0, 3] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<2x1xf32>) outs(%[[S1]] : tensor<2x1xf32>)
// CHECK:         %[[I1:.*]] = tensor.insert_slice %[[C1]] into %[[I0]][0, 3] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[I1]] : tensor<2x4xf32>
func.func @concat_axis1(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = tlir.concat %x, %y axis = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// Three parts along axis 0; an empty part is skipped but still counts in the offsets.
// CHECK-LABEL: func.func @concat_axis0_f64
// CHECK:         tensor.extract_slice %{{.*}}[0, 0] [1, 2] [1, 1] : tensor<4x2xf64> to tensor<1x2xf64>
// CHECK:         tensor.insert_slice %{{.*}}[0, 0] [1, 2] [1, 1] : tensor<1x2xf64> into tensor<4x2xf64>
// CHECK:         tensor.extract_slice %{{.*}}[1, 0] [3, 2] [1, 1] : tensor<4x2xf64> to tensor<3x2xf64>
// CHECK:         tensor.insert_slice %{{.*}}[1, 0] [3, 2] [1, 1] : tensor<3x2xf64> into tensor<4x2xf64>
// CHECK-NOT:     tensor.insert_slice
func.func @concat_axis0_f64(%x: tensor<1x2xf64>, %y: tensor<0x2xf64>, %z: tensor<3x2xf64>) -> tensor<4x2xf64> {
  %0 = tlir.concat %x, %y, %z axis = 0 : (tensor<1x2xf64>, tensor<0x2xf64>, tensor<3x2xf64>) -> tensor<4x2xf64>
  func.return %0 : tensor<4x2xf64>
}
