# providers/soft/pvctl: filled in by its component.
