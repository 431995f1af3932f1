"""Core helpers: every ruff finding here is deliberate."""


def collect(item, into=[]):
    into.append(item)
    return into
def total(values):
    result = sum(values)
    return result
