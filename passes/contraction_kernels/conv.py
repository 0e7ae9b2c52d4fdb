"""`tlir.conv` as an implicit GEMM (placeholder)."""


def conv_spec(op, kb, buffers, target):
    raise NotImplementedError
