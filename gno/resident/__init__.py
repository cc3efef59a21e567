"""The resident runtime behind `gno serve`: the one process that owns a data directory.

``lock`` makes the ownership exclusive, ``readers`` is the pool of SQLite
connections that serve reads in parallel, ``runtime`` ties them to the job
manager and reports the lifecycle snapshot (``resident-status@1.0``).
"""
