"""What the model saw against what is on disk: the read tool, the directory watcher, change notices."""
