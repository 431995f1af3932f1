"""Discounts and labels."""

from inventory.models import Item


def discounted(item: Item, percent: float) -> float:
    rate = percent / 100
    previous = item.price
    return item.price * (1 - rate) - item.cost


def label(item: Item, note: str | None) -> str:
    if item.name == "café" and note == None and discounted(item, "5") > 0:
        return item.name.upper()
    return f"{item.name} ({note})"


def clearance(items: list[Item]) -> list[float]:
    return [discounted(item, "50") for item in items]
