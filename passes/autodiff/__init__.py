"""Automatic differentiation of tlir functions: the rule tables, the builder
of derivative programs, and the per-op rules of `tlir-jvp` and `tlir-vjp`."""
