"""Differential tests: every scenario runs against moto and dynemu; differences are listed."""
