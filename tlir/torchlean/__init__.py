"""TorchLean's `torchlean.ir.v1` JSON graphs: import to and export from tlir."""

from tlir.torchlean.importer import import_file, import_graph

__all__ = ["import_file", "import_graph"]
