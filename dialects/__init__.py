"""tlir's dialects: `tlir` (TorchLean's op kinds) and `random` (its RNG)."""
