// The binary model file: a float32 module written as a .tlz (chosen by the -o extension), read back
// in float32 by tlir-translate and tlir-opt; run by tlir-run; a broken container is one line.
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json --dtype f32 -o %t.mlir
// RUN: tlir-translate --export-torchlean %t.mlir -o %t.tlz
// RUN: tlir-translate --import-torchlean %t.tlz --no-locations | filecheck %s
// RUN: tlir-opt %t.tlz -p tlir-inline-custom | filecheck %s --check-prefix=OPT
// RUN: tlir-translate --import-torchlean %t.tlz --dtype f64 --no-locations | filecheck %s --check-prefix=F64
// RUN: tlir-translate --export-torchlean %t.mlir | filecheck %s --check-prefix=JSON
// RUN: printf 'PK not a zip' > %t.bad.tlz
// RUN: not tlir-translate --import-torchlean %t.bad.tlz 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tlir-run %t.bad.tlz --reference 2>&1 | filecheck %s --check-prefix=BAD

// CHECK:      func.func @main(%input: tensor<2x4xf32>) -> (tensor<3xf32>, tensor<2x1xf32>)
// CHECK-NEXT: tlir.const {tlir.name = "node1.weight", value = dense<{{\[\[}}1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01], {{.*}}> : tensor<3x4xf32>}
// CHECK-NEXT: tlir.const {tlir.name = "node1.bias", value = dense<[0.000000e+00, 1.000000e-01, -1.000000e-01]> : tensor<3xf32>}
// CHECK-NEXT: tlir.linear
// CHECK:      tlir.rand_uniform {seed = 7 : i64, node_id = 4 : i64} : tensor<3xf32>

// OPT: func.func @main(%input: tensor<2x4xf32>) -> (tensor<3xf32>, tensor<2x1xf32>)
// OPT: tlir.linear

// F64: func.func @main(%input: tensor<2x4xf64>)
// F64: tlir.const {tlir.name = "node1.weight", value = dense<{{\[\[}}0.10000000149011612, 0.20000000298023224,

// JSON: "format": "torchlean.ir.v1",
// JSON: "weight": {{\[\[}}0.10000000149011612,

// BAD: {{.*}}.bad.tlz: error: not a .tlz model (a zip archive): File is not a zip file
// BAD-NOT: Traceback
