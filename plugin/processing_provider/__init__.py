"""The plugin's Processing provider: one algorithm per core capability."""
