"""Translations of the same page in one collection, and preferring the query's language
among them (issue 12 §4). Pure.

A page and its translations share a path up to one folder named like a language
(``website/en/docs/x.md`` and ``website/ja/docs/x.md``): that folder gives the page's
language, and the path with it blanked out is the key the translations share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# ISO 639-1 codes of languages with sizeable documentation sites; a folder named like one
# (optionally with a region: pt-br, zh-cn, zh_tw) is read as a language folder.
LANGUAGE_FOLDERS = frozenset(
    [
        "en",
        "ja",
        "zh",
        "es",
        "pt",
        "fr",
        "de",
        "it",
        "ko",
        "ru",
        "pl",
        "uk",
        "ro",
        "bn",
        "nl",
        "sv",
        "tr",
        "vi",
        "id",
        "hi",
        "ar",
        "fa",
        "he",
        "cs",
        "el",
        "hu",
        "fi",
        "da",
        "nb",
        "no",
        "th",
        "ms",
        "ca",
        "sk",
        "sl",
        "bg",
        "hr",
        "sr",
        "lt",
        "lv",
        "et",
    ]
)
OTHER_LANGUAGE = 0.6  # score factor of a translation in another language than the query's


@dataclass(frozen=True)
class PageLanguage:
    language: str | None  # from the language folder; None when the path has none
    key: str | None  # the path with its language folder blanked; None without one


def page_language(rel_path: str) -> PageLanguage:
    """The first folder of ``rel_path`` named like a language (not the file name)."""
    parts = rel_path.split("/")
    for i, part in enumerate(parts[:-1]):
        code = part.lower().replace("_", "-")
        base = code.split("-", 1)[0]
        if base in LANGUAGE_FOLDERS and (code == base or len(code) in (5, 7)):
            return PageLanguage(base, "/".join([*parts[:i], "*", *parts[i + 1 :]]))
    return PageLanguage(None, None)


def prefer_language(
    order: Sequence[str],
    scores: Sequence[float],
    pages: Mapping[str, PageLanguage],
    language: str,
) -> tuple[list[str], list[float], dict[str, str]]:
    """Reorder candidates (keys best first, with scores) for a query in ``language``.

    A page in another language's folder keeps ``OTHER_LANGUAGE`` of its score; among the
    translations of one page present in the list, the one in the query's language takes the
    best score any of them had (so a translation never pushes its original out). Pages outside language folders are left
    alone. Returns the new order, its scores, and per moved key why ("demoted"/"promoted")."""
    original = dict(zip(order, scores, strict=True))
    adjusted = dict(original)
    why: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for key in order:
        page = pages.get(key)
        if page is None or page.language is None or page.key is None:
            continue
        groups.setdefault(page.key, []).append(key)
        if page.language != language:
            adjusted[key] *= OTHER_LANGUAGE
            why[key] = "demoted"
    for members in groups.values():
        mine = [k for k in members if pages[k].language == language]
        if mine and len(members) > 1:
            best = max(original[k] for k in members)
            if adjusted[mine[0]] < best:
                adjusted[mine[0]] = best + 1e-9
                why[mine[0]] = "promoted"
    ranked = sorted(order, key=lambda k: -adjusted[k])  # stable: ties keep fused order
    return ranked, [adjusted[k] for k in ranked], why
