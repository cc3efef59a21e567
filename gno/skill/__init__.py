"""The bundled agent skill (SKILL.md), printed by `gno --skill`."""
