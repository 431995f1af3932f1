"""A tiny stock-keeping package."""

from inventory.models import Item, total_value

__all__ = ["Item", "total_value"]
