"""A file above editor.maxLintFileKb: not linted or format-checked on open, change or save, said once,
while the server answers everything else; below the limit again, it is linted as before. (A 20 MB one-line file
took ruff seconds and lintel several copies of its text: bench/huge_file.py.)"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from tests.e2e.conftest import Start
from tests.helpers import require_tool

PRICING = "src/inventory/pricing.py"
BIG = "src/inventory/generated.py"
LIMIT = "more than editor.maxLintFileKb (8 KiB)"


def codes(diagnostics: Sequence[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


async def test_a_file_above_the_lint_limit_is_not_linted_and_said_once(start: Start) -> None:
    require_tool("ruff")
    editor = await start("python", init_options={"editor": {"maxLintFileKb": 8, "lintOnChange": True}})
    pricing = editor.open(PRICING)
    await editor.wait_for_diagnostics(pricing, lambda ds: codes(ds) >= {"F841", "E711"})

    big_text = "import os\n" + "x = 1\n" * 3000  # ~18 KB, with a finding ruff would report (F401)
    editor.path(BIG).write_text(big_text, encoding="utf-8")
    before = len(editor.client.published)
    uri = editor.open(BIG)
    await editor.alive()  # answered at once, whatever the file
    assert await editor.wait_for_publish(uri, before) == []
    message = await editor.wait_for_message(LIMIT)
    assert "generated.py is 0.0 MiB" in message

    before = len(editor.client.published)
    editor.save(uri, big_text + "import sys\n")
    assert await editor.wait_for_publish(uri, before) == []
    assert len([m for m in editor.messages if LIMIT in m]) == 1  # said once per file

    editor.save(uri, "import os\n")  # below the limit: linted again
    await editor.wait_for_diagnostics(uri, lambda ds: codes(ds) == {"F401"})
