"""The JSON Schema (draft 2020-12) of each command's ``--json`` output, one per command.

README.md documents the same fields; the tests validate every command's output against
these schemas and check that README names exactly their fields.

A game may add fields of its own reading of a value or a move (its ``value_details``,
``score_details`` and ``move_details`` hooks); they are numbers, strings or booleans.
The built-in ones are listed: ``grundy``, ``score``, ``mate_in``, ``category``, ``dtz``
and ``dtm`` (chess), ``mover_total`` (piles), ``uci`` (chess).
"""

from __future__ import annotations

from typing import Any

_DETAIL = {"type": ["integer", "number", "string", "boolean"]}
_COUNT = {"type": "integer", "minimum": 0}

_VALUE_FIELDS: dict[str, Any] = {
    "position": {"type": "string"},
    "outcome": {"enum": ["win", "draw", "loss"]},
    "remoteness": {"type": ["integer", "null"], "minimum": 0},
    "grundy": _COUNT,
    "score": {"type": "integer"},
    "mate_in": _COUNT,
    "mover_total": {"type": "integer"},
    "category": {"enum": ["win", "cursed-win", "draw", "blessed-loss", "loss"]},
    "dtz": {"type": ["integer", "null"]},
    "dtm": {"type": ["integer", "null"]},
}

VALUE: dict[str, Any] = {
    "type": "object",
    "required": ["position", "outcome", "remoteness"],
    "properties": _VALUE_FIELDS,
    "additionalProperties": _DETAIL,
}
"""A position's value for its side to move (remoteness in plies)."""

MOVE: dict[str, Any] = {
    "type": "object",
    "required": ["move", "position", "outcome", "remoteness"],
    "properties": {"move": {"type": "string"}, "uci": {"type": "string"}, "margin": {"type": "integer"}, **_VALUE_FIELDS},
    "additionalProperties": _DETAIL,
}
"""A move and the value of the position it leads to, for the side to move there."""

QUERY: dict[str, Any] = {
    "type": "object",
    "required": [*VALUE["required"], "moves", "best"],
    "properties": {**_VALUE_FIELDS, "moves": {"type": "array", "items": MOVE}, "best": {"type": "array", "items": {"type": "string"}}},
    "additionalProperties": _DETAIL,
}

QUERY_ERROR: dict[str, Any] = {
    "type": "object",
    "required": ["position", "error"],
    "properties": {"position": {"type": "string"}, "error": {"type": "string"}},
    "additionalProperties": False,
}
"""A line of ``query GAME -`` that fails."""

LINE: dict[str, Any] = {
    "type": "object",
    "required": [*VALUE["required"], "line", "ended"],
    "properties": {**_VALUE_FIELDS, "line": {"type": "array", "items": MOVE}, "ended": {"type": "boolean"}},
    "additionalProperties": _DETAIL,
}

_TIME = {"type": ["string", "null"]}
TABLEBASE: dict[str, Any] = {
    "type": "object",
    "required": [
        "game", "params", "description", "game_version", "status", "format_version", "layout", "codec", "dtm_left_out",
        "value_kind", "positions", "wins", "draws", "losses", "max_remoteness", "build_seconds", "created_at", "completed_at",
    ],
    "properties": {
        "game": {"type": "string"},
        "params": {"type": "object"},
        "description": {"type": "string"},
        "game_version": {"type": "integer"},
        "status": {"type": "string"},
        "format_version": {"type": "integer"},
        "layout": {"type": ["string", "null"]},
        "codec": {"enum": ["zstd", "xz", None]},
        "dtm_left_out": {"type": "boolean"},
        "value_kind": {"enum": ["wdl", "grundy", "score", "dtz"]},
        "positions": {"type": ["integer", "null"], "minimum": 0},
        "wins": {"type": ["integer", "null"], "minimum": 0},
        "draws": {"type": ["integer", "null"], "minimum": 0},
        "losses": {"type": ["integer", "null"], "minimum": 0},
        "max_remoteness": {"type": ["integer", "null"], "minimum": 0},
        "build_seconds": {"type": ["number", "null"], "minimum": 0},
        "created_at": {"type": "string"},
        "completed_at": _TIME,
        "summary": {"type": "array", "items": {"type": ["integer", "string"]}},
        "outdated": {"type": "boolean"},
        "abandoned": {"const": True},
        "statistics": {"type": "object"},
    },
    "additionalProperties": False,
}
"""A catalog row: one stored tablebase."""

BUILD: dict[str, Any] = {
    **TABLEBASE,
    "required": [*TABLEBASE["required"], "reused"],
    "properties": {**TABLEBASE["properties"], "reused": {"type": "boolean"}},
}

VERIFY: dict[str, Any] = {
    "type": "object",
    "required": ["tablebase", "checked", "mismatches", "shown"],
    "properties": {
        "tablebase": {"type": "string"},
        "checked": _COUNT,
        "mismatches": _COUNT,
        "shown": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["position", "key", "stored", "expected"],
                "properties": {
                    "position": {"type": "string"},
                    "key": _COUNT,
                    "stored": {"type": "string"},
                    "expected": {"type": "string"},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}

CHECK: dict[str, Any] = {
    "type": "object",
    "required": ["game", "checked", "problems"],
    "properties": {"game": {"type": "string"}, "checked": _COUNT, "problems": {"type": "array", "items": {"type": "string"}}},
    "additionalProperties": False,
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "build": BUILD,
    "query": QUERY,
    "query -": {"oneOf": [QUERY, QUERY_ERROR]},
    "line": LINE,
    "info": {"type": "array", "items": TABLEBASE},
    "verify": VERIFY,
    "check": CHECK,
}
"""The schema of one JSON document each command prints (``build`` and ``query -`` print
one per line: a build, one per tablebase made, dependencies first)."""
