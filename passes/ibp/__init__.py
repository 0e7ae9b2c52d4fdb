"""The interval rules of `tlir-ibp` (docs/verification.md)."""
