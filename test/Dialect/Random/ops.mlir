// Round trip of the random dialect, custom and generic form.
// RUN: tlir-opt %s | tlir-opt | filecheck %s
// RUN: tlir-opt %s --print-op-generic | tlir-opt | filecheck %s
// RUN: tlir-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @draws
// CHECK-SAME:    (%[[I:.*]]: index, %[[P:.*]]: f32, %[[Q:.*]]: f64)
// CHECK-NEXT:    %[[K:.*]] = random.key {seed = 7 : i64, node_id = 3 : i64} : i64
// CHECK-NEXT:    %[[D:.*]] = random.draw %[[K]], %[[I]] : i32
// CHECK-NEXT:    %[[U:.*]] = random.uniform %[[D]] : f32
// CHECK-NEXT:    %[[B:.*]] = random.bernoulli %[[P]], %[[U]] : f32
// CHECK-NEXT:    %[[U64:.*]] = random.uniform %[[D]] : f64
// CHECK-NEXT:    %[[B64:.*]] = random.bernoulli %[[Q]], %[[U64]] : f64
// CHECK-NEXT:    %[[K2:.*]] = random.key {seed = -1 : i64, node_id = 0 : i64} : i64
// GENERIC: "random.key"() <{seed = 7 : i64, node_id = 3 : i64}> : () -> i64
// GENERIC: "random.draw"(%{{.*}}, %{{.*}}) : (i64, index) -> i32
// GENERIC: "random.uniform"(%{{.*}}) : (i32) -> f32
// GENERIC: "random.bernoulli"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
func.func @draws(%i: index, %p: f32, %q: f64) -> f32 {
  %k = random.key {seed = 7 : i64, node_id = 3 : i64} : i64
  %d = random.draw %k, %i : i32
  %u = random.uniform %d : f32
  %b = random.bernoulli %p, %u : f32
  %u64 = random.uniform %d : f64
  %b64 = random.bernoulli %q, %u64 : f64
  %k2 = random.key {seed = 18446744073709551615 : i64, node_id = 0 : i64} : i64
  func.return %b : f32
}
