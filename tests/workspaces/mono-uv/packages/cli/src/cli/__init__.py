"""The command line: every ruff finding here is deliberate."""


def main(argv):
    count = len(argv)
    return  0
