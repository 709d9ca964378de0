# libverbs: filled in by its component.
