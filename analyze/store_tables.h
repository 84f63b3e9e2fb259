/*
 * store_tables.h — the tables and columns that the SQLite and PostgreSQL
 * schemas share (everything but the I/Os, which each engine stores its
 * own way), in an order that respects their foreign keys. Rows move
 * between the engines by these names (xfer.h).
 */
#ifndef BLKPEAK_ANALYZE_STORE_TABLES_H
#define BLKPEAK_ANALYZE_STORE_TABLES_H

#define ST_TRACES "id, digest, path, kind, format_version, tool_version, host, kernel," \
	" start_wall_ns, columns, ios, bytes, first_issue_ns, last_complete_ns, lost_events," \
	" loss_windows, truncated, file_bytes, meta, imported_at, label"
#define ST_DEVICES "trace_id, idx, name, major, minor, size_bytes, logical_block_size," \
	" physical_block_size, rotational, model"
#define ST_PROCESSES "trace_id, comm_id, comm"
#define ST_LOSSES "trace_id, t0_ns, t1_ns, count"
#define ST_PATHS "trace_id, file_dev, inode, seq, path"
#define ST_RUNS "trace_id, source_digest, source_trace_id, source_path, target, timing," \
	" speed, queue_depth, engine, host, kernel, ios_total, partial, stop_reason"
#define ST_COMPARISONS "id, created_at, baseline_trace_id, source_digest, forced, files"
#define ST_ENTRIES "comparison_id, position, trace_id, label, duration_ns, ios, bytes, iops," \
	" mbps, time_saved_pct, speedup_pct, service_p50_ns, service_p99_ns," \
	" service_p999_ns, total_p50_ns, total_p99_ns, total_p999_ns, errors"
#define ST_MEASUREMENTS "id, kind, target, capacity_bytes, started_wall_ns, access, engine," \
	" ios_per_step, warmup_ios, warmup_ns, time_limit_ns, write_cache, weights," \
	" weights_from, score_ios_per_s, tool_version, path, imported_at, label, knee_slo," \
	" knee_factor"
#define ST_POINTS "measurement_id, step, depth, zone, offset_bytes, span_bytes, span_pct," \
	" weight, ios, bytes, errors, window_ns, ios_per_s, mb_per_s, mean_ns, p50_ns," \
	" p90_ns, p99_ns, p999_ns, p9999_ns, max_ns, speed_factor, met"
#define ST_SUITE_RESULTS "suite_digest, suite_name, workload, kind, label, host, repeat_no," \
	" trace_id, measurement_id"
/* A result stored again replaces its row (as suite_store.c does). */
#define ST_SUITE_UPSERT " ON CONFLICT (suite_digest, workload, label, host, repeat_no) DO UPDATE" \
	" SET suite_name = excluded.suite_name, kind = excluded.kind," \
	" trace_id = excluded.trace_id, measurement_id = excluded.measurement_id"

#endif
