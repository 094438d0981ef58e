"""The docs stay true: their links, anchors and repo paths resolve.

Pages: README.md and docs/**/*.md. Checked, outside fenced code blocks:

* every link and image whose target has no URL scheme: the file or directory
  exists relative to the page, inside the repo, and a `#anchor` into a Markdown page (or the
  page itself) is the GitHub slug of one of its headings;
* every code span that reads as a repo path (no spaces, a `/`, ending in
  `.py`, `.md`, `.mlir`, `.toml`, `.json` or `/`) exists inside the repo;
  `*` globs must match something; absolute paths, URLs, `<placeholder>`
  paths and paths listed in .gitignore (generated) are not checked.
"""

import re
import subprocess
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from bench.__main__ import BENCHMARKS

REPO = Path(__file__).resolve().parents[2]
PATH_SUFFIXES = (".py", ".md", ".mlir", ".toml", ".json", "/")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
MARKDOWN = MarkdownIt("commonmark").enable("table")


def doc_pages(root: Path) -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading's text."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def inline_children(page: Path) -> Iterator[tuple[Token, int]]:
    """Every inline token of a page, with its 1-based line."""
    for block in MARKDOWN.parse(page.read_text(encoding="utf-8")):
        if block.type != "inline" or block.map is None:
            continue
        line = block.map[0] + 1
        for child in block.children or []:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            yield child, line


def anchors(page: Path) -> set[str]:
    """The GitHub anchors of a page's headings (repeats get -1, -2, ...)."""
    tokens = MARKDOWN.parse(page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    for previous, token in pairwise(tokens):
        if previous.type != "heading_open":
            continue
        text = "".join(
            child.content
            for child in token.children or []
            if child.type in ("text", "code_inline")
        )
        slug = github_slug(text)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def exists_inside(root: Path, path: Path) -> bool:
    """Whether a path exists and is inside the repo (not in shared/ beside it)."""
    return path.exists() and path.resolve().is_relative_to(root.resolve())


def link_problem(root: Path, page: Path, target: str) -> str | None:
    """Why a relative link target does not resolve, or None if it does."""
    path, _, anchor = unquote(target).partition("#")
    resolved = (page.parent / path.split("?")[0]) if path else page
    if not exists_inside(root, resolved):
        return f"dead link {target}"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"dead anchor {target}"
    return None


def ignored(root: Path) -> set[str]:
    """The lines of the repo's .gitignore."""
    gitignore = root / ".gitignore"
    return set(gitignore.read_text().split()) if gitignore.exists() else set()


def path_problem(root: Path, token: str) -> str | None:
    """Why a code span that reads as a repo path names nothing, or None."""
    if (
        " " in token
        or "/" not in token
        or not token.endswith(PATH_SUFFIXES)
        or token.startswith(("/", "~"))
        or "://" in token
        or "<" in token
        or token in ignored(root)
    ):
        return None
    if "*" in token:
        return None if any(root.glob(token)) else f"no match for {token}"
    return None if exists_inside(root, root / token) else f"missing path {token}"


def check_page(page: Path, root: Path) -> list[str]:
    """Every problem of one page, as `page:line: message`."""
    name = page.relative_to(root)
    problems: list[str] = []
    for child, line in inline_children(page):
        if child.type == "code_inline":
            problem = path_problem(root, child.content)
        elif child.type in ("link_open", "image"):
            target = str(child.attrs.get("href") or child.attrs.get("src") or "")
            problem = None if SCHEME.match(target) else link_problem(root, page, target)
        else:
            continue
        if problem:
            problems.append(f"{name}:{line}: {problem}")
    return problems


@pytest.mark.slow
def test_docs_have_no_dead_references() -> None:
    problems = [p for page in doc_pages(REPO) for p in check_page(page, REPO)]
    assert not problems, "dead references in the docs:\n" + "\n".join(problems)


def test_checker_catches_dead_links_anchors_and_paths(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "real.py").write_text("")
    (root / ".gitignore").write_text("out/\n")
    (root / "other.md").write_text("# A `code` heading!\n\n## Twice\n## Twice\n")
    page = root / "page.md"
    page.write_text(
        "# Top\n"
        "[ok](other.md#a-code-heading) [ok](other.md#twice-1) [ok](#top)\n"
        "[web](https://example.com/nowhere.md) `./real.py` `out/` `x/*.mlir`\n"
        "[dead](missing.md)\n"
        "![dead](img/none.png) and\n"
        "[dead anchor](other.md#nope) `spec/ir.md`\n"
        "```\n[in a fence](ignored.md)\n```\n"
        "[ref] [outside](../outside.md) `../outside.md`\n\n[ref]: other.md#gone\n"
    )
    assert check_page(page, root) == [
        "page.md:3: no match for x/*.mlir",
        "page.md:4: dead link missing.md",
        "page.md:5: dead link img/none.png",
        "page.md:6: dead anchor other.md#nope",
        "page.md:6: missing path spec/ir.md",
        "page.md:10: dead anchor other.md#gone",
        "page.md:10: dead link ../outside.md",
        "page.md:10: missing path ../outside.md",
    ]


API_IMPORT = re.compile(r"^(from|import) (pypto_dialect|passes|xdsl)\b", re.MULTILINE)


def api_examples(page: Path) -> list[str]:
    """The fenced Python blocks of a page that use the project's or xDSL's API."""
    tokens = MARKDOWN.parse(page.read_text(encoding="utf-8"))
    return [
        token.content
        for token in tokens
        if token.type == "fence"
        and token.info.strip() == "python"
        and API_IMPORT.search(token.content)
    ]


@pytest.mark.parametrize(
    "page",
    [page for page in doc_pages(REPO) if api_examples(page)],
    ids=lambda page: str(page.relative_to(REPO)),
)
def test_api_examples_run(
    page: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page's API examples run, in order, in one namespace, from the repo's root."""
    monkeypatch.chdir(REPO)
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    for number, example in enumerate(api_examples(page), 1):
        code = compile(example, f"{page.name}, example {number}", "exec")
        exec(code, namespace)
    capsys.readouterr()


def test_api_examples_are_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nfrom passes import get_all_passes\n```\n"
        "```python\n@pl.program\nclass A: ...\n```\n"
        "```sh\nimport xdsl\n```\n"
        "```python\nx = 1\nimport xdsl.ir\n```\n"
    )
    assert api_examples(page) == [
        "from passes import get_all_passes\n",
        "x = 1\nimport xdsl.ir\n",
    ]


# --------------------------------------------------------------------------- #
# The site, the limits of the pages, what they may cite
# --------------------------------------------------------------------------- #

LIMITS = {"README.md": 150, "docs/performance.md": 300, "CHANGELOG.md": 100}
"""Pages and their most lines."""
DOCS_BYTES = 1_000_000
"""The most bytes `docs/` may hold (pages, images, run data)."""
BENCH_COMMAND = re.compile(r"python -m bench(?: +([a-z][\w-]*))?")
DATED_HEADING = re.compile(r"^#+ .*\b\d{4}-\d{2}-\d{2}\b", re.MULTILINE)


def all_pages(root: Path) -> list[Path]:
    """The doc pages and the CHANGELOG."""
    return [*doc_pages(root), root / "CHANGELOG.md"]


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a broken link or anchor, or a page left out, fails."""
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "index.html").is_file()


@pytest.mark.parametrize(("page", "most"), LIMITS.items())
def test_pages_stay_short(page: str, most: int) -> None:
    lines = (REPO / page).read_text(encoding="utf-8").count("\n")
    assert lines <= most, f"{page}: {lines} lines, at most {most}"


def test_docs_stay_under_a_megabyte() -> None:
    size = sum(
        path.stat().st_size for path in (REPO / "docs").rglob("*") if path.is_file()
    )
    assert size <= DOCS_BYTES, f"docs/ holds {size:,} bytes, at most {DOCS_BYTES:,}"


def bench_problems(text: str) -> list[str]:
    """The `python -m bench NAME` of `text` that name no benchmark."""
    return [
        f"python -m bench {name}"
        for name in BENCH_COMMAND.findall(text)
        if name and name not in BENCHMARKS
    ]


def test_every_bench_command_named_exists() -> None:
    problems = [
        f"{page.relative_to(REPO)}: {problem}"
        for page in all_pages(REPO)
        for problem in bench_problems(page.read_text(encoding="utf-8"))
    ]
    assert not problems


def test_bench_checker_catches_an_unknown_name() -> None:
    text = "`python -m bench suite --smoke`, `python -m bench` and `python -m bench.orders`"
    assert bench_problems(text) == []
    assert bench_problems("python -m bench nope --x") == ["python -m bench nope"]


def test_pages_cite_nothing_outside_the_repository_nor_dated_logs() -> None:
    for page in all_pages(REPO):
        text = page.read_text(encoding="utf-8")
        assert "/shared" not in text, page
        assert not DATED_HEADING.search(text), f"{page}: a dated heading"


def test_every_image_and_run_is_shown_and_made_by_a_command() -> None:
    """Each image is shown by a page, and a page names the command writing it."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in all_pages(REPO))
    for path in sorted((REPO / "docs" / "images").iterdir()):
        assert (
            f"](images/{path.name})" in text or f"](docs/images/{path.name})" in text
        ), path
        assert re.search(
            rf"-o\s+docs/images/{re.escape(path.name)}|--plot\s+docs/images/{re.escape(path.name)}",
            text,
        ), path
    for path in sorted((REPO / "docs" / "runs").iterdir()):
        assert f"docs/runs/{path.name}" in text, path
