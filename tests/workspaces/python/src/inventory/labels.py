"""Shelf labels (navigation fixture: names after é and 🍰 sit at other columns per encoding)."""

from inventory.models import Item, total_value


def shelf_label(items: list[Item]) -> str:
    return f"é 🍰 {len(items)}: " + str(total_value(items))
