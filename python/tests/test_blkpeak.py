"""pytest tests of the Python module (python/blkpeak/, docs/python.md).

Run by tests/e2e/17-python.sh (make check) with PYTHONPATH=build/python and
BLKPEAK=the blkpeak binary, whose `info --json` and `dump --format csv`
are what the module's results are compared with.
"""
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import blkpeak

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BLKPEAK = os.environ.get("BLKPEAK", os.path.join(ROOT, "build", "blkpeak"))
CAPTURE = os.path.join(ROOT, "tests", "fixtures", "capture", "ext4-dd-cp.bpt")
MSR = os.path.join(ROOT, "tests", "fixtures", "formats", "msr.csv")
BLKPARSE = os.path.join(ROOT, "tests", "fixtures", "formats", "blkparse.txt")
TRACES = [CAPTURE, MSR, BLKPARSE]


def info_json(path):
    out = subprocess.run([BLKPEAK, "info", "--json", path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def dump_csv(path, *args):
    out = subprocess.run([BLKPEAK, "dump", "--format", "csv", path, *args], check=True,
                         capture_output=True, text=True)
    import io
    return pd.read_csv(io.StringIO(out.stdout), keep_default_na=False, dtype={"comm": str, "flags": str})


def us_to_ns(col):
    # dump prints microseconds with three decimals: exact nanoseconds
    return np.array([round(float(v) * 1000) for v in col], dtype=np.int64)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A generated trace of several blocks (200 000 I/Os)."""
    p = str(tmp_path_factory.mktemp("gen") / "g.bpt")
    subprocess.run([BLKPEAK, "generate", "--pattern", "fileserver", "--count", "200000", "--seed", "7",
                    "-o", p], check=True, capture_output=True)
    return p


@pytest.mark.parametrize("path", TRACES, ids=["capture", "msr", "blkparse"])
def test_counts_match_info(path):
    info = info_json(path)
    cols = blkpeak.read(path)
    n = info["ios"]
    assert n > 0
    assert all(len(a) == n for a in cols.values())
    ops = np.bincount(cols["op"], minlength=5)
    for i, name in enumerate(["read", "write", "flush", "discard", "write-zeroes"]):
        assert ops[i] == info["mix"].get(name, {"ios": 0})["ios"], name
        assert int(cols["bytes"][cols["op"] == i].sum()) == info["mix"].get(name, {"bytes": 0})["bytes"]


@pytest.mark.parametrize("path", TRACES, ids=["capture", "msr", "blkparse"])
def test_values_match_dump(path):
    d = dump_csv(path)
    c = blkpeak.read(path)
    assert (c["issue_ns"] == us_to_ns(d["issue_us"])).all()
    assert (c["complete_ns"] == us_to_ns(d["complete_us"])).all()
    assert (c["sector"] == d["sector"].to_numpy(dtype=np.uint64)).all()
    assert (c["bytes"] == d["bytes"].to_numpy()).all()
    assert (c["pid"] == d["pid"].to_numpy()).all()


def test_header_info_meta_devices():
    info = info_json(CAPTURE)
    h = blkpeak.info(CAPTURE)
    assert h["kind"] == info["kind"] == "capture"
    assert h["format"] == info["format"]
    assert h["start_wall_ns"] == info["start_wall_ns"]
    assert h["meta"] == info["meta"]
    assert [d["name"] for d in h["devices"]] == [d["name"] for d in info["devices"]]
    assert [d["size_bytes"] for d in h["devices"]] == [d["size_bytes"] for d in info["devices"]]
    assert h["stats"]["records"] == info["ios"] and h["stats"]["complete"] is True
    assert set(h["columns"]) == {"completion", "file", "cause"}
    assert blkpeak.info(MSR)["meta"]["import.format"] == "msr"


def test_to_pandas_types_and_groups():
    df = blkpeak.to_pandas(CAPTURE)
    d = dump_csv(CAPTURE)
    for c in ("op", "flags", "comm", "dev", "completion", "file_class"):
        assert isinstance(df[c].dtype, pd.CategoricalDtype), c
    for c in ("queue_ns", "issue_ns", "complete_ns"):
        assert df[c].dtype == np.int64, c
    assert list(df["op"].astype(str)) == list(d["op"])
    assert list(df["comm"].astype(str)) == list(d["comm"])
    assert list(df["dev"].astype(str)) == list(d["dev"])
    flags = [f if f else "-" for f in d["flags"]]
    assert list(df["flags"].astype(str)) == flags
    by = df.groupby("comm", observed=True).size().to_dict()
    assert by == d.groupby("comm").size().to_dict()
    assert by["dd"] > 100


def test_foreign_to_pandas():
    df = blkpeak.to_pandas(MSR)
    assert list(df["dev"].astype(str)) == list(dump_csv(MSR)["dev"])
    assert "file_class" not in df.columns  # an MSR trace has no file columns


def test_columns_selection_and_errors():
    c = blkpeak.read(CAPTURE, columns=["issue_ns", "bytes"])
    assert list(c) == ["issue_ns", "bytes"] and c["bytes"].dtype == np.uint32
    with pytest.raises(KeyError, match="no column 'nope'"):
        blkpeak.read(CAPTURE, columns=["nope"])
    with pytest.raises(KeyError, match="'sched_ns' is not in this trace"):
        blkpeak.read(CAPTURE, columns=["sched_ns"])
    with pytest.raises(KeyError, match="file_offset"):
        blkpeak.read(MSR, columns=["file_offset"])
    with pytest.raises(ValueError, match="twice"):
        blkpeak.read(CAPTURE, columns=["bytes", "bytes"])
    with pytest.raises(TypeError):
        blkpeak.read(CAPTURE, columns="bytes")
    assert blkpeak.read(CAPTURE, columns=[]) == {}


def test_time_range(generated):
    full = blkpeak.read(generated, columns=["issue_ns", "sector"])
    lo, hi = int(full["issue_ns"][1000]), int(full["issue_ns"][150000])
    part = blkpeak.read(generated, columns=["issue_ns", "sector"], time_range=(lo, hi))
    keep = (full["issue_ns"] >= lo) & (full["issue_ns"] <= hi)
    assert keep.sum() > 100000
    assert (part["issue_ns"] == full["issue_ns"][keep]).all()
    assert (part["sector"] == full["sector"][keep]).all()
    empty = blkpeak.read(generated, columns=["issue_ns"], time_range=(1 << 62, 1 << 62))
    assert len(empty["issue_ns"]) == 0 and empty["issue_ns"].dtype == np.int64
    with pytest.raises(ValueError, match="time_range"):
        blkpeak.read(generated, time_range=(10, 5))
    with pytest.raises(TypeError):
        blkpeak.read(generated, time_range=5)


def test_chunks_equal_read(generated):
    full = blkpeak.read(generated, columns=["issue_ns", "complete_ns", "op"])
    parts = list(blkpeak.chunks(generated, 70000, columns=["issue_ns", "complete_ns", "op"]))
    assert [len(p["op"]) for p in parts] == [70000, 70000, 60000]
    for c in full:
        assert (np.concatenate([p[c] for p in parts]) == full[c]).all()
    with pytest.raises(ValueError):
        list(blkpeak.chunks(generated, 0))
    # a chunk larger than the trace is one chunk, not an array of that size
    (only,) = list(blkpeak.chunks(generated, 2**40, columns=["op"]))
    assert len(only["op"]) == 200000


def test_generated_matches_dump(generated):
    d = dump_csv(generated)
    c = blkpeak.read(generated)
    assert len(c["op"]) == 200000
    assert (c["issue_ns"] == us_to_ns(d["issue_us"])).all()
    assert (c["sector"] == d["sector"].to_numpy(dtype=np.uint64)).all()
    assert list(pd.Categorical.from_codes(c["op"], ["read", "write", "flush", "discard", "write-zeroes"])
                .astype(str)) == list(d["op"])


def test_truncated_trace_reads_the_good_blocks(generated, tmp_path):
    cut = tmp_path / "cut.bpt"
    data = open(generated, "rb").read()
    cut.write_bytes(data[: len(data) * 2 // 3])
    info = info_json(str(cut))
    c = blkpeak.read(str(cut), columns=["issue_ns"])
    assert 0 < len(c["issue_ns"]) == info["ios"] < 200000
    h = blkpeak.info(str(cut))
    assert h["stats"]["truncated"] is True and h["stats"]["complete"] is False


def test_damaged_trace_raises_naming_the_offset(generated, tmp_path):
    bad = tmp_path / "bad.bpt"
    data = bytearray(open(generated, "rb").read())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(OSError, match="bad.bpt: offset"):
        blkpeak.read(str(bad))


def test_open_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.bpt"):
        blkpeak.read(str(tmp_path / "missing.bpt"))
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"not a trace\x00\x01\n")
    with pytest.raises(OSError, match="junk.txt"):
        blkpeak.read(str(junk))
    with pytest.raises(OSError):
        blkpeak.read(str(tmp_path))  # a folder
    with pytest.raises((TypeError, ValueError)):
        blkpeak.read("nul\x00byte.bpt")


def test_closed_trace():
    t = blkpeak.Trace(CAPTURE)
    t.close()
    with pytest.raises(ValueError, match="closed"):
        t.read()
    t.close()  # twice is fine


def test_paths_and_strings():
    with blkpeak.Trace(CAPTURE) as t:
        paths = t.paths()
        c = t.read(["comm_id"])
        names = t.strings(c["comm_id"])
    assert any(p.endswith("/m/a") for _, _, p in paths)
    assert "dd" in names and "cp" in names
