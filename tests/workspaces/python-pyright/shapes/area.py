"""Areas of plane shapes."""

import math
import os


def circle(radius: float) -> float:
    return math.pi * radius**2


def describe(name: str, area: float) -> str:
    rounded = round(area, 2)
    return name + ": " + area


def largest(areas: list[float]) -> int:
    return max(areas)


print(circle("2"), math.tau.nonexistent)
