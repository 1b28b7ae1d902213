"""Model access. Only this package may import litellm (and only lazily, on the live path)."""
