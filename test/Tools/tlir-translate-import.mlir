// Importing a current-dialect graph: payload operands (named node{ID}.{field}), keepdim expansion,
// renumbered random node ids, node locations; and the export back.
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | filecheck %s
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json --dtype f32 --no-locations | filecheck %s --check-prefix=F32
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | tlir-translate --export-torchlean | filecheck %s --check-prefix=JSON
// RUN: tlir-translate --import-torchlean %S/Inputs/legacy_cnn.json | filecheck %s --check-prefix=LEGACY
// RUN: not tlir-translate --import-torchlean %S/Inputs/bad_shape.json 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @main(%input: tensor<2x4xf64> loc("{{.*}}small.json: node 0")) -> (tensor<3xf64>, tensor<2x1xf64>)
// CHECK:       %[[W:.*]] = tlir.const {tlir.name = "node1.weight", value = dense<{{\[\[}}1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01], {{.*}}> : tensor<3x4xf64>} : tensor<3x4xf64> loc("{{.*}}small.json: node 1")
// CHECK:       %[[B:.*]] = tlir.const {tlir.name = "node1.bias", value = dense<[0.000000e+00, 1.000000e-01, -1.000000e-01]> : tensor<3xf64>} : tensor<3xf64> loc("{{.*}}small.json: node 1")
// CHECK:       %[[Y:.*]] = tlir.linear %input, %[[W]], %[[B]] : (tensor<2x4xf64>, tensor<3x4xf64>, tensor<3xf64>) -> tensor<2x3xf64> loc("{{.*}}small.json: node 1")
// CHECK:       %[[S:.*]] = tlir.reduce_sum %[[Y]] axis = 1 : (tensor<2x3xf64>) -> tensor<2xf64> loc("{{.*}}small.json: node 2")
// CHECK:       %[[K:.*]] = tlir.reshape %[[S]] : (tensor<2xf64>) -> tensor<2x1xf64> loc("{{.*}}small.json: node 2")
// CHECK:       %[[R:.*]] = tlir.rand_uniform {seed = 7 : i64, node_id = 4 : i64} : tensor<3xf64> loc("{{.*}}small.json: node 3")
// CHECK:       func.return %[[R]], %[[K]] : tensor<3xf64>, tensor<2x1xf64>

// F32: func.func @main(%input: tensor<2x4xf32>) -> (tensor<3xf32>, tensor<2x1xf32>)
// F32: tlir.const {tlir.name = "node1.weight", value = dense<{{\[\[}}1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01]{{.*}} : tensor<3x4xf32>}
// F32-NOT: loc(

// JSON:      "format": "torchlean.ir.v1",
// JSON:      "output_ids": [4, 3],
// JSON:      {"id": 1, "kind": "linear", "parents": [0], "shape": [2, 3], "out_dim": 3, "in_dim": 4, "weight": {{\[\[}}0.1, 0.2, 0.3, 0.4], [0.0, -1.0, 0.5, 0.25], [1.0, 0.0, 0.0, -0.5]], "bias": [0.0, 0.1, -0.1]},
// JSON-NEXT: {"id": 2, "kind": "reduce_sum", "parents": [1], "shape": [2], "axes": [1], "keepdim": false},
// JSON-NEXT: {"id": 3, "kind": "reshape", "parents": [2], "shape": [2, 1], "in_shape": [2], "out_shape": [2, 1]},
// JSON-NEXT: {"id": 4, "kind": "rand_uniform", "parents": [], "shape": [3], "seed": 7}

// LEGACY: tlir.conv %input, %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 0 : i64, in_channels = 2 : i64, out_channels = 3 : i64}
// LEGACY: tlir.max_pool %{{.*}} {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>}
// LEGACY: tlir.transpose %{{.*}} {axis1 = 0 : i64, axis2 = 1 : i64}
// LEGACY: tlir.reduce_sum %{{.*}} axis = 2
// LEGACY: tlir.flatten

// BAD: bad_shape.json: error: node 1 (linear): payload out_dim = 3 does not match the declared last extent 5
// BAD-NOT: Traceback
