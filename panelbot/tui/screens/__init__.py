"""Modal screens, imported only when first opened."""
