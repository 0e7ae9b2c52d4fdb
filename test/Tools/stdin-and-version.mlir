// Every tool reads its input from stdin when no file or `-` is given, and names it
// "stdin" in its messages; `--version` prints tlir's version and xDSL's.
// RUN: python -c "import numpy as np, sys; np.save(sys.argv[1], np.arange(8.0).reshape(2, 4) / 8)" %t.x.npy

// tlir-translate: a pipe, a redirection, and `-`. (No `cat` here: lit's built-in `cat` in a
// pipeline sets PYTHONPATH to lit's own directory, so a checkout on PYTHONPATH would not be tested.)
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | tlir-translate --export-torchlean | tlir-translate --import-torchlean | filecheck %s --check-prefix=IMPORT
// RUN: tlir-translate --import-torchlean < %S/Inputs/small.json | filecheck %s --check-prefix=IMPORT
// RUN: tlir-translate --import-torchlean - < %S/Inputs/small.json | filecheck %s --check-prefix=IMPORT
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | tlir-translate --export-torchlean - | filecheck %s --check-prefix=EXPORT
// IMPORT: func.func @main(%input: tensor<2x4xf64> loc("stdin: node 0")) -> (tensor<3xf64>, tensor<2x1xf64>)
// IMPORT: tlir.linear %input, {{.*}} loc("stdin: node 1")
// EXPORT: "format": "torchlean.ir.v1",

// tlir-opt: no file, or `-`.
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | tlir-opt -p convert-tlir-to-linalg | filecheck %s --check-prefix=OPT
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | tlir-opt - -p convert-tlir-to-linalg | filecheck %s --check-prefix=OPT
// RUN: echo 'func.func @f() { func.return "' | not tlir-opt - 2>&1 | filecheck %s --check-prefix=OPT-ERR
// OPT: linalg.generic
// OPT-ERR: stdin:1:30: error:

// tlir-run: `-` is a JSON graph (text starting with `{`) or an MLIR module.
// RUN: tlir-run - --input %t.x.npy --compare -q --no-cache < %S/Inputs/small.json | filecheck %s --check-prefix=RUNOUT
// RUN: tlir-translate --import-torchlean %S/Inputs/small.json | tlir-run - --input %t.x.npy --compare -q --no-cache | filecheck %s --check-prefix=RUNOUT
// RUN: echo '{"format": "torchlean.ir.v1"' | not tlir-run - --input %t.x.npy 2>&1 | filecheck %s --check-prefix=RUNERR
// RUNOUT-DAG: output0: bit-identical to the reference (3 values)
// RUNOUT-DAG: output1: bit-identical to the reference (2 values)
// RUNERR: stdin:2:1: error: invalid JSON

// RUN: tlir-opt --version | filecheck %s --check-prefix=VERSIONOPT
// RUN: tlir-translate --version | filecheck %s --check-prefix=VERSIONTRANSLATE
// RUN: tlir-run --version | filecheck %s --check-prefix=VERSIONTOOL
// VERSIONOPT: tlir-opt {{[0-9]+\.[0-9]+}}{{.*}} (xDSL 0.74{{.*}}, llvmlite {{.*}})
// VERSIONTRANSLATE: tlir-translate {{[0-9]+\.[0-9]+}}{{.*}} (xDSL 0.74{{.*}}, llvmlite {{.*}})
// VERSIONTOOL: tlir-run {{[0-9]+\.[0-9]+}}{{.*}} (xDSL 0.74{{.*}}, llvmlite {{.*}})
