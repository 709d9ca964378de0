# netns: filled in by its component.
