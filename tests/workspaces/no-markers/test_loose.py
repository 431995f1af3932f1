from loose import unused


def test_fails():
    assert unused(None) == 2, "loose scripts are not a project: lintel must not pick this up"
