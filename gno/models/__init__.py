"""Model roles, URIs, presets and where a model's file comes from (no inference here)."""
