"""The `ccsim` command's entry point. `ccsim run SCENARIO [--seed N] [--scheme S] [--tcp T]
[--threads N] [--set PATH=VALUE]... --json`, the form scripts and sweeps call many times, and `ccsim --version`
are answered here without loading the command-line framework (typer, rich) or the table libraries
(polars, numpy): the whole process is the interpreter, the engine and the run. Every other command line, and any
form of this one the parser below does not recognise exactly, goes to the full CLI (`cli.py`),
which accepts the same options; errors are reported the same way by both."""

from __future__ import annotations

import sys
import warnings

from .errors import CcsimError, CcsimWarning, ScenarioError, UsageError, shown

TYPE_CHECKING = False  # not `typing`'s: see ccsim/__init__.py
if TYPE_CHECKING:
    from typing import Any

# `run` options the fast path knows, each taking one value; `--set` may repeat.
_VALUED = ("--seed", "--scheme", "--tcp", "--threads", "--set")


def thread_count(text: str | None) -> int | str | None:
    """`--threads`: "auto" or a whole number, as `run.threads` takes it (its checks apply)."""
    if text is None or text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise ScenarioError(f"--threads: \"auto\" or a whole number, not {text!r}") from None


def parse_sets(sets: list[str]) -> dict[str, Any]:
    """``PATH=VALUE`` pairs (``duration``, ``seed`` and ``measure_from`` stand for ``run.…``)."""
    parsed: dict[str, Any] = {}
    for item in sets:
        if "=" not in item:
            raise ScenarioError(f"--set {shown(item)!r}: expected PATH=VALUE")
        path, value = item.split("=", 1)
        path = path.strip()
        if not path:
            raise ScenarioError(f"--set {shown(item)!r}: empty path")
        try:
            parsed[path] = parse_value(value)
        except RecursionError:
            raise ScenarioError(f"--set {shown(path)}: the value is nested too deeply to be a scenario value") from None
    return parsed


def parse_value(text: str) -> Any:
    """A `--set` value: JSON (``3``, ``true``, ``"10ms"``, ``{"type": "red"}``), else a TOML inline
    table, array or quoted string (``{type = "red", min_th = 5}``, ``[1, 2]``, ``'x'``), else the
    text itself as a string (``10ms``)."""
    import json

    try:
        return json.loads(text)
    except ValueError:  # not JSON; or a number past Python's 4,300 digits
        pass
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except ValueError:  # TOMLDecodeError, or a number past Python's 4,300 digits
        return text
    # Dates and times are TOML values but not scenario values: keep the text.
    return value if isinstance(value, (dict, list, str)) else text


def fail(message: str) -> None:
    """One plain line on stderr (never wrapped to the terminal width, no markup)."""
    sys.stdout.flush()
    sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()


def parse_run_json(args: list[str]) -> dict[str, Any] | None:
    """The options of a `run ... --json` command line, or None if it is anything else (or
    anything this parser is not sure about: the full CLI then parses it)."""
    if not args or args[0] != "run" or "--json" not in args:
        return None
    opts: dict[str, Any] = {"scenario": None, "seed": None, "scheme": None, "tcp": None, "threads": None, "set": []}
    rest = args[1:]
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--json":
            i += 1
            continue
        name, eq, value = a.partition("=")
        if name in _VALUED:
            if not eq:
                if i + 1 >= len(rest):
                    return None
                value = rest[i + 1]
                i += 1
            key = name[2:]
            if key == "set":
                opts["set"].append(value)
            elif opts[key] is not None:
                return None
            elif key == "seed":
                try:
                    opts["seed"] = int(value)
                except ValueError:
                    return None
            else:
                opts[key] = value
        elif (a.startswith("-") and a != "-") or opts["scenario"] is not None:
            return None
        else:
            opts["scenario"] = a
        i += 1
    return opts if opts["scenario"] is not None else None


def main(argv: list[str] | None = None) -> int:
    """The command: SIGTERM stops it as Ctrl-C does (clean-up runs, one line, exit 143)."""
    from ._signals import sigterm_raises

    try:
        with sigterm_raises():
            return _main(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt as e:  # a signal between the command's own handlers
        return report_error(e)


def _main(args: list[str]) -> int:
    warnings.showwarning = _show_warning
    if args in (["--version"], ["-V"]):
        from ._version import describe

        sys.stdout.write(f"ccsim {describe()}\n")
        return 0
    opts = parse_run_json(args)
    if opts is None:
        from .cli import main as full

        return full(args)
    try:
        from .api import summary_json

        text = summary_json(opts["scenario"], seed=opts["seed"], scheme=opts["scheme"], tcp=opts["tcp"],
                            set=parse_sets(opts["set"]), threads=thread_count(opts["threads"]))
        sys.stdout.write(text + "\n")
    except (CcsimError, KeyboardInterrupt, OSError) as e:
        return report_error(e)
    return 0


_python_showwarning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """ccsim's warnings as one `warning: ...` line on stderr; others as Python prints them."""
    if issubclass(category, CcsimWarning):
        sys.stderr.write(f"warning: {message}\n")
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def report_error(e: BaseException) -> int:
    """One clear line on stderr for an error a command ends with, and its exit code: 2 for an
    invalid scenario or command line (a `UsageError` too: an `--out` ccsim may not write into),
    130 for Ctrl-C, 143 for SIGTERM, 1 for anything else (a ccsim error, or a file the user named
    that cannot be read or written)."""
    if isinstance(e, KeyboardInterrupt):
        code = getattr(e, "exit_code", 130)
        fail(str(e) if code != 130 and str(e) else "interrupted")
        return code
    usage = isinstance(e, (ScenarioError, UsageError))
    if isinstance(e, OSError):
        where = f": {e.filename}" if getattr(e, "filename", None) else ""
        fail(f"{e.strerror or e}{where}")
        return 2 if usage else 1
    fail(str(e))
    return 2 if usage else 1


if __name__ == "__main__":
    sys.exit(main())
