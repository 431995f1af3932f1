"""Facts about lintel's own code that anyone can check: no import circles inside server/lintel, the layers
imported only downwards, no module over 600 lines, no function over 80.

The import graph is built statically (ast), so it sees every import, not only those one run happens to execute:
a function-local import is an edge (it runs, just later), and so is an import under `if TYPE_CHECKING:` — it never
runs, but a circle or an upward reference through it is still one in the design. Edges go to the module named; a
package's `__init__` counts only when it is the module imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

LINTEL = Path(__file__).resolve().parents[2] / "server" / "lintel"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path) -> str:
    """server/lintel/frontends/lsp/app.py -> lintel.frontends.lsp.app; a package's __init__.py -> the package."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_of(root: Path) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, *, type_checking: bool = True) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import, in functions too; without `type_checking` only those that can run (the body of
    `if TYPE_CHECKING:` skipped, its else kept)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
        return
    if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
        children: list[ast.AST] = list(node.orelse)
    else:
        children = list(ast.iter_child_nodes(node))
    for child in children:
        yield from _imports(child, type_checking=type_checking)


def _base(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom names (`from ..x import y` inside lintel.a.b -> lintel.x)."""
    if node.level == 0:
        return node.module or ""
    package = name.split(".") if is_package else name.split(".")[:-1]
    anchor = package[: len(package) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _targets(name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = _base(name, is_package, node)
    # `from pkg import submodule` imports the submodule; `from module import name` the module.
    return {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names}


def import_graph(root: Path, *, type_checking: bool = True) -> Graph:
    """module -> the modules of the same tree it imports (without `type_checking`: at run time only)."""
    modules = modules_of(root)
    known = set(modules)
    graph: Graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in _imports(tree, type_checking=type_checking):
            edges |= {target for target in _targets(name, is_package, node, known) if target in known}
        graph[name] = edges - {name}
    return graph


def strongly_connected(graph: Graph) -> list[list[str]]:
    """Tarjan's components (iterative, so deep graphs do not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph.get(succ, ())))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(sorted(component))
    return found


def shortest_cycle(graph: Graph, component: list[str]) -> list[str]:
    """One circle through the component's first module, shortest first (breadth-first inside the component)."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for succ in sorted(graph[node] & members):
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if succ not in previous:
                    previous[succ] = node
                    following.append(succ)
        frontier = following
    raise AssertionError(f"{component} is not a circle")


def cycles(graph: Graph) -> list[list[str]]:
    return [shortest_cycle(graph, c) for c in strongly_connected(graph) if len(c) > 1]


def long_functions(path: Path) -> Iterator[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                yield f"{path.relative_to(LINTEL.parent)}:{node.lineno} {node.name}", lines


# -- lintel itself ---------------------------------------------------------------------------------------


def test_no_import_circles_in_lintel() -> None:
    graph = import_graph(LINTEL)
    tangles = [c for c in strongly_connected(graph) if len(c) > 1]
    report = [f"{' -> '.join(shortest_cycle(graph, c))}  (all tangled: {', '.join(c)})" for c in tangles]
    assert not tangles, "import circles:\n" + "\n".join(report)


def package_graph(graph: Graph) -> Graph:
    """The same imports between lintel's top-level modules and packages (lintel.frontends.lsp.app -> lintel.server)."""
    top: Graph = {}
    for module, targets in graph.items():
        home = ".".join(module.split(".")[:2])
        top.setdefault(home, set()).update(".".join(t.split(".")[:2]) for t in targets)
    return {home: targets - {home} for home, targets in top.items()}


def test_no_import_circles_between_lintels_packages() -> None:
    """server/ may use proxy/, never the other way round (positions.py sits below both for that)."""
    found = cycles(package_graph(import_graph(LINTEL)))
    assert not found, "circles between packages:\n" + "\n".join(" -> ".join(c) for c in found)


# Bottom to top: a module imports its own layer or a lower one (lintel/__init__ and __main__ stand outside).
LAYERS = ("lintel.core", "lintel.runtime", "lintel.languages", "lintel.engine", "lintel.frontends")


def layer_of(module: str, layers: tuple[str, ...] = LAYERS) -> int | None:
    for rank, layer in enumerate(layers):
        if module == layer or module.startswith(f"{layer}."):
            return rank
    return None


def upward_imports(graph: Graph, layers: tuple[str, ...] = LAYERS) -> list[tuple[str, str]]:
    """(importer, imported) where the imported module sits in a higher layer than its importer."""
    upward = []
    for module, targets in sorted(graph.items()):
        rank = layer_of(module, layers)
        if rank is None:
            continue
        for target in sorted(targets):
            above = layer_of(target, layers)
            if above is not None and above > rank:
                upward.append((module, target))
    return upward


def test_every_layer_imports_only_its_own_or_lower_ones() -> None:
    graph = import_graph(LINTEL)
    assert all(layer_of(m) is not None for m in graph if m not in ("lintel", "lintel.__main__")), sorted(
        m for m in graph if layer_of(m) is None
    )
    upward = upward_imports(graph)
    assert not upward, "imports of a higher layer:\n" + "\n".join(f"{a} -> {b}" for a, b in upward)


def test_no_module_over_600_lines() -> None:
    long = {
        str(path.relative_to(LINTEL.parent)): n
        for path in LINTEL.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_over_80_lines() -> None:
    long = dict(item for path in sorted(LINTEL.rglob("*.py")) for item in long_functions(path))
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


# -- the graph builder, on a package made for it -------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "from pkg import b\n",  # a submodule by `from package import name`
    "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n",  # an edge (typing only)
    "pkg/c.py": "def later():\n    from .sub.d import thing\n",  # function-local and relative: an edge
    "pkg/sub/__init__.py": "from .. import c\n",  # relative from a package's __init__
    "pkg/sub/d.py": "import pkg.a\nimport os\nthing = 1\n",
    "pkg/e.py": "import typing\nif typing.TYPE_CHECKING:\n    import pkg.a\nelse:\n    import pkg.b\n",
}


def test_builder_resolves_each_kind_of_import(tmp_path: Path) -> None:
    root = write(tmp_path, PACKAGE) / "pkg"
    graph = import_graph(root, type_checking=False)
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.b"},
        "pkg.b": set(),
        "pkg.c": {"pkg.sub.d"},
        "pkg.sub": {"pkg.c"},
        "pkg.sub.d": {"pkg.a"},
        "pkg.e": {"pkg.b"},
    }
    assert cycles(graph) == []
    # The imports only a type checker reads are edges too: a circle through one is still a circle.
    assert import_graph(root) == {**graph, "pkg.b": {"pkg.c"}, "pkg.e": {"pkg.a", "pkg.b"}}
    assert cycles(import_graph(root)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.sub.d", "pkg.a"]]


def test_a_lower_layer_importing_a_higher_one_is_found(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import b\n",
        "pkg/high/__init__.py": "",
        "pkg/high/b.py": "from pkg.low import a\n",
    }
    graph = import_graph(write(tmp_path, files) / "pkg")
    assert upward_imports(graph, ("pkg.low", "pkg.high")) == [("pkg.low.a", "pkg.high.b")]
    assert upward_imports(graph, ("pkg.high", "pkg.low")) == [("pkg.high.b", "pkg.low.a")]


def test_packages_tangle_when_their_modules_do_not(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.sub import y\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/x.py": "from .. import a\n",
        "pkg/sub/y.py": "",
    }
    graph = import_graph(write(tmp_path, files) / "pkg")
    assert cycles(graph) == []  # sub.x -> a -> sub.y
    top = package_graph(graph)
    assert top == {"pkg": set(), "pkg.a": {"pkg.sub"}, "pkg.sub": {"pkg.a"}}
    assert cycles(top) == [["pkg.a", "pkg.sub", "pkg.a"]]


def test_builder_reports_a_circle_with_its_path(tmp_path: Path) -> None:
    files = {**PACKAGE, "pkg/b.py": "from .c import later\n"}  # b -> c -> sub.d -> a -> b
    found = cycles(import_graph(write(tmp_path, files) / "pkg"))
    assert found == [["pkg.a", "pkg.b", "pkg.c", "pkg.sub.d", "pkg.a"]]
