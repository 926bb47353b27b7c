"""Built-in tools and the workspace path policy they share."""
