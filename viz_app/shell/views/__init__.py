"""One module per page; each has ``render(ctx)`` and only wires widgets to loaders and figures."""
