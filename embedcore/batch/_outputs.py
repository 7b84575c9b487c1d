"""What the batch steps write: staged beside the target, published by one rename, checked when read.

A step never writes into its target. A directory output (sketches,
document vectors) is built in ``.NAME.partial`` beside ``NAME``: each task
writes its own shard there (to a temporary name, renamed when whole) and
the driver keeps ``manifest.json`` up to date with every finished shard's
rows, size and SHA-256. When the last shard is in, the manifest is marked
``"complete": true`` and the directory is renamed to ``NAME``. A run that
stops part-way leaves ``NAME`` as it was (absent, or the previous output)
and its finished shards in ``.NAME.partial``, which the same command picks
up again. A file output (word vectors, category codes) is written to a
temporary name beside it and renamed; the summary next to it, renamed
last, records each file's size and SHA-256.

An existing output is replaced only when asked (``overwrite``). Readers
refuse a manifest that is not complete, a shard whose size or checksum is
not the manifest's, and a shard the manifest does not list.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid

from ._cluster import BatchError

__all__ = ["MANIFEST", "staging_dir", "refuse_existing", "sha256_of", "publish_dir", "temporary_beside",
           "write_json", "check_entry", "extra_shards", "manifest_file", "refuse_unlisted", "ShardedOutput"]

MANIFEST = "manifest.json"


def staging_dir(target: str) -> str:
    """Where an output directory is built: ``.NAME.partial`` beside ``NAME``."""
    target = os.path.abspath(target)
    return os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.partial")


def refuse_existing(*targets: str, overwrite: bool) -> None:
    """Stop before any work when an output exists and replacing it was not asked for."""
    if overwrite:
        return
    for t in targets:
        if os.path.lexists(t):
            raise BatchError(f"{t} already exists; choose another output, or replace it (--overwrite, "
                             "overwrite=True).")


def sha256_of(source) -> str:
    """SHA-256 (hex) of a file's bytes, or of ``bytes``."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return hashlib.sha256(source).hexdigest()
    h = hashlib.sha256()
    with open(source, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.remove(path)


def publish_dir(stage: str, target: str) -> None:
    """Put the finished ``stage`` at ``target``: the old output (if any) is moved aside, then deleted."""
    target = os.path.abspath(target)
    old = None
    if os.path.lexists(target):
        old = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.replaced-{uuid.uuid4().hex[:8]}")
        os.rename(target, old)
    os.rename(stage, target)
    if old:
        _remove(old)


def temporary_beside(path: str) -> str:
    """A fresh temporary name in ``path``'s folder (renaming it onto ``path`` is atomic)."""
    path = os.path.abspath(path)
    return os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{uuid.uuid4().hex[:8]}.tmp")


def write_json(path: str, body: dict) -> None:
    """Write JSON through a temporary file and a rename: a reader sees the old file or the new, never half."""
    tmp = temporary_beside(path)
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(body, f, indent=1, default=str)
    os.replace(tmp, path)


def check_entry(name: str, data, entry: dict, what: str = "shard", listing: str = "manifest") -> None:
    """A shard (a path or its bytes) against its manifest entry: its size and SHA-256."""
    size = len(data) if isinstance(data, (bytes, bytearray)) else os.path.getsize(data) if os.path.exists(data) else None
    if size is None:
        raise BatchError(f"{name} is listed in the {listing} but missing; the output is incomplete: run the step "
                         "again.")
    if not isinstance(entry.get("sha256"), str) or not isinstance(entry.get("file_bytes"), int):
        raise BatchError(f"The {listing} has no checksum for {name}: it was written by an older version of the step; "
                         "run the step again.")
    if size != entry["file_bytes"] or sha256_of(data) != entry["sha256"]:
        raise BatchError(f"{name} is not the {what} its {listing} lists ({size:,} bytes, {listing}: "
                         f"{entry['file_bytes']:,}; checksums differ): it was changed or comes from another run. "
                         "Run the step again.")


def extra_shards(folder: str, listed) -> list[str]:
    """Shard files in ``folder`` the manifest does not list (a sign of two runs' files mixed)."""
    listed = set(listed)
    return sorted(n for n in os.listdir(folder) if n.startswith("part-") and n not in listed)


def manifest_file(path: str, what: str) -> str:
    """The manifest of the output directory ``path`` (or ``path`` itself when it names the file).

    A missing manifest is refused in one sentence: an output whose run was
    interrupted (its staging directory is there, the output is not) says to
    run the step again; anything else is not an output of ``what``.

    Examples
    --------
    >>> manifest_file("no/such/dir", "sketches")
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: no/such/dir holds no sketches: there is no manifest.json.
    """
    file = os.path.join(path, MANIFEST) if os.path.isdir(path) else path
    if os.path.isfile(file):
        return file
    stage = staging_dir(path)
    if not os.path.exists(path) and os.path.isdir(stage):
        raise BatchError(f"{path} does not exist yet: its run was interrupted (what it finished is in {stage}); "
                         "run the step again to finish it.")
    raise BatchError(f"{path} holds no {what}: there is no {MANIFEST}.")


def refuse_unlisted(folder: str, partitions: dict, what: str) -> None:
    """Refuse an output directory holding shards its manifest's ``partitions`` do not list (two runs mixed).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("part-00000.npz", "part-00001.npz"):
    ...     open(os.path.join(folder, name), "wb").close()
    >>> refuse_unlisted(folder, {"0": {"file": "part-00000.npz"}}, "sketches")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    embedcore.exceptions.BatchError: ... holds shards its manifest does not list (part-00001.npz): the files of two runs are mixed; write the sketches again into a new directory.
    """
    extra = extra_shards(folder, (v["file"] for v in partitions.values()))
    if extra:
        raise BatchError(f"{folder} holds shards its manifest does not list ({', '.join(extra[:3])}): the files of "
                         f"two runs are mixed; write the {what} again into a new directory.")


class ShardedOutput:
    """A directory output built in its staging directory, one shard per partition, published when complete.

    ``header`` holds what identifies the run (``identity`` names its keys):
    a staged run of the same identity is resumed (finished shards kept), one
    of another identity is discarded. ``target=None``: nothing is written.
    """

    def __init__(self, target: str | None, header: dict, *, identity: tuple[str, ...], overwrite: bool,
                 noun: str = "shards"):
        self.target, self.noun = target, noun
        self.body = dict(header, partitions={}, complete=False)
        self.discarded = 0
        self._saved = 0.0
        if target is None:
            self.stage = None
            return
        if os.path.isfile(target):
            raise BatchError(f"{target} is a file; give a directory for the {noun}.")
        refuse_existing(target, overwrite=overwrite)
        parent = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(parent):
            raise BatchError(f"The folder of {target} does not exist.")
        self.stage = staging_dir(target)
        os.makedirs(self.stage, exist_ok=True)
        for name in os.listdir(self.stage):  # half-written shards of a task that died
            if name.endswith(".tmp"):
                os.remove(os.path.join(self.stage, name))
        path = os.path.join(self.stage, MANIFEST)
        old = None
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    old = json.load(f)
            except (OSError, ValueError):
                old = None
        if isinstance(old, dict) and all(old.get(k) == header.get(k) for k in identity):
            kept = {}
            for k, v in (old.get("partitions") or {}).items():
                f = os.path.join(self.stage, str(v.get("file")))
                if os.path.isfile(f) and os.path.getsize(f) == v.get("file_bytes"):
                    kept[k] = v
            self.body["partitions"] = kept
        else:
            stale = [n for n in os.listdir(self.stage)]
            self.discarded = sum(n.startswith("part-") for n in stale)
            for n in stale:
                _remove(os.path.join(self.stage, n))

    def done(self) -> set[int]:
        return {int(k) for k in self.body["partitions"]}

    def record(self, part: int, entry: dict) -> None:
        import time

        self.body["partitions"][str(part)] = entry
        if time.monotonic() - self._saved > 1.0:
            self.save()

    def save(self, complete: bool = False) -> None:
        import time

        parts = self.body["partitions"]
        self.body["partitions"] = {k: parts[k] for k in sorted(parts, key=int)}
        self.body["complete"] = complete
        self.body["rows"] = sum(v["rows"] for v in parts.values())
        self._saved = time.monotonic()
        if self.stage is not None:
            write_json(os.path.join(self.stage, MANIFEST), self.body)

    def finish(self) -> None:
        """Mark the manifest complete and rename the staging directory to the target."""
        if self.stage is None:
            self.save(complete=True)
            return
        for n in extra_shards(self.stage, (v["file"] for v in self.body["partitions"].values())):
            _remove(os.path.join(self.stage, n))  # a shard written after the manifest last listed the partitions
        self.save(complete=True)
        publish_dir(self.stage, self.target)

    def interrupted_note(self) -> str:
        n = len(self.body["partitions"])
        total = self.body.get("input", {}).get("n_partitions", "?")
        return f"{n} of {total} partitions are kept in {self.stage}"
