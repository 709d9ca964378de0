# cni-plugin: filled in by its component.
