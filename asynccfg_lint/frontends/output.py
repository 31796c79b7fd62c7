"""Output formats of ``asynccfg-lint check``: text, concise, full, json, grouped, github, sarif, and ``--statistics``.

Every format prints the same :class:`~asynccfg_lint.diagnostics.Diagnostic` data; positions
are 1-based lines and 1-based character columns throughout (SARIF's ``columnKind`` says so).
``text`` is flake8's output exactly (the flake8 plugin prints the same lines); ``concise``,
``full`` and ``grouped`` are ruff's text formats: a ``[*]`` after the code of a fixable
diagnostic and ruff's closing summary (:func:`closing_summary`).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

from asynccfg_lint import __version__
from asynccfg_lint.diagnostics import Coverage, Diagnostic
from asynccfg_lint.rules import RULES, RULES_BY_CODE, severity

FORMATS = ("text", "concise", "full", "json", "grouped", "github", "sarif")
#: ruff's text formats, which end with the closing summary (``Found 7 errors.``)
SUMMARY_FORMATS = ("concise", "full", "grouped")
#: formats ``--statistics`` can print in (as ruff: a table, or JSON)
STATISTICS_FORMATS = ("text", "json")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

#: path -> the file's source (bytes as read, or text), for ``--show-source``
Sources = Mapping[str, "bytes | str"]
_NO_SOURCES: Sources = MappingProxyType({})


#: is a diagnostic's fix applied by ``--fix`` (a safe fix; with ``--unsafe-fixes`` any fix)
Fixable = Callable[[Diagnostic], bool]


def safe_fix(diagnostic: Diagnostic) -> bool:
    """True when the diagnostic has a safe fix (what ``--fix`` applies without ``--unsafe-fixes``)."""
    return diagnostic.fix is not None and diagnostic.fix.safety == "safe"


def any_fix(diagnostic: Diagnostic) -> bool:
    """True when the diagnostic has a fix (what ``--fix --unsafe-fixes`` applies)."""
    return diagnostic.fix is not None


def level(code: str) -> str:
    """The severity a code is reported with (``error`` or ``warning``): its rule module's ``SEVERITY``."""
    return severity(code)


def source_lines(source: bytes | str) -> list[str]:
    """Split a file's source into physical lines as Python's tokenizer does (a form feed is no break).

    Bytes are decoded as :func:`source_text` decodes them.
    """
    return _LINE_BREAK.split(source_text(source))


def source_text(source: bytes | str) -> str:
    """A file's source as text: bytes decoded as Python decodes source (BOM, PEP 263 cookie, else
    UTF-8), undecodable bytes as U+FFFD, without the BOM."""
    if isinstance(source, bytes):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        except SyntaxError:
            encoding = "utf-8"
        try:
            text = source.decode(encoding, errors="replace")
        except LookupError:
            text = source.decode("utf-8", errors="replace")
        return text.removeprefix("\ufeff")
    return source


def _source_excerpt(diagnostic: Diagnostic, sources: Sources, indent: str = "") -> list[str]:
    """The diagnostic's first line of source and a caret under its column (flake8's ``--show-source``)."""
    source = sources.get(diagnostic.path)
    if source is None:
        return []
    lines = source_lines(source)
    if not 1 <= diagnostic.line <= len(lines):
        return []
    line = lines[diagnostic.line - 1]
    # keep tabs, so the caret lines up however the terminal expands them
    padding = "".join(c if c.isspace() else " " for c in line[: diagnostic.column - 1])
    return [indent + line, indent + padding + "^"]


def render_text(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False,
                fixable: Fixable = safe_fix) -> str:
    """flake8's ``path:line:col: CODE message``, each followed by its source line and a caret with ``show_source``."""
    out: list[str] = []
    for diagnostic in diagnostics:
        out.append(diagnostic.to_text())
        if show_source:
            out.extend(_source_excerpt(diagnostic, sources))
    return "".join(line + "\n" for line in out)


def _marked(diagnostic: Diagnostic, fixable: Fixable) -> str:
    """``CODE [*] message`` for a fixable diagnostic, ``CODE message`` otherwise (ruff's rows)."""
    return f"{diagnostic.code} [*] {diagnostic.message}" if fixable(diagnostic) else f"{diagnostic.code} {diagnostic.message}"


def render_concise(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False,
                   fixable: Fixable = safe_fix) -> str:
    """ruff's ``concise``: ``path:line:col: CODE [*] message`` (``[*]``: fixable), with ``show_source`` as ``full``."""
    out: list[str] = []
    for d in diagnostics:
        out.append(f"{d.path}:{d.line}:{d.column}: {_marked(d, fixable)}")
        if show_source:
            out.extend(_source_excerpt(d, sources))
    return "".join(line + "\n" for line in out)


def render_full(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = True,
                fixable: Fixable = safe_fix) -> str:
    """``full``: each ``concise`` row followed by its source line and a caret under its column."""
    return render_concise(diagnostics, sources, True, fixable)


def render_json(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False,
                fixable: Fixable = safe_fix) -> str:
    """A JSON list of :func:`diagnostic_json` objects (ours and ruff's fields)."""
    rows = _noqa_rows_of(diagnostics, sources)
    return json.dumps([diagnostic_json(d, rows.get(d.path, {}).get(d.line, d.line)) for d in diagnostics], indent=2) + "\n"


def diagnostic_json(diagnostic: Diagnostic, noqa_row: int | None = None) -> dict[str, Any]:
    """The JSON object of one diagnostic: :meth:`Diagnostic.to_json` plus ruff's JSON fields.

    Ours: ``path, line, column, end_line, end_column, code, message, fix`` (``fix``: ``null`` or
    ``{safety, replacement, description, line, column, end_line, end_column}``). ruff's, beside
    them: ``filename`` (absolute), ``location``/``end_location`` (``{row, column}``, 1-based),
    ``name`` (the rule name), ``url`` (the rule page, :func:`~asynccfg_lint.rules.pages.rule_url`;
    ``null`` when none is published or checked out), ``noqa_row`` (the line a ``# noqa`` must go
    on; default: the diagnostic's line), ``severity``, ``cell`` (``null``), and in ``fix``:
    ``applicability`` (``safe``/``unsafe``), ``message`` and ``edits`` (``content``,
    ``location``, ``end_location``).
    """
    from asynccfg_lint.rules.pages import rule_url

    data = diagnostic.to_json()
    rule = RULES_BY_CODE.get(diagnostic.code)
    data |= {
        "filename": os.path.abspath(diagnostic.path) if diagnostic.path != "-" else "-",
        "location": {"row": diagnostic.line, "column": diagnostic.column},
        "end_location": {"row": diagnostic.end_line, "column": diagnostic.end_column},
        "name": rule.name if rule else None,
        "url": rule_url(diagnostic.code),
        "noqa_row": noqa_row if noqa_row is not None else diagnostic.line,
        "severity": level(diagnostic.code),
        "cell": None,
    }
    fix = diagnostic.fix
    if fix is not None:
        data["fix"] |= {
            "applicability": fix.safety,
            "message": fix.description,
            "edits": [{
                "content": fix.replacement,
                "location": {"row": fix.line, "column": fix.column},
                "end_location": {"row": fix.end_line, "column": fix.end_column},
            }],
        }
    return data


def _noqa_rows_of(diagnostics: Sequence[Diagnostic], sources: Sources) -> dict[str, dict[int, int]]:
    """For each path with a source, each line's noqa row (:func:`~asynccfg_lint.run.suppression.noqa_rows`)."""
    from asynccfg_lint.run.suppression import noqa_rows

    rows: dict[str, dict[int, int]] = {}
    for path in {d.path for d in diagnostics}:
        source = sources.get(path)
        if source is not None:
            rows[path] = noqa_rows(source_text(source))
    return rows


def render_grouped(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False,
                   fixable: Fixable = safe_fix) -> str:
    """ruff's ``grouped`` format: a ``path:`` header, then ``  line:col CODE [*] message`` rows, then a blank line.

    ``diagnostics`` must be sorted by path. Line numbers are right-aligned and columns padded
    within a file, as ruff aligns them.
    """
    out: list[str] = []
    for path, group in itertools.groupby(diagnostics, key=lambda d: d.path):
        rows = list(group)
        line_width = max(len(str(d.line)) for d in rows)
        column_width = max(len(str(d.column)) for d in rows)
        out.append(f"{path}:")
        for d in rows:
            out.append(f"  {d.line:>{line_width}}:{d.column:<{column_width}} {_marked(d, fixable)}")
            if show_source:
                out.extend(_source_excerpt(d, sources, indent="    "))
        out.append("")
    return "".join(line + "\n" for line in out)


#: the formats whose rows ``--color`` colours (the others are read by programs)
COLOUR_FORMATS = ("text", "concise", "full", "grouped")
_BOLD, _RED, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"
_ROW = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+):(?P<column>\d+): (?P<code>ACC\d+)\b", re.M)
_GROUPED_ROW = re.compile(r"^(?P<indent>  )(?P<line> *\d+):(?P<column>\d+ *) (?P<code>ACC\d+)\b", re.M)
_GROUP_HEADER = re.compile(r"^(?P<path>\S[^\n]*):$", re.M)


def in_colour(text: str, output_format: str) -> str:
    """``text`` (rendered as ``output_format``) with ruff's colours: each row's path bold, its separators cyan and
    its code bold red; a ``grouped`` header bold. Other formats are returned as they are."""
    if output_format not in COLOUR_FORMATS:
        return text
    colon = f"{_CYAN}:{_RESET}"
    if output_format == "grouped":
        text = _GROUP_HEADER.sub(lambda m: f"{_BOLD}{m['path']}{_RESET}{colon}", text)
        return _GROUPED_ROW.sub(
            lambda m: f"{m['indent']}{m['line']}{colon}{m['column']} {_BOLD}{_RED}{m['code']}{_RESET}", text)
    return _ROW.sub(lambda m: f"{_BOLD}{m['path']}{_RESET}{colon}{m['line']}{colon}{m['column']}{colon} "
                              f"{_BOLD}{_RED}{m['code']}{_RESET}", text)


def colour_wanted(when: str, stream: Any) -> bool:
    """Whether to colour what goes to ``stream`` for ``--color when`` (``auto``, ``always``, ``never``): ``auto``
    colours a terminal unless ``NO_COLOR`` is set (no-color.org) or ``TERM`` is ``dumb``; ``FORCE_COLOR`` forces it."""
    if when != "auto":
        return when == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False,
                  fixable: Fixable = safe_fix) -> str:
    """GitHub Actions workflow commands, one annotation per diagnostic.

    ``::error file=PATH,line=L,col=C,endLine=EL,endColumn=EC,title=ACC101::MESSAGE``
    (``::warning`` for the opt-in ACC2xx rules), escaped as the workflow-command syntax requires.
    """
    out = []
    for d in diagnostics:
        properties = ",".join(f"{key}={_escape_property(str(value))}" for key, value in (
            ("file", d.path), ("line", d.line), ("col", d.column), ("endLine", d.end_line),
            ("endColumn", d.end_column), ("title", d.code),
        ))
        out.append(f"::{level(d.code)} {properties}::{_escape_data(d.message)}\n")
    return "".join(out)


def _artifact_location(path: str, base: str) -> dict[str, Any]:
    """A SARIF ``artifactLocation``: relative to ``%SRCROOT%`` (the current directory) when the file is inside it."""
    if path == "-":
        return {"uri": "stdin"}
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, base)
    if relative == ".." or relative.startswith(".." + os.sep) or os.path.isabs(relative):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(relative.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def sarif_log(diagnostics: Sequence[Diagnostic], base: str | None = None,
              coverage: Coverage | None = None) -> dict[str, Any]:
    """Return a SARIF 2.1.0 log of ``diagnostics``, as GitHub code scanning accepts it.

    One run; ``tool.driver.rules`` lists every rule of :data:`~asynccfg_lint.rules.RULES` (id,
    name, short and full description, the whole rule page inline as ``help.markdown`` and
    ``help.text``, default level); ``helpUri`` and the driver's ``informationUri`` only when the
    installed package declares real ones in ``[project.urls]`` (:func:`~asynccfg_lint.rules.pages.published_rule_url`,
    :func:`~asynccfg_lint.rules.pages.project_url`): no address is made up. Each result names its
    rule by ``ruleId`` and ``ruleIndex`` and its place as a region with 1-based lines and 1-based
    code-point columns (``endColumn`` exclusive), with the file's URI relative to ``%SRCROOT%``
    (``base``, default: the current directory). A diagnostic with a fix carries it as a SARIF
    ``fix`` (a replacement of the edited region); one whose message names
    another place (``Diagnostic.related``) lists it under ``relatedLocations``. ``coverage``, when given,
    is the run's ``properties.coverage`` (:meth:`Coverage.properties`).
    """
    from asynccfg_lint.rules.pages import project_url, published_rule_url, rule_page

    base = os.path.abspath(base or os.getcwd())
    index = {rule.code: number for number, rule in enumerate(RULES)}
    rules = []
    for rule in RULES:
        page = rule_page(rule.code)
        entry: dict[str, Any] = {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.failure},
            "help": {"text": page, "markdown": page},
            "defaultConfiguration": {"level": level(rule.code), "enabled": rule.default_enabled},
        }
        help_uri = published_rule_url(rule.code)
        if help_uri is not None:
            entry["helpUri"] = help_uri
        rules.append(entry)
    driver: dict[str, Any] = {"name": "asynccfg-lint", "version": __version__, "semanticVersion": __version__}
    information = project_url()
    if information is not None:
        driver["informationUri"] = information
    driver["rules"] = rules
    results = []
    for d in diagnostics:
        location = _artifact_location(d.path, base)
        result: dict[str, Any] = {"ruleId": d.code}
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        result |= {
            "level": level(d.code),
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": location,
                "region": _region(d.line, d.column, d.end_line, d.end_column),
            }}],
        }
        if d.related:  # where the value is written (another module) or used (a registered lowering rule)
            result["relatedLocations"] = [{
                "id": number,
                "message": {"text": "where the value is written" if role == "written"
                            else "where the registered lowering rule uses the value"},
                "physicalLocation": {"artifactLocation": _artifact_location(path, base), "region": {"startLine": line}},
            } for number, (role, path, line) in enumerate(d.related)]
        if d.fix is not None:
            result["fixes"] = [{
                "description": {"text": f"{d.fix.description} ({d.fix.safety} fix)"},
                "artifactChanges": [{
                    "artifactLocation": location,
                    "replacements": [{
                        "deletedRegion": _region(d.fix.line, d.fix.column, d.fix.end_line, d.fix.end_column),
                        "insertedContent": {"text": d.fix.replacement},
                    }],
                }],
            }]
        results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(base).as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if coverage is not None:
        run["properties"] = {"coverage": coverage.properties()}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(diagnostics: Sequence[Diagnostic], sources: Sources = _NO_SOURCES, show_source: bool = False,
                 fixable: Fixable = safe_fix, coverage: Coverage | None = None) -> str:
    """The SARIF 2.1.0 log of :func:`sarif_log` as indented JSON."""
    return json.dumps(sarif_log(diagnostics, coverage=coverage), indent=2) + "\n"


RENDERERS: dict[str, Callable[[Sequence[Diagnostic], Sources, bool, Fixable], str]] = {
    "text": render_text,
    "concise": render_concise,
    "full": render_full,
    "json": render_json,
    "grouped": render_grouped,
    "github": render_github,
    "sarif": render_sarif,
}


def render(diagnostics: Sequence[Diagnostic], output_format: str, sources: Sources = _NO_SOURCES,
           show_source: bool = False, fixable: Fixable = safe_fix, coverage: Coverage | None = None) -> str:
    """Render sorted ``diagnostics`` in ``output_format`` (one of :data:`FORMATS`); ``fixable`` decides ``[*]``;
    ``coverage`` goes into SARIF's run properties."""
    if output_format == "sarif":
        return render_sarif(diagnostics, sources, show_source, fixable, coverage)
    return RENDERERS[output_format](diagnostics, sources, show_source, fixable)


def _errors(number: int) -> str:
    return f"{number} error{'' if number == 1 else 's'}"


def _fixes(number: int, kind: str = "") -> str:
    return f"{number} {kind}fix{'' if number == 1 else 'es'}"


def closing_summary(remaining: Sequence[Diagnostic], fixable: Fixable = safe_fix, fixed: int = 0,
                    mode: str = "check") -> str:
    """ruff's closing summary (measured with ruff 0.17.5), as lines ending in ``\\n`` ('' when ruff prints none).

    Args:
        remaining: the diagnostics printed (left after fixing).
        fixable: which of them ``--fix`` would fix as the run is set up (:func:`safe_fix`, or
            :func:`any_fix` with ``--unsafe-fixes``).
        fixed: fixes applied (``fix``), or that would be (``diff``).
        mode: ``check``, ``fix`` (``--fix``), ``fix-only`` or ``diff``.
    """
    applicable = sum(1 for d in remaining if fixable(d))
    hidden = sum(1 for d in remaining if d.fix is not None and not fixable(d))
    if mode in ("fix-only", "diff"):
        done = "Fixed" if mode == "fix-only" else "Would fix"
        if fixed:
            return f"{done} {_errors(fixed)}.\n"
        if hidden:
            nothing = "No errors fixed" if mode == "fix-only" else "No errors would be fixed"
            return f"{nothing} ({_fixes(hidden)} available with `--unsafe-fixes`).\n"
        return ""
    if not remaining and not fixed:
        return "All checks passed!\n"
    if mode == "fix":
        lines = [f"Found {_errors(fixed + len(remaining))} ({fixed} fixed, {len(remaining)} remaining)."]
    else:
        lines = [f"Found {_errors(len(remaining))}."]
    unsafe_hint = f"{_fixes(hidden, 'unsafe ')} available with `--fix --unsafe-fixes`"
    if applicable and hidden:
        lines.append(f"[*] {applicable} fixable with `--fix` ({unsafe_hint}).")
    elif applicable:
        lines.append(f"[*] {applicable} fixable with `--fix`.")
    elif hidden:
        lines.append(f"{unsafe_hint}.")
    return "".join(line + "\n" for line in lines)


def fixes_table(fixed: Sequence[Diagnostic]) -> str:
    """``--show-fixes``: ruff's ``Fixed N errors:`` block, per file ``N × CODE (name)`` rows ('' when nothing was fixed)."""
    if not fixed:
        return ""
    out = ["", f"Fixed {_errors(len(fixed))}:"]
    for path, group in itertools.groupby(sorted(fixed, key=lambda d: d.sort_key), key=lambda d: d.path):
        out.append(f"- {path}:")
        for code, count in sorted(Counter(d.code for d in group).items()):
            name = RULES_BY_CODE[code].name if code in RULES_BY_CODE else ""
            out.append(f"    {count} × {code} ({name})")
    out.append("")
    return "".join(line + "\n" for line in out)


def statistics(diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """Count diagnostics per code: ``{"code", "name", "count", "fixable", "fixable_count"}`` rows, most frequent first.

    ``fixable`` is true when some diagnostic of the code has a safe fix (what ``fix`` applies
    without ``--unsafe-fixes``), ``fixable_count`` how many do (ruff 0.17.5's keys).
    """
    counts = Counter(d.code for d in diagnostics)
    fixable = Counter(d.code for d in diagnostics if safe_fix(d))
    return [
        {"code": code, "name": RULES_BY_CODE[code].name if code in RULES_BY_CODE else "", "count": count,
         "fixable": code in fixable, "fixable_count": fixable[code]}
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def render_statistics(diagnostics: Sequence[Diagnostic], output_format: str) -> str:
    """``--statistics``: ruff's table (``count<TAB>code<TAB>[*] name``; ``[*]`` marks codes with safe fixes) or JSON.

    Raises:
        ValueError: for a format other than :data:`STATISTICS_FORMATS`.
    """
    rows = statistics(diagnostics)
    if output_format == "json":
        return json.dumps(rows, indent=2) + "\n"
    if output_format != "text":
        raise ValueError(f"--statistics cannot be printed as {output_format}; use text or json")
    if not rows:
        return ""
    count_width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(row["code"]) for row in rows)
    any_fixable = any(row["fixable"] for row in rows)
    out = []
    for row in rows:
        marker = ("[*] " if row["fixable"] else "[ ] ") if any_fixable else ""
        out.append(f"{row['count']:>{count_width}}\t{row['code']:<{code_width}}\t{marker}{row['name']}\n")
    return "".join(out)
