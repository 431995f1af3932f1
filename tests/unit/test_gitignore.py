"""The .gitignore matcher: each rule of `man gitignore` on its own, then whole trees against `git check-ignore`."""

from __future__ import annotations

import logging
import os
import random
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest
from lintel.core.gitignore import GITIGNORE, IgnoreRules, is_ignored, parse, parse_line


def build(root: Path, entries: Iterable[str], contents: Mapping[str, str | bytes] | None = None) -> Path:
    """Folders (a trailing `/`) and empty files under `root`, then the files in `contents` with their text."""
    for entry in entries:
        path = root / entry
        if entry.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
    for name, content in (contents or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return root


def walk(root: Path) -> tuple[set[str], set[str]]:
    """Every path under `root` (folders with a trailing `/`, `.git` left out) and the ignored ones, found the way
    project discovery walks: top-down, each folder's rules from its listing, ignored folders not entered (all
    their contents count as ignored)."""
    everything: set[str] = set()
    ignored: set[str] = set()
    stack = [(root, "", IgnoreRules.at_root(root))]
    while stack:
        folder, rel, rules = stack.pop()
        with os.scandir(folder) as listing:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in listing if e.name != ".git"]
        rules = rules.descend(folder, rel, [name for name, is_dir in entries if not is_dir])
        for name, is_dir in entries:
            child = f"{rel}/{name}" if rel else name
            everything.add(child + "/" if is_dir else child)
            if not rules.ignored(child, is_dir):
                if is_dir:
                    stack.append((folder / name, child, rules))
                continue
            ignored.add(child + "/" if is_dir else child)
            if is_dir:
                inside = below(folder / name, child)
                everything |= inside
                ignored |= inside
    return everything, ignored


def below(folder: Path, rel: str) -> set[str]:
    paths: set[str] = set()
    for current, dirs, files in os.walk(folder):
        prefix = rel + current[len(str(folder)) :]
        paths.update(f"{prefix}/{d}/" for d in dirs)
        paths.update(f"{prefix}/{f}" for f in files)
    return paths


def git_env(scratch: Path) -> dict[str, str]:
    """No global or system git configuration: a user's core.excludesFile must not change git's answers."""
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }


def git_ignored(root: Path, paths: Iterable[str], env: Mapping[str, str]) -> set[str]:
    """The paths `git check-ignore` reports as ignored (folders asked about without their trailing `/`)."""
    asked = {path.rstrip("/"): path for path in paths}
    stdin = b"\0".join(os.fsencode(path) for path in asked)
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "-z", "--stdin"],
        cwd=root,
        input=stdin,
        capture_output=True,
        env=dict(env),
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr.decode(errors="replace")
    return {asked[os.fsdecode(path)] for path in result.stdout.split(b"\0") if path}


def git_init(root: Path, env: Mapping[str, str]) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=dict(env), capture_output=True)


def check(tmp_path: Path, text: str | bytes, *paths: str) -> set[str]:
    """A tree holding `paths` and a root .gitignore of `text`; which of `paths` is ignored (a trailing `/` marks a
    folder)."""
    root = build(tmp_path / "tree", paths, {GITIGNORE: text})
    return {path for path in paths if is_ignored(root, path.rstrip("/"), path.endswith("/"))}


# --- each rule -------------------------------------------------------------------------------------------------


def test_blank_lines_and_comments_match_nothing(tmp_path: Path) -> None:
    text = "# a comment\n\n   \n#hash\n"
    assert check(tmp_path, text, "# a comment", "#hash", "a comment") == set()


def test_escaped_hash_and_bang_are_literal(tmp_path: Path) -> None:
    text = "\\#hash\n\\!bang\n"
    assert check(tmp_path, text, "#hash", "!bang", "hash", "bang") == {"#hash", "!bang"}


def test_a_hash_inside_a_line_is_part_of_the_pattern(tmp_path: Path) -> None:
    assert check(tmp_path, "a#b\n", "a#b", "a") == {"a#b"}


def test_trailing_spaces_are_trimmed_unless_escaped(tmp_path: Path) -> None:
    text = "plain   \nquoted\\ \nboth\\  \n"
    paths = ("plain", "plain   ", "quoted", "quoted ", "both", "both ", "both  ")
    assert check(tmp_path, text, *paths) == {"plain", "quoted ", "both "}


def test_tabs_are_not_trimmed_and_crlf_is(tmp_path: Path) -> None:
    assert check(tmp_path, "tab\t\r\ncrlf\r\n", "tab", "tab\t", "crlf") == {"tab\t", "crlf"}


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    assert check(tmp_path, "\ufeffbom\n", "bom") == {"bom"}


def test_negation_re_includes_and_the_last_match_wins(tmp_path: Path) -> None:
    assert check(tmp_path, "*.log\n!keep.log\n", "a.log", "keep.log") == {"a.log"}
    assert check(tmp_path / "2", "!keep.log\n*.log\n", "a.log", "keep.log") == {"a.log", "keep.log"}
    assert check(tmp_path / "3", "same\n!same\nname\n!n*e\n", "same", "name") == set()


def test_a_later_name_pattern_outranks_an_earlier_path_pattern(tmp_path: Path) -> None:
    assert check(tmp_path, "gen/*.js\n!*.min.js\n", "gen/a.js", "gen/a.min.js") == {"gen/a.js"}
    assert check(tmp_path / "2", "*.js\n!gen/*.min.js\n", "gen/a.js", "gen/a.min.js") == {"gen/a.js"}


def test_a_file_in_an_excluded_folder_cannot_be_re_included(tmp_path: Path) -> None:
    text = "build/\n!build/keep.txt\n"
    assert check(tmp_path, text, "build/keep.txt", "build/other.txt") == {"build/keep.txt", "build/other.txt"}
    # Excluding the folder's contents instead of the folder leaves the re-inclusion possible.
    text = "/build/*\n!/build/keep.txt\n"
    assert check(tmp_path / "2", text, "build/keep.txt", "build/other.txt") == {"build/other.txt"}


def test_a_leading_slash_anchors_to_the_files_folder(tmp_path: Path) -> None:
    assert check(tmp_path, "/top\n", "top", "sub/top") == {"top"}


def test_a_middle_slash_anchors_too(tmp_path: Path) -> None:
    assert check(tmp_path, "doc/frotz\n", "doc/frotz", "a/doc/frotz") == {"doc/frotz"}


def test_without_a_slash_the_name_matches_at_any_depth(tmp_path: Path) -> None:
    assert check(tmp_path, "frotz\n", "frotz", "a/frotz", "a/b/frotz/", "frotzz") == {
        "frotz",
        "a/frotz",
        "a/b/frotz/",
    }


def test_a_trailing_slash_matches_folders_only(tmp_path: Path) -> None:
    paths = ("out/", "a/out/", "b/out", "x/y/", "x/y2")
    assert check(tmp_path, "out/\nx/y/\n", *paths) == {"out/", "a/out/", "x/y/"}


def test_star_and_question_mark_do_not_cross_a_slash(tmp_path: Path) -> None:
    paths = ("d/x.c", "d/e/x.c", "a.q", "ab.q", "d/e/q")
    assert check(tmp_path, "d/*.c\n?.q\nd?e/q\n", *paths) == {"d/x.c", "a.q"}


@pytest.mark.parametrize(
    ("pattern", "matching", "other"),
    [
        ("[ab].c", ["a.c", "b.c"], ["c.c", "ab.c"]),
        ("[!ab].c", ["c.c", "-.c"], ["a.c", "b.c"]),
        ("[^ab].c", ["c.c"], ["a.c"]),
        ("[a-c]1", ["a1", "b1", "c1"], ["d1", "-1"]),
        ("[]x]2", ["]2", "x2"], ["a2"]),
        ("[!]x]3", ["a3"], ["]3", "x3"]),
        ("[a-]4", ["a4", "-4"], ["b4"]),
        ("[\\]]5", ["]5"], ["\\5"]),
        ("[[:digit:]]6", ["16"], ["a6"]),
        ("[[:upper:][:punct:]]7", ["A7", "_7"], ["a7", "17"]),
        ("[z-a]8", ["z8"], ["a8", "m8"]),
    ],
)
def test_brackets(tmp_path: Path, pattern: str, matching: list[str], other: list[str]) -> None:
    assert check(tmp_path, pattern + "\n", *matching, *other) == set(matching)


def test_a_bracket_never_matches_the_slash_between_folders(tmp_path: Path) -> None:
    assert check(tmp_path, "d/a[/]b\nd/a[!x]c\n", "d/a/b", "d/a/c", "d/ayc") == {"d/ayc"}


@pytest.mark.parametrize("pattern", ["a[b", "a[[:nope:]]", "trailing\\", "!", "/"])
def test_patterns_that_can_never_match(pattern: str) -> None:
    assert parse_line(pattern) is None


def test_leading_double_star_matches_in_every_folder(tmp_path: Path) -> None:
    paths = ("foo", "a/foo", "a/b/foo", "bar/x", "a/bar/x", "a/b/bar/x", "a/bar/y/x")
    assert check(tmp_path, "**/foo\n**/bar/x\n", *paths) == {"foo", "a/foo", "a/b/foo", "bar/x", "a/bar/x", "a/b/bar/x"}


def test_trailing_double_star_matches_everything_inside(tmp_path: Path) -> None:
    paths = ("abc/", "abc/x", "abc/d/y", "xabc/z")
    assert check(tmp_path, "abc/**\n!abc/keep\n", *paths, "abc/keep") == {"abc/x", "abc/d/y"}


def test_inner_double_star_matches_zero_or_more_folders(tmp_path: Path) -> None:
    paths = ("a/b", "a/x/b", "a/x/y/b", "xa/b", "a/xb")
    assert check(tmp_path, "a/**/b\n", *paths) == {"a/b", "a/x/b", "a/x/y/b"}


def test_a_double_star_right_after_the_literal_start_leads(tmp_path: Path) -> None:
    # git compares `d/a` on its own and matches `**` against the rest: a leading `**`, which crosses folders.
    paths = ("d/ab/c/f", "d/ab/", "e/y", "e/xq/r/y", "e/x/y", "f/a/b", "f/a/c/b", "f/ab")
    expected = {"d/ab/c/f", "d/ab/", "e/xq/r/y", "e/x/y", "f/a/b", "f/a/c/b", "f/ab"}
    assert check(tmp_path, "d/a**\ne/x**/y\nf/a**/b\n", *paths) == expected
    # After another wildcard it is an ordinary `*` again.
    assert check(tmp_path / "2", "d/?a**/b\n", "d/xa/b", "d/xay/b", "d/xa/y/b") == {"d/xa/b", "d/xay/b"}


def test_other_double_stars_are_single_stars(tmp_path: Path) -> None:
    # `**x` is `*x`: it stays inside one folder name.
    paths = ("d/ab", "d/axxb", "d/ax/b", "d/ax/y/b", "d/x/b", "d/y/x/b")
    assert check(tmp_path, "d/a**b\nd/**x/b\n", *paths) == {"d/ab", "d/axxb", "d/ax/b", "d/x/b"}


def test_nested_gitignore_patterns_are_relative_to_its_folder(tmp_path: Path) -> None:
    root = build(
        tmp_path,
        ["x", "sub/x", "sub/deeper/x", "sub/y/z", "y/z", "sub/n", "sub/deeper/n"],
        {"sub/.gitignore": "/x\ny/z\nn\n"},
    )
    got = {
        p
        for p in ("x", "sub/x", "sub/deeper/x", "sub/y/z", "y/z", "sub/n", "sub/deeper/n")
        if is_ignored(root, p, False)
    }
    assert got == {"sub/x", "sub/y/z", "sub/n", "sub/deeper/n"}


def test_a_deeper_gitignore_outranks_a_shallower_one(tmp_path: Path) -> None:
    root = build(
        tmp_path, ["a.log", "sub/a.log", "sub/deeper/a.log"], {".gitignore": "*.log\n", "sub/.gitignore": "!*.log\n"}
    )
    assert [is_ignored(root, p, False) for p in ("a.log", "sub/a.log", "sub/deeper/a.log")] == [True, False, False]


def test_info_exclude_counts_below_every_gitignore(tmp_path: Path) -> None:
    root = build(
        tmp_path,
        ["excluded", "kept", "sub/kept"],
        {".git/info/exclude": "excluded\nkept\n", ".gitignore": "!kept\n", "sub/.gitignore": "# nothing\n"},
    )
    assert [is_ignored(root, p, False) for p in ("excluded", "kept", "sub/kept")] == [True, False, False]


def test_no_exclude_file_when_git_is_a_file(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = build(tmp_path, ["a"], {".git": "gitdir: /elsewhere\n"})
    with caplog.at_level(logging.DEBUG, logger="lintel.core.gitignore"):
        assert not IgnoreRules.at_root(root).ignored("a", False)
    assert caplog.records == []


def test_non_utf8_patterns_match_the_names_they_were_written_for(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9")
    root = build(tmp_path, [name, "cafe"], {".gitignore": b"# caf\xe9\ncaf\xe9\n"})
    assert [is_ignored(root, n, False) for n in (name, "cafe")] == [True, False]


def test_an_unreadable_gitignore_is_skipped_and_logged_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = build(tmp_path, ["sub/.gitignore/", "sub/a", "a"], {".gitignore": "a\n"})
    rules = IgnoreRules.at_root(root)
    with caplog.at_level(logging.WARNING, logger="lintel.core.gitignore"):
        inside = rules.descend(root / "sub", "sub", [GITIGNORE, "a"])
        assert inside.ignored("sub/a", False)
    assert [r.getMessage().count(str(root / "sub" / GITIGNORE)) for r in caplog.records] == [1]


def test_descend_is_free_when_a_folder_adds_nothing(tmp_path: Path) -> None:
    root = build(tmp_path, ["sub/a"], {".gitignore": "a\n"})
    rules = IgnoreRules.at_root(root)
    assert rules.descend(root / "sub", "sub", ["a"]) is rules
    # The walk hands the root's own listing to descend too: the root's .gitignore is not read twice.
    assert rules.descend(root, "", [GITIGNORE]) is rules
    assert IgnoreRules().descend(root, "", [GITIGNORE]).ignored("a", False)


def test_no_rules_ignore_nothing(tmp_path: Path) -> None:
    rules = IgnoreRules.at_root(tmp_path)
    assert not rules.ignored("anything", True)
    assert not rules.ignored("a/b", False)


def test_parse_reads_lines_as_git(tmp_path: Path) -> None:
    patterns = parse("\ufeff# c\n\n!/a/b/\r\nc \n")
    assert [(p.negated, p.dir_only, p.basename) for p in patterns] == [(True, True, False), (False, False, True)]


# --- against git -----------------------------------------------------------------------------------------------

# Every rule above in one tree, with nested files that re-include, anchor and override each other.
TRICKY_FILES: dict[str, str] = {
    ".git/info/exclude": "from-info\noverridden\n*.info\n",
    ".gitignore": (
        "# comment\n"
        "\n"
        "\\#hash\n"
        "\\!bang\n"
        "*.log\n"
        "!keep.log\n"
        "/anchored\n"
        "mid/dir/file.txt\n"
        "build/\n"
        "!build/rescued.txt\n"
        "docs/**/gen\n"
        "/deep/**\n"
        "!/deep/kept/\n"
        "**/cache\n"
        "trail\\ \n"
        "spaces   \n"
        "*.tmp/\n"
        "[abc]x\n"
        "[!abc]y\n"
        "?q\n"
        "nested/only/\n"
        "a**b\n"
        "out/*\n"
        "!out/keep\n"
        "[[:digit:]]num\n"
        "!overridden\n"
        "!*.info\n"
        "tab\t\n"
        "crlf\r\n"
        "!/sub/inner/\n"
        "gen/*.js\n"
        "!*.min.js\n"
        "pics/*.png\n"
        "pics/a[!x]b\n"
        "twice\n"
        "!twice\n"
        "cache.db\n"
        "!*.db\n"
        "tools/x**/y\n"
    ),
    "sub/.gitignore": "!*.log\n/local\nx/y\n*.txt\n!important.txt\nspaces\\ \n",
    "sub/inner/.gitignore": "*\n!*/\n!*.py\n",
    "docs/.gitignore": "!a/gen\n/**/skip/\n",
}
TRICKY_PATHS = [
    "#hash", "!bang", "hash", "bang", "a.log", "keep.log", "sub/a.log", "sub/deeper/b.log",
    "anchored", "sub/anchored", "mid/dir/file.txt", "x/mid/dir/file.txt",
    "build/rescued.txt", "build/other.c", "src/build", "docs/gen", "docs/a/gen", "docs/b/c/gen", "xdocs/a/gen",
    "docs/skip/f", "docs/a/skip/f", "docs/a/skip", "deep/one", "deep/kept/two", "deep/sub/three",
    "cache/f", "a/cache/f", "a/b/cache", "trail ", "trail", "spaces", "spaces   ", "sub/spaces ", "sub/spaces",
    "x.tmp/f", "y.tmp", "ax", "dx", "ay", "by", "zq", "zzq", "nested/only/f", "only/f", "other/nested/only/f",
    "ab", "axxb", "a/b/f", "out/keep", "out/drop", "out/sub/keep", "1num", "xnum", "from-info", "overridden",
    "x.info", "tab\t", "tab", "crlf", "sub/local", "sub/x/y", "sub/z/x/y", "sub/notes.txt", "sub/important.txt",
    "notes.txt", "sub/inner/a.py", "sub/inner/b.js", "sub/inner/d/c.py", "sub/inner/d/e.js",
    "gen/a.js", "gen/a.min.js", "pics/a.png", "pics/x/b.png", "pics/a/b", "pics/ayb",
    "twice", "sub/twice", "cache.db", "other.db", "tools/x/y", "tools/y", "tools/xq/r/y", "tools/q/x/y",
]  # fmt: skip


@pytest.mark.tool("git")
def test_tricky_tree_agrees_with_git(tmp_path: Path) -> None:
    env = git_env(tmp_path)
    root = tmp_path / "repo"
    git_init(root, env)
    build(root, TRICKY_PATHS, TRICKY_FILES)
    everything, ignored = walk(root)
    expected = git_ignored(root, everything, env)
    assert len(expected) > 30  # the tree exercises the rules, not just a couple of them
    assert ignored == expected, {"ignored only by lintel": ignored - expected, "only by git": expected - ignored}
    # One path at a time, as `git check-ignore` answers: each folder above it first.
    one_by_one = {p for p in everything if is_ignored(root, p.rstrip("/"), p.endswith("/"))}
    assert one_by_one == expected, {"only lintel": one_by_one - expected, "only git": expected - one_by_one}


NAMES = ["a", "b", "ab", "ba", "c", "a.log", "b.txt", "1x", "Xa", "a b", "#c", "!d", "]", "-", "a-", "A"]
SEGMENTS = [
    "a", "b", "ab", "*", "*.log", "a*", "*a", "?", "?b", "[ab]", "[!a]*", "[a-c]*", "**", "**", "b.txt", "X?",
    "[[:upper:]]*", "\\#c", "\\!d", "a\\ b", "[0-9]x", "***", "a**", "**b", "[]a]*", "[!]]*", "[a-]", "[^b]",
    "[[:alpha:]]", "[[:punct:]]*", "\\*", "[\\]]", "a[", "[z-a]", "a\\ ",
]  # fmt: skip


def random_pattern(rng: random.Random) -> str:
    segments = [rng.choice(SEGMENTS) for _ in range(rng.choice((1, 1, 2, 2, 3)))]
    pattern = "/".join(segments)
    if rng.random() < 0.25:
        pattern = "/" + pattern
    if rng.random() < 0.25:
        pattern += "/"
    if rng.random() < 0.3:
        pattern = "!" + pattern
    if rng.random() < 0.1:
        pattern += "  "
    return pattern


def random_tree(rng: random.Random, rel: str, depth: int, paths: list[str], files: dict[str, str]) -> None:
    if rng.random() < (0.8 if depth == 0 else 0.4):
        lines = [random_pattern(rng) for _ in range(rng.randint(1, 6))]
        files[f"{rel}{GITIGNORE}"] = "\n".join(lines) + "\n"
    for name in rng.sample(NAMES, rng.randint(2, 5)):
        if depth < 3 and rng.random() < 0.5:
            random_tree(rng, f"{rel}{name}/", depth + 1, paths, files)
        else:
            paths.append(f"{rel}{name}")
    paths.append(rel or "./")


@pytest.mark.tool("git")
def test_random_trees_agree_with_git(tmp_path: Path) -> None:
    env = git_env(tmp_path)
    disagreements = []
    ignored_total = 0
    for seed in range(80):
        rng = random.Random(seed)
        paths: list[str] = []
        files: dict[str, str] = {}
        random_tree(rng, "", 0, paths, files)
        if rng.random() < 0.3:
            files[".git/info/exclude"] = random_pattern(rng) + "\n"
        root = tmp_path / f"tree{seed}"
        git_init(root, env)
        build(root, paths, files)
        everything, ignored = walk(root)
        expected = git_ignored(root, everything, env)
        ignored_total += len(expected)
        if ignored != expected:
            disagreements.append((seed, files, sorted(ignored - expected), sorted(expected - ignored)))
    assert disagreements == []
    assert ignored_total > 200  # the patterns do hit
