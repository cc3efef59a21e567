"""What a failure of the index file itself means to the user: SQLite's errors for a full
disk, a read-only file or folder, damaged pages or an I/O error, as gno errors (the store
maps them at the adapter edge, writes in ``write()`` and every method by
``maps_file_failures``; a constraint or a bad statement stays a bug)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from types import FunctionType
from typing import Any, TypeVar

import apsw

from gno.errors import DiskFullError, GnoError, IndexFileError, LockedError


def disk_full(path: Path) -> DiskFullError:
    return DiskFullError(
        f"The disk holding the index is full ({path.parent}): nothing of the last batch was "
        "written; free some space and run the command again"
    )


def file_failure(path: Path, exc: BaseException) -> GnoError | None:
    """What a failure of the index file itself means to the user, else None."""
    if isinstance(exc, apsw.FullError):
        return disk_full(path)
    if isinstance(exc, apsw.ReadOnlyError | apsw.PermissionsError):
        return IndexFileError(
            f"The index {path} cannot be written (is the file or its folder read-only?): {exc}"
        )
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return IndexFileError(
            f"The index {path} is damaged ({exc}): `gno doctor` says how to rebuild it"
        )
    if isinstance(exc, apsw.IOError | apsw.CantOpenError):
        return IndexFileError(f"Cannot read or write the index {path}: {exc}")
    return None


_T = TypeVar("_T")


def maps_file_failures(cls: type[_T]) -> type[_T]:
    """Wrap every public method of ``cls`` (its mixins' too) so that a failure of the index
    file met on a *read* (damaged pages, an I/O error, a lock SQLite waited for in vain)
    leaves the adapter as the gno error ``write()`` raises for a write, naming the file.

    At the method, not the cursor: an apsw cursor subclass would map it as well, but its
    Python ``__next__`` costs every row of every scan; a method call pays one ``try``.
    No method hands a cursor out (nothing above the adapter sees ``conn``), so the rows
    are all read inside the wrapper."""
    seen: set[str] = set()
    for klass in cls.__mro__:  # the first definition of a name is the one calls reach
        for name, method in list(vars(klass).items()):
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(method, FunctionType):  # not a classmethod, property or constant
                # A mixin's method is looked up in its class at each call, so a test that
                # patches the mixin still reaches the patched one.
                owner = None if klass is cls else klass
                setattr(cls, name, _mapped(method, owner))
    return cls


def _mapped(method: Callable[..., Any], owner: type | None) -> Callable[..., Any]:
    name = method.__name__

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        target = method if owner is None else vars(owner).get(name, method)
        try:
            return target(self, *args, **kwargs)
        except apsw.BusyError as exc:
            raise LockedError(
                f"The index {self.path} is locked by another process; try again"
            ) from exc
        except apsw.Error as exc:
            failure = file_failure(self.path, exc)
            if failure is None:
                raise  # a constraint, a bad statement: a bug, reported as one
            raise failure from exc

    return call
