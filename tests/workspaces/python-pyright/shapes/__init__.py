"""Plane shapes."""
