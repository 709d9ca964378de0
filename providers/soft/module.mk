# providers/soft: filled in by its component.
