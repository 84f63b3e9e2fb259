"""blkpeak: read block I/O traces into numpy and pandas.

A .bpt trace (blkpeak capture, generate, replay, convert) or a foreign
one (blktrace, blkparse, MSR, Alibaba, Tencent, FIU, SPC... as
``blkpeak convert --help`` lists them) is read through libbpt, column by
column, into numpy arrays::

    import blkpeak
    cols = blkpeak.read("trace.bpt", columns=["issue_ns", "complete_ns", "bytes"])
    df = blkpeak.to_pandas("trace.bpt")          # op, flags, comm: categories
    for chunk in blkpeak.chunks("huge.bpt", 1 << 22):   # bounded memory
        ...
    blkpeak.info("trace.bpt")["devices"]

Times are int64 nanoseconds from the trace's start (``info()["start_wall_ns"]``
is that start on the wall clock). docs/python.md has a worked session.
"""

import numpy as _np

from ._blkpeak import Reader as _Reader, column_info as _column_info, names as _names

__all__ = ["read", "to_pandas", "chunks", "info", "columns", "Trace", "COLUMNS"]

_INFO = _column_info()
#: every column a trace may have: name -> numpy dtype
COLUMNS = {name: dtype for name, dtype, _ in _INFO}
_NEEDS = {name: needs for name, _, needs in _INFO}
_NAMES = _names()
#: read() without columns=: these, and the optional ones the trace carries
_DEFAULT_CHUNK = 1 << 20


def _check_range(time_range):
    if time_range is None:
        return None
    try:
        lo, hi = time_range
    except (TypeError, ValueError):
        raise TypeError("time_range must be (start_ns, end_ns)") from None
    lo, hi = int(lo), int(hi)
    if lo < 0 or hi < 0 or lo > hi:
        raise ValueError(f"time_range: ({lo}, {hi}) is not 0 <= start <= end (ns from the trace's start)")
    return lo, min(hi, (1 << 64) - 1)


class Trace:
    """An open trace: ``with blkpeak.Trace(path) as t: t.read(...)``.

    ``info`` holds the header, devices, meta and totals (see info()).
    """

    def __init__(self, path):
        self._r = _Reader(path)
        self.path = path
        self.info = self._r.header()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._r.close()

    def columns(self):
        """The columns this trace has, in read()'s order."""
        have = set(self.info["columns"])
        return [c for c in COLUMNS if _NEEDS[c] is None or _NEEDS[c] in have]

    def _names(self, columns):
        if columns is None:
            return self.columns()
        if isinstance(columns, str):
            raise TypeError("columns must be a list of names, not one string")
        names = list(columns)
        have = set(self.info["columns"])
        for c in names:
            if c not in COLUMNS:
                raise KeyError(f"no column {c!r}; there are: {', '.join(COLUMNS)}")
            if _NEEDS[c] is not None and _NEEDS[c] not in have:
                raise KeyError(f"{self.path}: column {c!r} is not in this trace "
                               f"(it needs the {_NEEDS[c]!r} columns; the trace has: "
                               f"{', '.join(self.info['columns']) or 'none of the optional ones'})")
        if len(set(names)) != len(names):
            raise ValueError("a column is named twice")
        return names

    def chunks(self, chunk_records=_DEFAULT_CHUNK, columns=None, time_range=None):
        """Yield dicts of numpy arrays of at most chunk_records rows each."""
        step = int(chunk_records)
        if step < 1:
            raise ValueError("chunk_records must be at least 1")
        # arrays are allocated at the chunk's size: never more rows than a
        # complete trace holds (chunks(path, 2**40) must not ask for 8 TiB)
        stats = self.info["stats"]
        if stats["complete"]:
            step = min(step, stats["records"] + 1)
        names = self._names(columns)
        rng = _check_range(time_range)
        if rng is None:
            self._r.rewind()
        else:
            self._r.set_issue_range(*rng)
        while True:
            part = self._r.read(step, names)
            n = len(part[names[0]]) if names else 0
            if n:
                yield part
            if n < step:
                return

    def read(self, columns=None, time_range=None):
        """The whole trace (or time_range) as a dict name -> numpy array."""
        names = self._names(columns)
        total = self.info["stats"]["records"]
        # the totals are known (and exact) for a complete file; otherwise
        # read in chunks and join them
        size = total + 1 if self.info["stats"]["complete"] and time_range is None else _DEFAULT_CHUNK
        parts = list(self.chunks(max(size, 1), names, time_range))
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return {c: _np.empty(0, dtype=COLUMNS[c]) for c in names}
        return {c: _np.concatenate([p[c] for p in parts]) for c in names}

    def strings(self, ids):
        """The strings (process names, paths) of the ids in `ids`, as a list
        indexed by id from 0 to max(ids): "" for an unknown id."""
        ids = _np.asarray(ids)
        return self._r.strings(int(ids.max()) + 1 if ids.size else 0)

    def paths(self):
        """The path table: [(file_dev, inode, path)] (format 1.3 captures)."""
        return self._r.paths()

    def to_pandas(self, columns=None, time_range=None):
        """A DataFrame: op, flags, dev (device name), comm (process name) and
        the other names as categories; times int64 ns."""
        import pandas as pd

        names = self._names(columns)
        cols = self.read(names, time_range)
        out = {}
        for c in names:
            a = cols[c]
            if c == "op":
                out[c] = pd.Categorical.from_codes(a.astype(_np.int16), categories=_NAMES["op"])
            elif c == "flags":
                cats = [f or "-" for f in _NAMES["flags"]]
                out[c] = pd.Categorical.from_codes(a.astype(_np.int16), categories=cats)
            elif c == "completion":
                out[c] = pd.Categorical.from_codes(a.astype(_np.int16), categories=_NAMES["completion"])
            elif c == "file_class":
                out[c] = pd.Categorical.from_codes(a.astype(_np.int16), categories=_NAMES["file_class"])
            elif c == "dev":
                devs = [d["name"] for d in self.info["devices"]]
                out[c] = pd.Categorical.from_codes(a.astype(_np.int64), categories=_unique(devs))
            elif c in ("comm_id", "cause_comm_id", "cause2_comm_id"):
                key = c[:-3]  # comm, cause_comm, cause2_comm
                out[key] = _strings_category(pd, self.strings(a), a)
            else:
                out[c] = a
        return pd.DataFrame(out)


def _unique(names):
    """Category labels must differ: a repeated name gets '#index'."""
    seen, out = set(), []
    for i, n in enumerate(names):
        out.append(n if n not in seen else f"{n}#{i}")
        seen.add(n)
    return out


def _strings_category(pd, table, ids):
    """ids -> a categorical of the strings they name (equal strings one
    category)."""
    cats, codes_of = [], {}
    remap = _np.empty(len(table), dtype=_np.int64)
    for i, s in enumerate(table):
        if s not in codes_of:
            codes_of[s] = len(cats)
            cats.append(s)
        remap[i] = codes_of[s]
    codes = remap[ids] if len(ids) else _np.empty(0, dtype=_np.int64)
    return pd.Categorical.from_codes(codes, categories=cats)


def read(path, columns=None, time_range=None):
    """Read a trace into a dict column name -> numpy array.

    columns: names of COLUMNS (default: every column the trace has);
    time_range: (start_ns, end_ns), inclusive, of issue times from the
    trace's start: only those records (blocks outside it are not read).
    """
    with Trace(path) as t:
        return t.read(columns, time_range)


def to_pandas(path, columns=None, time_range=None):
    """Read a trace into a pandas DataFrame (see Trace.to_pandas)."""
    with Trace(path) as t:
        return t.to_pandas(columns, time_range)


def chunks(path, chunk_records=_DEFAULT_CHUNK, columns=None, time_range=None):
    """Iterate over a trace in dicts of at most chunk_records rows: memory
    stays bounded whatever the trace's length."""
    with Trace(path) as t:
        yield from t.chunks(chunk_records, columns, time_range)


def info(path):
    """The header as a dict: kind, format, host, kernel, start_wall_ns,
    columns (optional ones carried), devices (list of dicts), meta (dict),
    stats (records, blocks, first/last issue, losses, complete...)."""
    with Trace(path) as t:
        return t.info


def columns(path):
    """The column names the trace at path has."""
    with Trace(path) as t:
        return t.columns()
