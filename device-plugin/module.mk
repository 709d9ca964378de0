# device-plugin: filled in by its component.
