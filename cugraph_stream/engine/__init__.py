"""Engine layer: arrays in, arrays out, no device knowledge (operators come from a backend)."""
