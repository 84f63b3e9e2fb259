-- analyze.sql — the schema of the blkpeak analysis database (SQLite 3).
--
-- `blkpeak analyze import` loads .bpt files (captures, generated traces
-- and replay runs alike) into one SQLite file; report, compare, query,
-- export and the charts read it. This file is normative: analyze/db.c
-- embeds it at build time and runs it on a new, empty database.
--
-- Identification: PRAGMA application_id = 0x424C4B50 ('BLKP') marks a
-- blkpeak database; PRAGMA user_version is the schema version (10). A
-- database with an older version is migrated by analyze/db.c, a newer one
-- is refused, a file with another application id is never touched.
--
-- Conventions:
--   - every time is an INTEGER of nanoseconds relative to the trace's
--     start (record time 0), as in the .bpt file;
--   - sizes are bytes, sectors are 512-byte units;
--   - a trace is identified by its content digest (bpt_reader_digest, 16
--     lowercase hex digits), so importing the same file twice is a no-op;
--   - a replay run is a trace too (kind 'replay'): its I/Os are in `ios`
--     like any other, and `runs` adds what it replayed and how.

PRAGMA page_size = 16384;   -- fewer, larger pages: faster bulk import

-- One imported .bpt file.
CREATE TABLE IF NOT EXISTS traces (
	id               INTEGER PRIMARY KEY,
	digest           TEXT NOT NULL UNIQUE, -- content digest, hex
	path             TEXT NOT NULL,        -- the file as given to import
	kind             TEXT NOT NULL,        -- capture, generate, replay, import
	format_version   TEXT NOT NULL,        -- "1.0"
	tool_version     TEXT,                 -- blkpeak version that wrote it
	host             TEXT,
	kernel           TEXT,
	start_wall_ns    INTEGER,              -- CLOCK_REALTIME at record time 0
	columns          INTEGER NOT NULL,     -- optional columns (enum bpt_column bits)
	ios              INTEGER NOT NULL,     -- rows in `ios` for this trace
	bytes            INTEGER NOT NULL,     -- sum of ios.bytes
	first_issue_ns   INTEGER,              -- NULL when the trace is empty
	last_complete_ns INTEGER,
	lost_events      INTEGER NOT NULL DEFAULT 0, -- events the capture lost
	loss_windows     INTEGER NOT NULL DEFAULT 0,
	truncated        INTEGER NOT NULL DEFAULT 0, -- 1: imported up to the last good block
	file_bytes       INTEGER,
	meta             TEXT,                 -- header key=value pairs as a JSON object
	imported_at      TEXT NOT NULL /* UTC, ISO 8601 */,
	io_base          INTEGER NOT NULL DEFAULT 0, /* io_rows.rowid of its idx 0 (version 5) */
	label            TEXT                  /* replay --label or analyze label (version 7), NULL: none */
);

-- The device table of each trace; ios.dev is `idx` here.
CREATE TABLE IF NOT EXISTS devices (
	trace_id            INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	idx                 INTEGER NOT NULL,
	name                TEXT NOT NULL,
	major               INTEGER,
	minor               INTEGER,
	size_bytes          INTEGER,
	logical_block_size  INTEGER,
	physical_block_size INTEGER,
	rotational          INTEGER,
	model               TEXT,
	PRIMARY KEY (trace_id, idx)
);

-- The string table of each trace: process names (comm); ios.comm_id is
-- `comm_id` here.
CREATE TABLE IF NOT EXISTS processes (
	trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	comm_id  INTEGER NOT NULL,
	comm     TEXT NOT NULL,
	PRIMARY KEY (trace_id, comm_id)
);

-- Operation names, for joins: 0 read, 1 write, 2 flush, 3 discard,
-- 4 write-zeroes (enum bpt_op).
CREATE TABLE IF NOT EXISTS ops (
	op   INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO ops (op, name) VALUES
	(0, 'read'), (1, 'write'), (2, 'flush'), (3, 'discard'), (4, 'write-zeroes');

-- The I/Os, stored compactly (schema versions 5 and 6; read them through
-- the view `ios` below, which has the columns of the version-4 table).
-- One row per completed I/O in `io_rows`: its rowid is traces.io_base +
-- idx (idx = its position in the file, 0, 1, 2, ...; captures write in
-- completion order), so a trace's rows are one rowid range, read in
-- order without an index, and neither trace_id nor idx is stored. Times
-- are kept as small integers that SQLite's variable-length integers
-- store in few bytes: issue_delta = issue_ns - the issue_ns of the I/O's
-- block of 64 rowids in io_marks (3 bytes where issue_ns takes 6),
-- wait_ns = issue_ns - queue_ns (0 when the trace did not know the queue
-- time) and service_ns = complete_ns - issue_ns. Everything else of an
-- I/O that repeats (device, size, operation, flags, process, error,
-- completion) is one row of `io_kinds`, per trace, and `kind` names it.
CREATE TABLE IF NOT EXISTS io_rows (
	issue_delta INTEGER NOT NULL,          -- issue_ns - io_marks.issue_ns (version 6)
	wait_ns     INTEGER NOT NULL,
	service_ns  INTEGER NOT NULL,
	sector      INTEGER NOT NULL,
	kind        INTEGER NOT NULL           -- io_kinds.kind of this trace
);

-- The base issue time of each block of 64 io_rows rowids (blk = rowid >>
-- 6), which rows of any trace in the block add their issue_delta to.
-- Import picks the middle of the block's issue times, so that the deltas
-- of one block's I/Os are as small as they can be on both sides of 0.
CREATE TABLE IF NOT EXISTS io_marks (
	blk      INTEGER PRIMARY KEY,          -- io_rows.rowid >> 6
	issue_ns INTEGER NOT NULL
);

-- The distinct (device, size, operation, flags, process, error,
-- completion) combinations of a trace's I/Os, numbered from 0.
CREATE TABLE IF NOT EXISTS io_kinds (
	trace_id   INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	kind       INTEGER NOT NULL,
	dev        INTEGER NOT NULL,           -- devices.idx
	bytes      INTEGER NOT NULL,
	op         INTEGER NOT NULL,           -- ops.op
	flags      INTEGER NOT NULL,           -- 1 sync, 2 fua, 4 preflush, 8 meta, 16 readahead
	pid        INTEGER NOT NULL,
	comm_id    INTEGER NOT NULL,           -- processes.comm_id
	cgroup_id  INTEGER NOT NULL,
	error      INTEGER NOT NULL,           -- 0 or a negative errno
	completion INTEGER NOT NULL,           -- 0 seen, 1 reused, 2 pending
	-- version 8, from the trace's file and cause columns (format 1.3);
	-- NULL when the trace does not carry them (or the cause is unknown)
	file_class    INTEGER,                 -- file_classes.class
	file_dev      INTEGER,                 -- the file system's device, major << 20 | minor
	file_bytes    INTEGER,                 -- data: bytes of the I/O, from its start, that are the file's
	cause_pid     INTEGER,                 -- the task that caused the I/O (tgid)
	cause_comm_id INTEGER,                 -- processes.comm_id
	cause_cgroup  INTEGER,
	PRIMARY KEY (trace_id, kind)
) WITHOUT ROWID;

-- What an I/O touched (enum bpt_file_class, schemas/trace-format.md
-- "Files and paths"): only 'data' names a file.
CREATE TABLE IF NOT EXISTS file_classes (
	class INTEGER PRIMARY KEY,
	name  TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO file_classes (class, name) VALUES
	(0, 'unknown'), (1, 'data'), (2, 'metadata'), (3, 'journal'), (4, 'swap'), (5, 'raw');

-- The file of each data I/O (file_class 1; version 8), by io_rows.rowid:
-- the inode on io_kinds.file_dev and the offset in the file of the I/O's
-- first byte (NULL: not known). Only data I/Os have a row, so a trace
-- without files costs nothing here; what repeats (the file system, the
-- file's share of the I/O) is in io_kinds.
CREATE TABLE IF NOT EXISTS io_files (
	io          INTEGER PRIMARY KEY,       -- io_rows.rowid
	inode       INTEGER NOT NULL,
	file_offset INTEGER
);

-- The second file of a request that holds two (merged writeback; version
-- 8): its data follow the first file's, file2_bytes of them; the task
-- that caused that part (NULL: not known).
CREATE TABLE IF NOT EXISTS io_files2 (
	io             INTEGER PRIMARY KEY,    -- io_rows.rowid
	file2_dev      INTEGER NOT NULL,
	inode2         INTEGER NOT NULL,
	file2_offset   INTEGER,
	file2_bytes    INTEGER NOT NULL,
	cause2_pid     INTEGER,
	cause2_comm_id INTEGER,
	cause2_cgroup  INTEGER
);

-- The path table of each trace (version 8): the path(s) a file had during
-- the capture, by (file system device, inode); seq 0 is the first path
-- seen, the one reports name the file by. Deleted and renamed files keep
-- the path they were seen with.
CREATE TABLE IF NOT EXISTS paths (
	trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	file_dev INTEGER NOT NULL,
	inode    INTEGER NOT NULL,
	seq      INTEGER NOT NULL,
	path     TEXT NOT NULL,
	PRIMARY KEY (trace_id, file_dev, inode, seq)
);

-- The replay columns of the I/Os of traces that carry them (runs), by
-- io_rows.rowid; NULL where the trace lacks the column.
CREATE TABLE IF NOT EXISTS io_replay (
	io           INTEGER PRIMARY KEY,      -- io_rows.rowid
	sched_ns     INTEGER,                  -- when it was meant to issue
	source_index INTEGER,                  -- idx of the I/O in the source trace
	member       INTEGER                   -- member of a virtual array
);

-- One row per completed I/O with the columns of schema versions 1-4.
-- queue_ns equals issue_ns when the trace did not know the queue time.
-- Service latency = complete_ns - issue_ns; total = complete_ns - queue_ns.
-- The replay columns are NULL unless the trace carries them; so are the
-- file and cause columns (version 8; a file's fields only for data I/Os,
-- file2_* and cause2_* only for a request that holds a second file).
-- completion is 0 when the I/O's completion was seen; otherwise
-- complete_ns is only a bound (trace format 1.2, enum bpt_completion:
-- 1 the request was used again then, 2 the capture ended then) and the
-- report leaves the I/O out of its latency figures.
-- CROSS JOIN fixes the join order (trace, its rowid range, the block's
-- mark and the kind of each row; consecutive rows find the same mark or
-- the next, which SQLite's cursor reaches without a search): with a filter on a kind's column SQLite would otherwise
-- loop over kinds and scan the range once per kind.
-- issue_ns is CAST so that it keeps the INTEGER affinity of the column
-- it was in versions 1-5 (issue_ns > '123' compares numbers).
-- WHERE trace_id = ? reads one rowid range; ORDER BY idx sorts (order
-- by the trace's rows' rowid, as analyze/ does, reads in order).
CREATE VIEW IF NOT EXISTS ios AS
	SELECT t.id AS trace_id, r.rowid - t.io_base AS idx,
	       m.issue_ns + r.issue_delta - r.wait_ns AS queue_ns,
	       CAST(m.issue_ns + r.issue_delta AS INTEGER) AS issue_ns,
	       m.issue_ns + r.issue_delta + r.service_ns AS complete_ns, k.dev AS dev,
	       r.sector AS sector, k.bytes AS bytes, k.op AS op, k.flags AS flags,
	       k.pid AS pid, k.comm_id AS comm_id, k.cgroup_id AS cgroup_id,
	       k.error AS error, x.sched_ns AS sched_ns,
	       x.source_index AS source_index, x.member AS member,
	       k.completion AS completion,
	       k.file_class AS file_class, k.file_dev AS file_dev, f.inode AS inode,
	       f.file_offset AS file_offset, k.file_bytes AS file_bytes,
	       g.file2_dev AS file2_dev, g.inode2 AS inode2, g.file2_offset AS file2_offset,
	       g.file2_bytes AS file2_bytes, k.cause_pid AS cause_pid,
	       k.cause_comm_id AS cause_comm_id, k.cause_cgroup AS cause_cgroup,
	       g.cause2_pid AS cause2_pid, g.cause2_comm_id AS cause2_comm_id,
	       g.cause2_cgroup AS cause2_cgroup
	FROM traces t
	CROSS JOIN io_rows r ON r.rowid >= t.io_base AND r.rowid < t.io_base + t.ios
	CROSS JOIN io_marks m ON m.blk = r.rowid >> 6
	CROSS JOIN io_kinds k ON k.trace_id = t.id AND k.kind = r.kind
	LEFT JOIN io_replay x ON x.io = r.rowid
	LEFT JOIN io_files f ON f.io = r.rowid
	LEFT JOIN io_files2 g ON g.io = r.rowid;

-- Writing through the view, for hand-made databases (tests, scripts);
-- `blkpeak analyze import` writes the tables directly, faster. A trace's
-- rows go in idx order from 0: idx 0 places the trace's range after every
-- row there is (traces.io_base), and traces.ios must count the rows for
-- the view to show them.
CREATE TRIGGER IF NOT EXISTS ios_insert INSTEAD OF INSERT ON ios
BEGIN
	UPDATE traces SET io_base = (SELECT coalesce(max(rowid), 0) + 1 FROM io_rows)
	WHERE id = NEW.trace_id AND NEW.idx = 0;
	INSERT INTO io_kinds (trace_id, kind, dev, bytes, op, flags, pid, comm_id,
			      cgroup_id, error, completion, file_class, file_dev, file_bytes,
			      cause_pid, cause_comm_id, cause_cgroup)
	SELECT NEW.trace_id, (SELECT coalesce(max(kind), -1) + 1 FROM io_kinds
			      WHERE trace_id = NEW.trace_id),
	       NEW.dev, NEW.bytes, NEW.op, NEW.flags, NEW.pid, NEW.comm_id,
	       NEW.cgroup_id, NEW.error, coalesce(NEW.completion, 0), NEW.file_class,
	       NEW.file_dev, NEW.file_bytes, NEW.cause_pid, NEW.cause_comm_id, NEW.cause_cgroup
	WHERE NOT EXISTS (SELECT 1 FROM io_kinds k WHERE k.trace_id = NEW.trace_id
			  AND k.dev = NEW.dev AND k.bytes = NEW.bytes AND k.op = NEW.op
			  AND k.flags = NEW.flags AND k.pid = NEW.pid
			  AND k.comm_id = NEW.comm_id AND k.cgroup_id = NEW.cgroup_id
			  AND k.error = NEW.error
			  AND k.completion = coalesce(NEW.completion, 0)
			  AND k.file_class IS NEW.file_class AND k.file_dev IS NEW.file_dev
			  AND k.file_bytes IS NEW.file_bytes AND k.cause_pid IS NEW.cause_pid
			  AND k.cause_comm_id IS NEW.cause_comm_id
			  AND k.cause_cgroup IS NEW.cause_cgroup);
	INSERT OR IGNORE INTO io_marks (blk, issue_ns)
	SELECT (t.io_base + NEW.idx) >> 6, NEW.issue_ns FROM traces t WHERE t.id = NEW.trace_id;
	INSERT INTO io_rows (rowid, issue_delta, wait_ns, service_ns, sector, kind)
	SELECT t.io_base + NEW.idx, NEW.issue_ns - m.issue_ns, NEW.issue_ns - NEW.queue_ns,
	       NEW.complete_ns - NEW.issue_ns, NEW.sector, k.kind
	FROM traces t JOIN io_kinds k ON k.trace_id = t.id
	JOIN io_marks m ON m.blk = (t.io_base + NEW.idx) >> 6
	WHERE t.id = NEW.trace_id AND k.dev = NEW.dev AND k.bytes = NEW.bytes
	  AND k.op = NEW.op AND k.flags = NEW.flags AND k.pid = NEW.pid
	  AND k.comm_id = NEW.comm_id AND k.cgroup_id = NEW.cgroup_id
	  AND k.error = NEW.error AND k.completion = coalesce(NEW.completion, 0)
	  AND k.file_class IS NEW.file_class AND k.file_dev IS NEW.file_dev
	  AND k.file_bytes IS NEW.file_bytes
	  AND k.cause_pid IS NEW.cause_pid AND k.cause_comm_id IS NEW.cause_comm_id
	  AND k.cause_cgroup IS NEW.cause_cgroup;
	INSERT INTO io_files (io, inode, file_offset)
	SELECT t.io_base + NEW.idx, NEW.inode, NEW.file_offset
	FROM traces t WHERE t.id = NEW.trace_id AND NEW.inode IS NOT NULL;
	INSERT INTO io_files2 (io, file2_dev, inode2, file2_offset, file2_bytes, cause2_pid,
			       cause2_comm_id, cause2_cgroup)
	SELECT t.io_base + NEW.idx, NEW.file2_dev, NEW.inode2, NEW.file2_offset, NEW.file2_bytes,
	       NEW.cause2_pid, NEW.cause2_comm_id, NEW.cause2_cgroup
	FROM traces t WHERE t.id = NEW.trace_id AND NEW.inode2 IS NOT NULL;
	INSERT INTO io_replay (io, sched_ns, source_index, member)
	SELECT t.io_base + NEW.idx, NEW.sched_ns, NEW.source_index, NEW.member
	FROM traces t WHERE t.id = NEW.trace_id AND (NEW.sched_ns IS NOT NULL
	      OR NEW.source_index IS NOT NULL OR NEW.member IS NOT NULL);
END;

-- Events a capture lost (ring buffer overflow), per window.
CREATE TABLE IF NOT EXISTS losses (
	trace_id INTEGER NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
	t0_ns    INTEGER NOT NULL,
	t1_ns    INTEGER NOT NULL,
	count    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS losses_trace ON losses (trace_id);

-- A replay run: the trace row of the run file plus what it replayed and
-- how (from the run's header meta). source_trace_id is filled when the
-- source trace is in the database (at import of either file); the link
-- itself is the digest.
-- A partial run stopped before its last I/O (Ctrl-C, --stop-on-error, an
-- engine failure) or its file was cut before the replay ended (run.ios in
-- the header but no run.status at the end): its figures cover `traces.ios`
-- of `ios_total` I/Os, and compare refuses it without --allow-partial.
-- Runs written before blkpeak recorded this (no run.ios) have partial 0
-- and ios_total NULL. Schema version 2 added the last three columns.
CREATE TABLE IF NOT EXISTS runs (
	trace_id        INTEGER PRIMARY KEY REFERENCES traces(id) ON DELETE CASCADE,
	source_digest   TEXT,                  -- traces.digest of the replayed trace
	source_trace_id INTEGER REFERENCES traces(id),
	source_path     TEXT,
	target          TEXT,                  -- device, file or array spec
	timing          TEXT,                  -- original, afap, causal
	speed           REAL,
	queue_depth     INTEGER,
	engine          TEXT,
	host            TEXT,
	kernel          TEXT,
	ios_total       INTEGER,               -- I/Os the replay was to do (run.ios), NULL: not recorded
	partial         INTEGER NOT NULL DEFAULT 0, -- 1: the run did not do them all
	stop_reason     TEXT                   -- partial: why, e.g. interrupted by SIGINT
);
CREATE INDEX IF NOT EXISTS runs_source ON runs (source_digest);

-- A comparison made by `blkpeak analyze compare`: several traces/runs of
-- the same I/O, the first being the baseline.
CREATE TABLE IF NOT EXISTS comparisons (
	id                INTEGER PRIMARY KEY,
	created_at        TEXT NOT NULL,       -- UTC, ISO 8601
	baseline_trace_id INTEGER NOT NULL REFERENCES traces(id),
	source_digest     TEXT,                -- the trace all entries replay (or are)
	forced            INTEGER NOT NULL DEFAULT 0, -- 1: entries of different traces (--force)
	files             TEXT                 /* compare --files (version 8): the patterns, one a line; NULL: every I/O */
);

-- One column of a comparison's table. Percentages are against the
-- baseline (position 0): time_saved_pct = (T0 - T) / T0 * 100,
-- speedup_pct = (T0 / T - 1) * 100. Latencies in ns.
CREATE TABLE IF NOT EXISTS comparison_entries (
	comparison_id   INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	position        INTEGER NOT NULL,
	trace_id        INTEGER NOT NULL REFERENCES traces(id),
	label           TEXT NOT NULL,         -- display label (analyze/run_label.h)
	duration_ns     INTEGER NOT NULL,      -- first issue to last completion
	ios             INTEGER NOT NULL,
	bytes           INTEGER NOT NULL,
	iops            REAL NOT NULL,
	mbps            REAL NOT NULL,         -- 10^6 bytes per second
	time_saved_pct  REAL NOT NULL,
	speedup_pct     REAL NOT NULL,
	service_p50_ns  INTEGER,
	service_p99_ns  INTEGER,
	service_p999_ns INTEGER,
	total_p50_ns    INTEGER,
	total_p99_ns    INTEGER,
	total_p999_ns   INTEGER,
	errors          INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, position)
);

-- One `blkpeak measure` (imported from its results document,
-- schemas/measure-results.schema.json). Schema version 4 added this table
-- and measurement_points. A measurement is known by (kind, target,
-- started_wall_ns): importing the same results twice is a no-op.
CREATE TABLE IF NOT EXISTS measurements (
	id              INTEGER PRIMARY KEY,
	kind            TEXT NOT NULL,         -- qd-sweep, zcav, seeks, commit, knee
	target          TEXT NOT NULL,         -- the target spec
	capacity_bytes  INTEGER NOT NULL,      -- what the target holds
	started_wall_ns INTEGER NOT NULL,      -- CLOCK_REALTIME at the start
	access          TEXT NOT NULL,         -- what the steps ran, in words
	engine          TEXT,                  -- NULL: replay's default (libaio)
	ios_per_step    INTEGER NOT NULL,      -- measured I/Os (commits) per step
	warmup_ios      INTEGER NOT NULL,      -- done before them and left out
	warmup_ns       INTEGER,               -- a warm-up in time (the first part of each step), NULL: warmup_ios
	time_limit_ns   INTEGER,               -- --time: a step's limit, NULL: none
	write_cache     TEXT,                  -- commit: sysfs write_cache state
	weights         TEXT,                  -- qd-sweep: equal, given or trace
	weights_from    TEXT,                  -- qd-sweep: the trace of the weights
	score_ios_per_s REAL,                  -- qd-sweep: sum of weight * IOPS
	tool_version    TEXT,
	path            TEXT,                  -- the results file as imported
	imported_at     TEXT NOT NULL,         -- UTC, ISO 8601
	label           TEXT,                  -- measure --label or analyze label (version 7), NULL: none
	knee_slo        TEXT,                  -- knee (version 11): the latency target, a JSON object
	                                       -- of figure and limit, {"p99_ns": 5000000}; NULL: other kinds
	knee_factor     REAL,                  -- knee: the largest speed factor that met it, NULL: none did
	UNIQUE (kind, target, started_wall_ns)
);

-- One step of a measurement: a queue depth (qd-sweep), a zone (zcav), a
-- span (seeks), the one commit step or a speed factor (knee: a replay of
-- the trace, its figures from replay's summary). Figures over the step's measured
-- I/Os (a commit is a write and its flush): window_ns from the first
-- issue to the last completion, ios_per_s = ios / window, mb_per_s =
-- bytes / window / 10^6, latencies (issue to completion) by common/stats.h's
-- nearest-rank rule.
CREATE TABLE IF NOT EXISTS measurement_points (
	measurement_id  INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
	step            INTEGER NOT NULL,      -- 0.. in the order run
	depth           INTEGER NOT NULL,      -- queue depth
	zone            INTEGER,               -- zcav: 0..zones-1
	offset_bytes    INTEGER NOT NULL,      -- zcav: the zone's first byte
	span_bytes      INTEGER NOT NULL,      -- seeks: the span; zcav: bytes read; commit: region
	span_pct        REAL,                  -- seeks: the span in % of the target
	weight          REAL,                  -- qd-sweep: the depth's weight in the score
	ios             INTEGER NOT NULL,
	bytes           INTEGER NOT NULL,
	errors          INTEGER NOT NULL,
	window_ns       INTEGER NOT NULL,
	ios_per_s       REAL NOT NULL,
	mb_per_s        REAL NOT NULL,
	mean_ns         REAL NOT NULL,
	p50_ns          INTEGER NOT NULL,
	p90_ns          INTEGER NOT NULL,
	p99_ns          INTEGER NOT NULL,
	p999_ns         INTEGER NOT NULL,
	p9999_ns        INTEGER NOT NULL,
	max_ns          INTEGER NOT NULL,
	speed_factor    REAL,                  -- knee (version 11): the step's replay speed, NULL: other kinds
	met             INTEGER,               -- knee: 1 the step met the latency target, 0 it did not
	PRIMARY KEY (measurement_id, step)
);

-- A result of `blkpeak suite run` (schema version 9): which workload of
-- which version of a suite a stored run or measurement is, on which
-- configuration (label) and host. A row names a run (trace_id) or a
-- measurement (measurement_id). Storing a workload's repeat again replaces
-- its row (a resumed suite run redoes the repeat it was cut in), so each
-- (suite version, workload, label, host, repeat) has one result.
CREATE TABLE IF NOT EXISTS suite_results (
	suite_digest    TEXT NOT NULL,         -- schemas/suite-manifest.md, "The suite's digest"
	suite_name      TEXT NOT NULL,
	workload        TEXT NOT NULL,         -- "photo-edit causal", "fileserver"
	kind            TEXT NOT NULL,         -- replay, mix, qd-sweep
	label           TEXT NOT NULL,         -- the configuration
	host            TEXT NOT NULL,
	repeat_no       INTEGER NOT NULL,      -- 1..
	trace_id        INTEGER REFERENCES traces(id) ON DELETE CASCADE,
	measurement_id  INTEGER REFERENCES measurements(id) ON DELETE CASCADE,
	PRIMARY KEY (suite_digest, workload, label, host, repeat_no)
);
CREATE INDEX IF NOT EXISTS suite_results_name ON suite_results (suite_name, label);

-- Every I/O with names and latencies spelled out, for hand-written SQL;
-- version 8 adds the names of the file class, the files' paths (their
-- first, seq 0) and the causing tasks, as trace_ios() gives them.
CREATE VIEW IF NOT EXISTS io_detail AS
	SELECT ios.*, ops.name AS op_name, processes.comm AS comm,
	       ios.complete_ns - ios.issue_ns AS service_ns,
	       ios.complete_ns - ios.queue_ns AS total_ns,
	       fc.name AS file, p1.path AS file_path, p2.path AS file2_path,
	       c1.comm AS cause_comm, c2.comm AS cause2_comm
	FROM ios
	JOIN ops ON ops.op = ios.op
	LEFT JOIN processes ON processes.trace_id = ios.trace_id
			   AND processes.comm_id = ios.comm_id
	LEFT JOIN file_classes fc ON fc.class = ios.file_class
	LEFT JOIN paths p1 ON p1.trace_id = ios.trace_id AND p1.file_dev = ios.file_dev
			  AND p1.inode = ios.inode AND p1.seq = 0
	LEFT JOIN paths p2 ON p2.trace_id = ios.trace_id AND p2.file_dev = ios.file2_dev
			  AND p2.inode = ios.inode2 AND p2.seq = 0
	LEFT JOIN processes c1 ON c1.trace_id = ios.trace_id AND c1.comm_id = ios.cause_comm_id
	LEFT JOIN processes c2 ON c2.trace_id = ios.trace_id AND c2.comm_id = ios.cause2_comm_id;

PRAGMA application_id = 1112296272; -- 0x424C4B50, 'BLKP'
PRAGMA user_version = 11;
