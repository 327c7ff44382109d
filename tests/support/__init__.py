"""Helpers shared by several test folders (not tests themselves)."""
