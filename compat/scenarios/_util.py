"""Small helpers shared by the scenario modules."""

from __future__ import annotations

from typing import Any

from compat.harness import canonical


def pick(answer: Any, *keys: str) -> Any:
    """The listed keys of a response (an error answer passes through whole)."""
    if not isinstance(answer, dict) or "error" in answer:
        return answer
    return {k: answer[k] for k in keys if k in answer}


def sorted_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items in a canonical order, for reads whose order DynamoDB leaves unspecified (Scan)."""
    return sorted(items, key=canonical)


def s(v: str) -> dict[str, str]:
    return {"S": v}


def n(v: int | str) -> dict[str, str]:
    return {"N": str(v)}


def item(pk: str, **attrs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"pk": s(pk)}
    for k, v in attrs.items():
        out[k] = v if isinstance(v, dict) else s(v) if isinstance(v, str) else n(v)
    return out
