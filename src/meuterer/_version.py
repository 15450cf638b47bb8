"""The version of the meuterer package."""

__version__ = "0.1.0"
