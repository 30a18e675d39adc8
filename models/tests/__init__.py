"""Tests for the montverif models package."""
