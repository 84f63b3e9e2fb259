/*
 * _blkpeak.c — the C half of the Python module `blkpeak` (python/blkpeak/,
 * docs/python.md): a Reader over libbpt's reader calls that fills numpy
 * arrays, one per column, a chunk of records at a time. It sees only the
 * installed API (bpt.h) and links libbpt.so.1, so foreign traces read
 * the same way. The Python half (blkpeak/__init__.py) gives the user's
 * calls: read(), to_pandas(), chunks(), info().
 *
 * Speed is why it is C: the arrays are filled by libbpt's column-wise
 * read (bpt_reader_read_fields), with the GIL released
 * (bench/RESULTS.md, "Python module").
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bpt.h"

/* A column: a field of struct bpt_record (enum bpt_field), its numpy
 * type, and the optional column (BPT_COL_*) a file must carry for it, 0
 * when every file has it. Times are int64 (ns from the trace's start). */
struct column {
	const char *name;
	unsigned field;
	int type;
	uint32_t needs;
};

#define COL(f, F, t, n) { #f, BPT_FIELD_##F, t, n }
static const struct column columns[] = {
	COL(queue_ns, QUEUE_NS, NPY_INT64, 0),
	COL(issue_ns, ISSUE_NS, NPY_INT64, 0),
	COL(complete_ns, COMPLETE_NS, NPY_INT64, 0),
	COL(dev, DEV, NPY_UINT32, 0),
	COL(sector, SECTOR, NPY_UINT64, 0),
	COL(bytes, BYTES, NPY_UINT32, 0),
	COL(op, OP, NPY_UINT8, 0),
	COL(flags, FLAGS, NPY_UINT8, 0),
	COL(pid, PID, NPY_UINT32, 0),
	COL(comm_id, COMM_ID, NPY_UINT32, 0),
	COL(cgroup_id, CGROUP_ID, NPY_UINT64, 0),
	COL(error, ERROR, NPY_INT32, 0),
	COL(sched_ns, SCHED_NS, NPY_INT64, BPT_COL_SCHED),
	COL(source_index, SOURCE_INDEX, NPY_UINT64, BPT_COL_SOURCE),
	COL(member, MEMBER, NPY_UINT32, BPT_COL_MEMBER),
	COL(completion, COMPLETION, NPY_UINT8, BPT_COL_COMPLETION),
	COL(internal, INTERNAL, NPY_UINT8, BPT_COL_INTERNAL),
	COL(file_class, FILE_CLASS, NPY_UINT8, BPT_COL_FILE),
	COL(file_dev, FILE_DEV, NPY_UINT32, BPT_COL_FILE),
	COL(inode, INODE, NPY_UINT64, BPT_COL_FILE),
	COL(file_offset, FILE_OFFSET, NPY_UINT64, BPT_COL_FILE),
	COL(file_bytes, FILE_BYTES, NPY_UINT32, BPT_COL_FILE),
	COL(file2_dev, FILE2_DEV, NPY_UINT32, BPT_COL_FILE),
	COL(inode2, INODE2, NPY_UINT64, BPT_COL_FILE),
	COL(file2_offset, FILE2_OFFSET, NPY_UINT64, BPT_COL_FILE),
	COL(file2_bytes, FILE2_BYTES, NPY_UINT32, BPT_COL_FILE),
	COL(cause_pid, CAUSE_PID, NPY_UINT32, BPT_COL_CAUSE),
	COL(cause_comm_id, CAUSE_COMM_ID, NPY_UINT32, BPT_COL_CAUSE),
	COL(cause_cgroup, CAUSE_CGROUP, NPY_UINT64, BPT_COL_CAUSE),
	COL(cause2_pid, CAUSE2_PID, NPY_UINT32, BPT_COL_CAUSE),
	COL(cause2_comm_id, CAUSE2_COMM_ID, NPY_UINT32, BPT_COL_CAUSE),
	COL(cause2_cgroup, CAUSE2_CGROUP, NPY_UINT64, BPT_COL_CAUSE),
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

static const struct {
	uint32_t bit;
	const char *name;
} column_bits[] = {
	{ BPT_COL_SCHED, "sched" },   { BPT_COL_SOURCE, "source" },
	{ BPT_COL_MEMBER, "member" }, { BPT_COL_COMPLETION, "completion" },
	{ BPT_COL_INTERNAL, "internal" }, { BPT_COL_FILE, "file" },
	{ BPT_COL_CAUSE, "cause" },
};

typedef struct {
	PyObject_HEAD
	struct bpt_reader *r;
	PyObject *path;
} Reader;

/* OSError(errno, message): FileNotFoundError and the others by errno. */
static PyObject *raise_bpt(int rc, const struct bpt_error *err)
{
	PyObject *args = Py_BuildValue("(is)", rc < 0 ? -rc : EIO,
				       err && err->msg[0] ? err->msg : strerror(rc < 0 ? -rc : EIO));
	if (args) {
		PyErr_SetObject(PyExc_OSError, args);
		Py_DECREF(args);
	}
	return NULL;
}

static int reader_init(Reader *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", NULL };
	PyObject *path = NULL;
	struct bpt_error err = { 0 };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, PyUnicode_FSConverter, &path))
		return -1;
	if (self->r) {
		bpt_reader_close(self->r);
		self->r = NULL;
	}
	Py_XSETREF(self->path, path);
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = bpt_reader_open(&self->r, PyBytes_AS_STRING(path), &err);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		self->r = NULL;
		raise_bpt(rc, &err);
		return -1;
	}
	return 0;
}

static void reader_dealloc(Reader *self)
{
	bpt_reader_close(self->r);
	Py_XDECREF(self->path);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int need_open(Reader *self)
{
	if (self->r)
		return 0;
	PyErr_SetString(PyExc_ValueError, "the trace is closed");
	return -1;
}

static PyObject *reader_close(Reader *self, PyObject *unused)
{
	(void)unused;
	bpt_reader_close(self->r);
	self->r = NULL;
	Py_RETURN_NONE;
}

/* Set item `key` of dict `d` to a new reference `v` (stolen); -1 on error. */
static int put(PyObject *d, const char *key, PyObject *v)
{
	if (!v)
		return -1;
	int rc = PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
	return rc;
}

static PyObject *str_or_empty(const char *s, size_t max)
{
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strnlen(s, max), "replace");
}

/* header(): the file's header, devices, meta and totals as a dict. */
static PyObject *reader_header(Reader *self, PyObject *unused)
{
	(void)unused;
	if (need_open(self))
		return NULL;
	const struct bpt_header *h = bpt_reader_header(self->r);
	struct bpt_stats st;
	bpt_reader_stats(self->r, &st);
	PyObject *d = PyDict_New(), *cols = NULL, *devs = NULL, *meta = NULL, *stats = NULL;
	if (!d)
		return NULL;
	if (put(d, "kind", str_or_empty(h->kind, sizeof(h->kind))) ||
	    put(d, "format", PyUnicode_FromFormat("%u.%u", h->version_major, h->version_minor)) ||
	    put(d, "tool_version", str_or_empty(h->tool_version, sizeof(h->tool_version))) ||
	    put(d, "host", str_or_empty(h->host, sizeof(h->host))) ||
	    put(d, "kernel", str_or_empty(h->kernel, sizeof(h->kernel))) ||
	    put(d, "start_wall_ns", PyLong_FromLongLong(h->start_wall_ns)) ||
	    put(d, "start_mono_ns", PyLong_FromUnsignedLongLong(h->start_mono_ns)))
		goto fail;
	if (!(cols = PyList_New(0)))
		goto fail;
	for (size_t i = 0; i < sizeof(column_bits) / sizeof(column_bits[0]); i++)
		if (h->columns & column_bits[i].bit) {
			PyObject *s = PyUnicode_FromString(column_bits[i].name);
			if (!s || PyList_Append(cols, s)) {
				Py_XDECREF(s);
				goto fail;
			}
			Py_DECREF(s);
		}
	if (put(d, "columns", cols))
		goto fail_nocols;
	if (!(devs = PyList_New(h->ndevices)))
		goto fail_nocols;
	for (uint32_t i = 0; i < h->ndevices; i++) {
		const struct bpt_device *v = &h->devices[i];
		PyObject *e = Py_BuildValue(
			"{s:I,s:N,s:I,s:I,s:K,s:I,s:I,s:O,s:N}", "index", i, "name",
			str_or_empty(v->name, sizeof(v->name)), "major", v->major, "minor", v->minor,
			"size_bytes", (unsigned long long)v->size_bytes, "logical_block_bytes",
			v->logical_block_size, "physical_block_bytes", v->physical_block_size,
			"rotational", v->rotational ? Py_True : Py_False, "model",
			str_or_empty(v->model, sizeof(v->model)));
		if (!e)
			goto fail_devs;
		PyList_SET_ITEM(devs, i, e);
	}
	if (put(d, "devices", devs))
		goto fail_nodevs;
	if (!(meta = PyDict_New()))
		goto fail_nodevs;
	for (uint32_t i = 0; i < h->nmeta; i++) {
		PyObject *v = str_or_empty(h->meta[i].value, sizeof(h->meta[i].value));
		PyObject *k = str_or_empty(h->meta[i].key, sizeof(h->meta[i].key));
		int rc = (!k || !v) ? -1 : PyDict_SetItem(meta, k, v);
		Py_XDECREF(k);
		Py_XDECREF(v);
		if (rc)
			goto fail_meta;
	}
	if (put(d, "meta", meta))
		goto fail_nodevs;
	stats = Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:O,s:O}",
			      "records", (unsigned long long)st.records,
			      "blocks", (unsigned long long)st.blocks,
			      "first_issue_ns", (unsigned long long)st.first_issue_ns,
			      "last_issue_ns", (unsigned long long)st.last_issue_ns,
			      "last_complete_ns", (unsigned long long)st.last_complete_ns,
			      "lost_events", (unsigned long long)st.lost_events,
			      "loss_windows", (unsigned long long)st.loss_windows,
			      "file_bytes", (unsigned long long)st.file_bytes,
			      "valid_bytes", (unsigned long long)st.valid_bytes,
			      "complete", st.complete ? Py_True : Py_False,
			      "truncated", st.truncated ? Py_True : Py_False);
	if (put(d, "stats", stats))
		goto fail_nodevs;
	return d;
fail_meta:
	Py_DECREF(meta);
	goto fail_nodevs;
fail_devs:
	Py_DECREF(devs);
	goto fail_nodevs;
fail:
	Py_XDECREF(cols);
fail_nocols:
fail_nodevs:
	Py_DECREF(d);
	return NULL;
}

/* string(id): a process name (comm_id, cause_comm_id) or path by id; None
 * when the id is unknown. */
static PyObject *reader_string(Reader *self, PyObject *arg)
{
	if (need_open(self))
		return NULL;
	unsigned long id = PyLong_AsUnsignedLong(arg);
	if (PyErr_Occurred())
		return NULL;
	const char *s = id <= UINT32_MAX ? bpt_reader_string(self->r, (uint32_t)id) : NULL;
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* strings(ids): [string(id) for id in range(n)], "" for unknown ids. */
static PyObject *reader_strings(Reader *self, PyObject *arg)
{
	if (need_open(self))
		return NULL;
	Py_ssize_t n = PyLong_AsSsize_t(arg);
	if (n < 0) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "strings(n): n must be >= 0");
		return NULL;
	}
	PyObject *l = PyList_New(n);
	for (Py_ssize_t i = 0; l && i < n; i++) {
		const char *s = i <= (Py_ssize_t)UINT32_MAX ? bpt_reader_string(self->r, (uint32_t)i) : NULL;
		PyObject *v = PyUnicode_DecodeUTF8(s ? s : "", s ? (Py_ssize_t)strlen(s) : 0, "replace");
		if (!v) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, v);
	}
	return l;
}

/* paths(): [(file_dev, inode, path)] of the trace's path table. */
static PyObject *reader_paths(Reader *self, PyObject *unused)
{
	(void)unused;
	if (need_open(self))
		return NULL;
	const struct bpt_path *p;
	size_t n = bpt_reader_paths(self->r, &p);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		const char *s = bpt_reader_string(self->r, p[i].path_id);
		PyObject *t = Py_BuildValue("(IKN)", p[i].file_dev, (unsigned long long)p[i].inode,
					    PyUnicode_DecodeUTF8(s ? s : "", s ? (Py_ssize_t)strlen(s) : 0, "replace"));
		if (!t) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, t);
	}
	return l;
}

/* set_issue_range(lo, hi): only records issued in [lo, hi] ns from now
 * on (after a rewind). */
static PyObject *reader_set_range(Reader *self, PyObject *args)
{
	unsigned long long lo, hi;
	struct bpt_error err = { 0 };

	if (need_open(self) || !PyArg_ParseTuple(args, "KK", &lo, &hi))
		return NULL;
	if (lo > hi) {
		PyErr_Format(PyExc_ValueError, "time_range: start %llu is after end %llu", lo, hi);
		return NULL;
	}
	int rc = bpt_reader_rewind(self->r, &err);
	if (rc < 0)
		return raise_bpt(rc, &err);
	rc = bpt_reader_set_issue_range(self->r, lo, hi);
	if (rc < 0)
		return raise_bpt(rc, NULL);
	Py_RETURN_NONE;
}

static PyObject *reader_rewind(Reader *self, PyObject *unused)
{
	struct bpt_error err = { 0 };
	(void)unused;
	if (need_open(self))
		return NULL;
	int rc = bpt_reader_rewind(self->r, &err);
	if (rc < 0)
		return raise_bpt(rc, &err);
	Py_RETURN_NONE;
}

/*
 * read(n, names): the next at most n records as a dict name -> 1-d numpy
 * array, in the order of `names` (a sequence of column names, each known
 * and carried by the file: the Python half checks and says which is not).
 * Fewer than n rows at the end of the trace; 0 rows after it.
 */
static PyObject *reader_read(Reader *self, PyObject *args)
{
	Py_ssize_t n;
	PyObject *names;
	if (need_open(self) || !PyArg_ParseTuple(args, "nO", &n, &names))
		return NULL;
	if (n < 0) {
		PyErr_SetString(PyExc_ValueError, "read(n): n must be >= 0");
		return NULL;
	}
	PyObject *seq = PySequence_Fast(names, "columns must be a sequence of names");
	if (!seq)
		return NULL;
	Py_ssize_t nc = PySequence_Fast_GET_SIZE(seq);
	const struct column *sel[NCOLUMNS];
	PyArrayObject *arr[NCOLUMNS];
	struct bpt_field_out dst[NCOLUMNS];
	PyObject *out = NULL;
	int made = 0;

	if (nc > (Py_ssize_t)NCOLUMNS) {
		PyErr_SetString(PyExc_ValueError, "a column is named twice");
		goto done;
	}
	for (Py_ssize_t i = 0; i < nc; i++) {
		const char *name = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
		if (!name)
			goto done;
		sel[i] = NULL;
		for (size_t c = 0; c < NCOLUMNS; c++)
			if (!strcmp(columns[c].name, name))
				sel[i] = &columns[c];
		if (!sel[i]) {
			PyErr_Format(PyExc_KeyError, "no column '%s'", name);
			goto done;
		}
		npy_intp dim = n;
		arr[i] = (PyArrayObject *)PyArray_SimpleNew(1, &dim, sel[i]->type);
		if (!arr[i])
			goto done;
		made = (int)i + 1;
		if (PyArray_ITEMSIZE(arr[i]) != (int)bpt_field_size(sel[i]->field)) {
			PyErr_Format(PyExc_SystemError, "column %s: numpy and libbpt widths differ", name);
			goto done;
		}
		dst[i].field = sel[i]->field;
		dst[i].data = PyArray_BYTES(arr[i]);
	}

	struct bpt_error err = { 0 };
	int64_t got;
	Py_BEGIN_ALLOW_THREADS
	got = bpt_reader_read_fields(self->r, dst, (unsigned)nc, (size_t)n, &err);
	Py_END_ALLOW_THREADS
	if (got < 0) {
		raise_bpt((int)got, &err);
		goto done;
	}
	if (!(out = PyDict_New()))
		goto done;
	for (Py_ssize_t i = 0; i < nc; i++) {
		PyObject *a = (PyObject *)arr[i];
		if (got < n) {
			/* the end: the array shrunk to the filled rows in place
			 * (realloc; no other reference to it exists yet), not
			 * copied: read() asks for one row more than a complete
			 * trace holds, and a copy of every column was a quarter
			 * of its time */
			npy_intp rows = (npy_intp)got;
			PyArray_Dims dims = { &rows, 1 };
			PyObject *res = PyArray_Resize(arr[i], &dims, 0, NPY_CORDER);
			if (!res) {
				Py_CLEAR(out);
				goto done;
			}
			Py_DECREF(res);
		}
		if (PyDict_SetItemString(out, sel[i]->name, a)) {
			Py_CLEAR(out);
			goto done;
		}
	}
done:
	for (int i = 0; i < made; i++)
		Py_DECREF(arr[i]);
	Py_DECREF(seq);
	return out;
}

/* column_info(): ((name, numpy dtype char, needs column name or None), ...) */
static PyObject *column_info(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	PyObject *t = PyTuple_New(NCOLUMNS);
	for (size_t c = 0; t && c < NCOLUMNS; c++) {
		const char *needs = NULL;
		for (size_t b = 0; b < sizeof(column_bits) / sizeof(column_bits[0]); b++)
			if (columns[c].needs == column_bits[b].bit)
				needs = column_bits[b].name;
		PyArray_Descr *d = PyArray_DescrFromType(columns[c].type);
		PyObject *e = d ? Py_BuildValue("(sNz)", columns[c].name, (PyObject *)d, needs) : NULL;
		if (!e) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, (Py_ssize_t)c, e);
	}
	return t;
}

static PyObject *names_of(const char *(*fn)(unsigned), unsigned n)
{
	PyObject *l = PyList_New(n);
	for (unsigned i = 0; l && i < n; i++) {
		PyObject *s = PyUnicode_FromString(fn(i));
		if (!s) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, s);
	}
	return l;
}

static const char *flags_name(unsigned f)
{
	static char buf[BPT_F__ALL + 1][8];
	return bpt_flags_str(f, buf[f]);
}

/* names(): op, flag-set, completion and file-class names by value. */
static PyObject *names(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return Py_BuildValue("{s:N,s:N,s:N,s:N}", "op", names_of(bpt_op_name, BPT_OP__COUNT),
			     "flags", names_of(flags_name, BPT_F__ALL + 1), "completion",
			     names_of(bpt_completion_name, BPT_COMPLETION__COUNT), "file_class",
			     names_of(bpt_file_class_name, BPT_FILE__COUNT));
}

static PyMethodDef reader_methods[] = {
	{ "header", (PyCFunction)reader_header, METH_NOARGS, "the header, devices, meta and totals" },
	{ "read", (PyCFunction)reader_read, METH_VARARGS, "read(n, names): the next n records" },
	{ "string", (PyCFunction)reader_string, METH_O, "string(id): a string of the table" },
	{ "strings", (PyCFunction)reader_strings, METH_O, "strings(n): strings 0..n-1" },
	{ "paths", (PyCFunction)reader_paths, METH_NOARGS, "the path table" },
	{ "set_issue_range", (PyCFunction)reader_set_range, METH_VARARGS, "rewind, then only [lo, hi] ns" },
	{ "rewind", (PyCFunction)reader_rewind, METH_NOARGS, "back to the first record" },
	{ "close", (PyCFunction)reader_close, METH_NOARGS, "close the trace" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject ReaderType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "blkpeak._blkpeak.Reader",
	.tp_basicsize = sizeof(Reader),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Reader(path): a .bpt trace or a foreign one, through libbpt",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)reader_init,
	.tp_dealloc = (destructor)reader_dealloc,
	.tp_methods = reader_methods,
};

static PyMethodDef module_methods[] = {
	{ "column_info", column_info, METH_NOARGS, "the columns: (name, dtype, needs)" },
	{ "names", names, METH_NOARGS, "names of ops, flag sets, completions, file classes" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_blkpeak", "libbpt for Python (use the blkpeak package)", -1,
	module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__blkpeak(void)
{
	import_array();
	if (PyType_Ready(&ReaderType) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&module);
	if (!m)
		return NULL;
	Py_INCREF(&ReaderType);
	if (PyModule_AddObject(m, "Reader", (PyObject *)&ReaderType) < 0) {
		Py_DECREF(&ReaderType);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
