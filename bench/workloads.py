"""The code the benchmarks lint: a generated ~2,000-line Python module and a ~1,000-line JavaScript file, each
realistic (dataclasses, parsing, aggregation) with a handful of known findings, in throw-away workspaces."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NODE_FIXTURE = REPO / "tests" / "workspaces" / "node"

PYPROJECT = """\
[project]
name = "bench-inventory"
version = "0.1.0"
requires-python = ">=3.10"

[tool.ruff]
line-length = 120

[tool.ruff.lint]
select = ["E", "F", "W"]
"""

_PY_HEADER = '''\
"""Stock records of many kinds: parsing, totals and tag summaries (generated for lintel's benchmarks)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
'''

_PY_SECTION = '''

@dataclass
class Record{i}:
    """A stock record of kind {i}."""

    name: str
    quantity: int = 0
    price: float = 0.0
    tags: list[str] = field(default_factory=list)

    def total(self) -> float:
        return self.quantity * self.price

    def with_tag(self, tag: str) -> Record{i}:
        return Record{i}(self.name, self.quantity, self.price, [*self.tags, tag])


def summarize_{i}(records: Iterable[Record{i}]) -> dict[str, float]:
    """Totals per tag for kind {i}."""
    totals: dict[str, float] = defaultdict(float)
    for record in records:
        for tag in record.tags or ["untagged"]:
            totals[tag] += record.total()
    return dict(sorted(totals.items()))


def parse_{i}(lines: Iterable[str]) -> list[Record{i}]:
    records = []
    for number, line in enumerate(lines, start=1):
        parts = [part.strip() for part in line.split(",")]
        if len(parts) < 3:
            raise ValueError(f"line {{number}}: expected name,quantity,price")
        name, quantity, price, *tags = parts
        records.append(Record{i}(name, int(quantity), float(price), tags))
    return records
'''

# One finding each (ruff's default rule set), appended to the section of that number.
_PY_FINDINGS = {
    7: """

def check_{i}(record: Record{i}) -> bool:
    leftover = record.total()
    return record.quantity > 0
""",  # F841
    13: """

def is_missing_{i}(value: object) -> bool:
    return value == None
""",  # E711
    21: """

def label_{i}() -> str:
    return f"record kind"
""",  # F541
    33: """

def count_{i}(records: list[Record{i}]) -> int:
    l = len(records)
    return l
""",  # E741
}
# Plus the unused `import itertools` in the header (F401).
PY_FINDINGS = len(_PY_FINDINGS) + 1


def python_module(sections: int = 55) -> str:
    """~36 lines a section: 55 sections make a module of about 2,000 lines."""
    parts = [_PY_HEADER]
    for i in range(sections):
        parts.append(_PY_SECTION.format(i=i))
        if i in _PY_FINDINGS:
            parts.append(_PY_FINDINGS[i].format(i=i))
    return "".join(parts)


def storm_variant(base: str, step: int) -> str:
    """The module plus one function with an unused local named after `step`: each save's content differs,
    and the final diagnostics show which content was linted."""
    return f"{base}\n\ndef storm_{step}() -> None:\n    storm_value_{step} = {step}\n"


_JS_HEADER = """\
// Stock rows: parsing, totals and tag summaries (generated for lintel's benchmarks).
"""

_JS_SECTION = """
export function parseRow{i}(line) {{
  const parts = line.split(",").map((part) => part.trim());
  if (parts.length < 3) {{
    throw new Error(`line ${{line}}: expected name,quantity,price`);
  }}
  const [name, quantity, price, ...tags] = parts;
  return {{ name, quantity: Number(quantity), price: Number(price), tags }};
}}

export function total{i}(rows) {{
  let sum = 0;
  for (const row of rows) {{
    sum += row.quantity * row.price;
  }}
  return sum;
}}

export function byTag{i}(rows) {{
  const out = new Map();
  for (const row of rows) {{
    for (const tag of row.tags.length ? row.tags : ["untagged"]) {{
      out.set(tag, (out.get(tag) ?? 0) + row.quantity * row.price);
    }}
  }}
  return out;
}}
"""

_JS_FINDINGS = {
    5: """
export function isMissing{i}(value) {{
  return value == null;
}}
""",  # eqeqeq
    12: """
export function rate{i}() {{
  let rate = 0.2;
  return rate;
}}
""",  # prefer-const
    19: """
export function report{i}(rows) {{
  console.log(`${{rows.length}} rows`);
  return rows.length;
}}
""",  # no-console (warning)
    27: """
export function stale{i}(rows) {{
  const unused = rows.length;
  return rows;
}}
""",  # no-unused-vars
    31: """
export function lookup{i}(key) {{
  return catalogue[key];
}}
""",  # no-undef
}
JS_FINDINGS = len(_JS_FINDINGS)


def javascript_module(sections: int = 37) -> str:
    """~27 lines a section: 37 sections make a file of about 1,000 lines."""
    parts = [_JS_HEADER]
    for i in range(sections):
        parts.append(_JS_SECTION.format(i=i))
        if i in _JS_FINDINGS:
            parts.append(_JS_FINDINGS[i].format(i=i))
    return "".join(parts)


@dataclass(frozen=True)
class Workload:
    root: Path  # the workspace folder (and project root)
    file: Path  # the file that is opened and saved

    @property
    def uri(self) -> str:
        return self.file.as_uri()


def python_workspace(parent: Path) -> Workload:
    root = parent / "python"
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    module = root / "inventory_bench.py"
    module.write_text(python_module(), encoding="utf-8")
    return Workload(root, module)


def fixture_node_modules() -> Path:
    """The node fixture's installed packages: in a linked git worktree, which has none of its own, the main
    checkout's (the same lock file)."""
    own = NODE_FIXTURE / "node_modules"
    if own.is_dir():
        return own
    common = subprocess.run(
        ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    main = Path(common).parent / NODE_FIXTURE.relative_to(REPO) / "node_modules" if common else own
    return main if main.is_dir() else own


def node_workspace(parent: Path) -> Workload:
    """A copy of the node fixture (its eslint.config.js, package.json, lock file) sharing its node_modules."""
    root = parent / "node"
    shutil.copytree(NODE_FIXTURE, root, ignore=shutil.ignore_patterns("node_modules"))
    (root / "node_modules").symlink_to(fixture_node_modules(), target_is_directory=True)
    module = root / "src" / "bench_generated.js"
    module.write_text(javascript_module(), encoding="utf-8")
    return Workload(root, module)
