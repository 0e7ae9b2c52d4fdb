// A 2-D conv of stride 1 whose units are whole output rows of whole column
// tiles (`conv_fused`), for a fixed target (32-byte vectors, a 4x2 tile): no
// kc x nc block of X. Each k block copies its channels' input rows into one
// zero-margined band per channel (2 channels x 114 cells); then, per column
// tile of 16 positions, code for that tile (an scf.if on its index) packs its
// 18 x 16 micro-panel out of the bands: per kernel offset two vectors, the
// second one spanning two output rows of 12 (its last 4 lanes loaded one row
// on: a shuffle); every row tile's k loop reads that micro-panel.
// RUN: tlir-opt %s -p 'tlir-contraction-kernels{vector_bytes=32 registers=16 tile_rows=4 tile_vectors=2}' | filecheck %s

// CHECK-LABEL: func.func @rows__conv0
// CHECK:         %[[X:.*]] = memref.collapse_shape %{{.*}} into memref<96xf32>
// CHECK:         %[[BANDS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<228xf32>
// CHECK-NEXT:    %[[PANEL:.*]] = memref.alloca() {alignment = 64 : i64} : memref<288xf32>
// CHECK-NOT:     memref.alloca
// the unit's bands zeroed, then each channel's input rows copied in
// CHECK:         vector.store %{{.*}}, %[[BANDS]][%{{.*}}] : memref<228xf32>, vector<8xf32>
// CHECK:         vector.load %[[X]][%{{.*}}] : memref<96xf32>, vector<8xf32>
// CHECK-NEXT:    vector.store %{{.*}}, %[[BANDS]][%{{.*}}] : memref<228xf32>, vector<8xf32>
// per column tile: the first tile's micro-panel, channel by channel, offset by offset
// CHECK:         arith.cmpi eq
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      scf.for
// CHECK:             %[[V0:.*]] = vector.load %[[BANDS]][%{{.*}}] : memref<228xf32>, vector<8xf32>
// CHECK:             vector.store %[[V0]], %[[PANEL]][%{{.*}}] : memref<288xf32>, vector<8xf32>
// CHECK:             %[[A:.*]] = vector.load %[[BANDS]][%{{.*}}] : memref<228xf32>, vector<8xf32>
// CHECK:             %[[B:.*]] = vector.load %[[BANDS]][%{{.*}}] : memref<228xf32>, vector<8xf32>
// CHECK-NEXT:        %[[V1:.*]] = vector.shuffle %[[A]], %[[B]] [0, 1, 2, 3, 12, 13, 14, 15]
// CHECK:             vector.store %[[V1]], %[[PANEL]][%{{.*}}] : memref<288xf32>, vector<8xf32>
// the row tiles: the k loop's vectors of X from the micro-panel
// CHECK:         scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      vector.load %[[PANEL]][%{{.*}}] : memref<288xf32>, vector<8xf32>
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
func.func @rows(%x: tensor<1x2x4x12xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x12xf32> {
  %y = tlir.conv %x, %w, %b {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, padding_after = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, channel_axis = 1 : i64, in_channels = 2 : i64, out_channels = 4 : i64} : (tensor<1x2x4x12xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x12xf32>
  func.return %y : tensor<1x4x4x12xf32>
}
