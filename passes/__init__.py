"""tlir's passes, one module per pass, registered in `tlir.universe`."""
