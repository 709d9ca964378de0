# providers/soft/engine: filled in by its component.
