"""A game's parameters: how ``-p name=value`` is parsed, checked, normalized, shown and
named in a tablebase's identity; with the hints that follow a mistyped name."""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebase.core.errors import ParameterError


def _parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected an integer") from None


def _parse_ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        values = ()
    if not values:
        raise ValueError("expected a comma-separated list of integers")
    return values


def _parse_set(text: str) -> tuple[int, ...]:
    return _normal_set(_parse_ints(text))


def _normal_set(values: Iterable[int]) -> tuple[int, ...]:
    """The canonical form of a set of integers: distinct, ascending."""
    return tuple(sorted(set(values)))


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected on/off, true/false, yes/no or 1/0")


def _read_file(text: str) -> str:
    return Path(text).expanduser().read_text(encoding="utf-8")


_PARSERS: dict[str, Callable[[str], Any]] = {
    "int": _parse_int,
    "ints": _parse_ints,
    "set": _parse_set,
    "bool": _parse_bool,
    "str": str,
    "file": _read_file,
}


@dataclass(frozen=True)
class Parameter:
    """One parameter of a game, set on the command line as ``-p name=value``.

    :param name: the parameter's name.
    :param kind: ``"int"``, ``"ints"`` (a comma-separated sequence), ``"set"`` (a
        comma-separated set of integers: order and repeats do not matter, the game gets
        them distinct and ascending, so ``3,2,1`` and ``1,2,3`` name one tablebase),
        ``"bool"``, ``"str"`` or ``"file"``. A ``file`` parameter is given as a path; the game receives the file's
        text, and the tablebase is identified by the text's SHA-256, not by the path.
    :param default: the value used when none is given (already parsed); ``None`` makes
        the parameter required.
    :param help: one line shown by ``tablebase games``.
    :param check: optional; returns an error message for a parsed value that is out of
        range, or ``None`` when the value is fine.
    """

    name: str
    kind: str
    default: Any
    help: str
    check: Callable[[Any], str | None] | None = None

    def parse(self, text: str) -> Any:
        """Parse a value given as text. :raises ParameterError: on a bad value."""
        try:
            value = _PARSERS[self.kind](text)
        except (ValueError, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) else error
            raise ParameterError(f"bad value {text!r} for parameter {self.name!r}: {reason}") from None
        self.validate(value)
        return value

    def normalize(self, value: Any) -> Any:
        """A parsed value in its canonical form (a ``set`` distinct and ascending)."""
        return _normal_set(value) if self.kind == "set" else value

    def validate(self, value: Any) -> None:
        """:raises ParameterError: when :attr:`check` rejects the value."""
        problem = self.check(value) if self.check else None
        if problem:
            raise ParameterError(f"bad value for parameter {self.name!r}: {problem}")

    def identity(self, value: Any) -> Any:
        """The JSON-able form of a value that identifies the tablebase."""
        if self.kind == "file":
            return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()
        if isinstance(value, tuple):
            return list(value)
        return value

    def show(self, value: Any) -> str:
        """The value as a user would type it after ``-p name=`` (a file by its hash)."""
        if self.kind in ("ints", "set"):
            return ",".join(map(str, value))
        if self.kind == "bool":
            return "on" if value else "off"
        if self.kind == "file":
            return self.identity(value)[: len("sha256:") + 12]
        return str(value)


def at_least(minimum: int) -> Callable[[int], str | None]:
    """A :class:`Parameter` check: an int parameter must be ``minimum`` or more."""
    return lambda value: None if value >= minimum else f"must be >= {minimum}"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """The hint after a mistyped name: ``"; did you mean 'x'?"`` when one of ``choices``
    is close to ``name`` (difflib's ratio of at least 0.6), else ``""``."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def not_one_of(what: str, value: str, choices: Iterable[str]) -> str:
    """The message for a ``value`` that is not one of ``choices``, with a hint."""
    choices = list(choices)
    return f"bad {what} {value!r}: expected one of {', '.join(choices)}{did_you_mean(value, choices)}"


def unknown_parameter(name: str, declared: Iterable[str]) -> ParameterError:
    """The error for a parameter the game does not declare, naming those it does."""
    declared = list(declared)
    return ParameterError(f"unknown parameter {name!r} (known: {', '.join(declared) or 'none'}){did_you_mean(name, declared)}")


def resolve_parameters(declared: Iterable[Parameter], given: Mapping[str, Any]) -> dict[str, Any]:
    """Merge given values (text or already parsed) with the declared defaults.

    :returns: a dict with one parsed value per declared parameter.
    :raises ParameterError: for an unknown or missing parameter, or a bad value.
    """
    by_name = {parameter.name: parameter for parameter in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise unknown_parameter(unknown[0], by_name)
    values: dict[str, Any] = {}
    for name, parameter in by_name.items():
        if name in given:
            raw = given[name]
            if isinstance(raw, str) and parameter.kind != "str":
                values[name] = parameter.parse(raw)
            else:
                values[name] = parameter.normalize(raw)
                parameter.validate(values[name])
        elif parameter.default is None:
            raise ParameterError(f"parameter {name!r} is required: -p {name}=...")
        else:
            values[name] = parameter.default
    return values


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """Parameters given as ``name=value`` texts (``-p`` on the command line), by name.

    >>> parse_assignments(["heaps=2", " max = 3"])
    {'heaps': '2', 'max': '3'}

    :raises ParameterError: for an item without ``=`` or a name, or a name given twice.
    """
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ParameterError(f"bad parameter {item!r}: expected name=value")
        if key in values:
            raise ParameterError(f"parameter {key!r} is given twice")
        values[key] = value.strip()
    return values
