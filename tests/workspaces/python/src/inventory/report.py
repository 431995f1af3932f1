"""A plain-text stock report."""

from inventory.models import Item


def report(items: list[Item]) -> str:
    lines = [ f"{item.name}: {item.quantity}"   for item in items ]
    return "\n".join(lines)


def summary(items: list[Item]) -> dict[str, int]:
    return {'items': len(items), 'units': sum(item.quantity for item in items)}
