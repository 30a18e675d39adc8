"""The error of a specification or command-line value that cannot be used."""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration or command-line value that cannot be used (one-line message)."""
