// tlir-run --jvp / --param-tangents / --vjp: forward values, tangents and gradients,
// named output{i}, output_tangent{i}, input_grad{i}, param_grad:NAME; --compare checks
// them against the reference JVP/VJP; --reference writes the reference's; errors are one line.
// RUN: python %S/Inputs/make_arrays.py %t
// RUN: tlir-run %S/Inputs/small.json --input %t.x.npy --jvp %t.dx.npy --compare | filecheck %s --check-prefix=JVP
// RUN: tlir-run %S/Inputs/small.json --input %t.x.npy --jvp %t.dx.npy --param-tangents %t.pt.npz --compare | filecheck %s --check-prefix=PARAMS
// RUN: tlir-run %S/Inputs/small.json --input %t.x.npy --vjp %t.dy.npz --compare | filecheck %s --check-prefix=VJP
// RUN: tlir-run %S/Inputs/small.json --input %t.x.npy --vjp %t.dy.npz --output %t.c.npz
// RUN: tlir-run %S/Inputs/small.json --input %t.x.npy --vjp %t.dy1.npz --output %t.r.npz --reference
// RUN: python -c "import numpy as np, sys; c, r = np.load(sys.argv[1]), np.load(sys.argv[2]); print(sorted(c.files)); print(all(c[k].tobytes() == r[k].tobytes() for k in r.files), sorted(r.files) == sorted(c.files))" %t.c.npz %t.r.npz | filecheck %s --check-prefix=NPZ
// RUN: tlir-run %S/Inputs/small.json --dtype f32 --input %t.x32.npy --jvp %t.x32.npy --vjp %t.dy32.npz --compare | filecheck %s --check-prefix=F32
// RUN: not tlir-run %S/Inputs/small.json --dtype f32 --input %t.x32.npy --vjp %t.dy.npz 2>&1 | filecheck %s --check-prefix=F32-BAD
// RUN: not tlir-run %S/Inputs/small.json --input %t.x.npy --jvp %t.dx.npy --jvp %t.dx.npy 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: not tlir-run %S/Inputs/small.json --input %t.x.npy --vjp %t.dx.npy 2>&1 | filecheck %s --check-prefix=NPY
// RUN: not tlir-run %S/Inputs/small.json --input %t.x.npy --jvp %t.dx.npy --param-tangents %t.bad.npz 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not tlir-run %S/Inputs/small.json --input %t.x.npy --param-tangents %t.pt.npz 2>&1 | filecheck %s --check-prefix=ALONE
// RUN: not tlir-run %S/Inputs/small.json --input %t.x.npy --jvp %t.x32.npy 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: python -c "import numpy as np, sys; np.save(sys.argv[1], np.array([1.0, -1.0, 2.0])); np.savez(sys.argv[2], output0=np.ones(3))" %t.neg.npy %t.negdy.npz
// RUN: not tlir-run %S/Inputs/log.mlir --input %t.neg.npy --vjp %t.negdy.npz --compare 2>&1 | filecheck %s --check-prefix=LOG
// RUN: not tlir-run %S/Inputs/log.mlir --input %t.neg.npy --jvp %t.neg.npy --compare 2>&1 | filecheck %s --check-prefix=LOG

// JVP:      output0: shape [3] float64:
// JVP-NEXT: output1: shape [2, 1] float64:
// JVP-NEXT: output_tangent0: shape [3] float64: 0.0 0.0 0.0
// JVP-NEXT: output_tangent1: shape [2, 1] float64:
// JVP:      output_tangent1: bit-identical to the reference (2 values)
// JVP-NEXT: all 4 arrays bit-identical to the reference

// PARAMS: output_tangent1: bit-identical to the reference (2 values)
// PARAMS: all 4 arrays bit-identical to the reference

// VJP:      input_grad0: shape [2, 4] float64:
// VJP-NEXT: param_grad:node1.weight: shape [3, 4] float64:
// VJP-NEXT: param_grad:node1.bias: shape [3] float64:
// VJP:      param_grad:node1.weight: bit-identical to the reference (12 values)
// VJP:      all 5 arrays bit-identical to the reference

// NPZ:      ['input_grad0', 'output0', 'output1', 'param_grad:node1.bias', 'param_grad:node1.weight']
// NPZ-NEXT: True True

// F32: output_tangent1: shape [2, 1] float32:
// F32: all 7 arrays bit-identical to the reference
// F32-BAD: .dy.npz: error: cotangent 0 has shape [3] and dtype float64, expected shape [3] and dtype float32

// COUNT: tlir-run: error: @main takes 1 input, got 2 --jvp tangents: give one --jvp DX.npy per input, in argument order
// NPY: .dx.npy: error: the model has 2 outputs: give an .npz with one per output
// NAME: .bad.npz: error: no parameter named 'node9.weight' (parameters: node1.weight, node1.bias)
// ALONE: tlir-run: error: --param-tangents goes with --jvp
// DTYPE: .x32.npy: error: tangent 0 has shape [2, 4] and dtype float32, expected shape [2, 4] and dtype float64

// The reference's JVP and VJP check log's domain as its forward does (compiled code gives NaN):
// LOG:     log.mlir:2:3: error: tlir.log: log of a tensor with an element that is not > 0 (or NaN)
// LOG-NOT: {{.}}
