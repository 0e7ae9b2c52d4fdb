"""Back ends: from `convert-tlir-to-linalg` output to LLVM IR."""
