"""Findings ruff cannot fix."""


def report(values: list[int]) -> int:
    return undefined_total + len(values)  # F821: no fix
