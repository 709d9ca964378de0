# providers/soft/provider: filled in by its component.
