"""Command-line tools: tlir-opt, tlir-translate, tlir-run."""
