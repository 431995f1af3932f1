from inventory.models import Item, restock, total_value


def test_restock_adds_units() -> None:
    item = Item("bolt", 0.25, quantity=3)
    restock(item, 2)
    assert item.quantity == 5


def test_total_value_counts_quantity() -> None:
    items = [Item("nut", 0.5, quantity=4), Item("washer", 0.25, quantity=2)]
    expected = 2.5
    assert total_value(items) == expected, f"stock of {len(items)} items should be worth {expected}"
