/* Unit tests of dump's record formatting (cli/dump_format.c): the same
 * fields in text, CSV and JSON, optional columns, odd values. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_format.h"

static struct bpt_header hdr;

static void setup(void)
{
	static struct bpt_device devs[1];

	memset(&hdr, 0, sizeof(hdr));
	memset(devs, 0, sizeof(devs));
	hdr.devices = devs;
	hdr.ndevices = 1;
	strcpy(hdr.devices[0].name, "loop7");
}

static struct bpt_record sample(void)
{
	struct bpt_record r = { 0 };

	r.queue_ns = 1000500;
	r.issue_ns = 1002000;
	r.complete_ns = 1102250;
	r.sector = 123456;
	r.bytes = 4096;
	r.op = BPT_OP_WRITE;
	r.flags = BPT_F_SYNC | BPT_F_FUA;
	r.pid = 42;
	r.cgroup_id = 7;
	r.error = -5;
	r.sched_ns = 999000;
	r.source_index = 17;
	r.member = 2;
	return r;
}

/* Format two records (the second on a device missing from the table) and
 * return the output (caller frees). */
static char *run(enum dump_format fmt, uint32_t columns, const char *comm)
{
	char *buf = NULL;
	size_t len = 0;
	struct dump_out o = { .fmt = fmt, .hdr = &hdr };
	struct bpt_record r = sample();

	hdr.columns = columns;
	o.f = open_memstream(&buf, &len);
	cr_assert_not_null(o.f);
	dump_begin(&o);
	dump_record(&o, &r, comm);
	r.dev = 9;
	r.queue_ns = 0; /* unknown: shown as the issue time */
	r.op = BPT_OP_FLUSH;
	r.flags = 0;
	r.bytes = 0;
	dump_record(&o, &r, NULL);
	dump_end(&o);
	fclose(o.f);
	cr_assert_eq(o.lines, 2);
	return buf;
}

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s && *s != '\n'; s++)
		n += *s == c;
	return n;
}

Test(dump_format, csv, .init = setup)
{
	char *out = run(DUMP_CSV, 0, "dd,x");
	char *l2 = strchr(out, '\n') + 1, *l3 = strchr(l2, '\n') + 1;

	cr_assert_eq(strncmp(out, "queue_us,issue_us,complete_us,dev,sector,bytes,op,flags,pid,"
			     "comm,cgroup,wait_us,service_us,error\n", 95), 0, "%s", out);
	cr_assert_eq(strncmp(l2, "1000.500,1002.000,1102.250,loop7,123456,4096,write,SF,42,"
			     "\"dd,x\",7,1.500,100.250,-5\n", 83), 0, "%s", l2);
	cr_assert_eq(strncmp(l3, "1002.000,1002.000,1102.250,dev9,123456,0,flush,,42,,7,0.000,"
			     "100.250,-5\n", 71), 0, "%s", l3);
	cr_assert_eq(count_char(out, ','), 13);
	cr_assert_eq(count_char(l3, ','), 13);
	free(out);
}

Test(dump_format, csv_optional_columns, .init = setup)
{
	char *out = run(DUMP_CSV, BPT_COL_SCHED | BPT_COL_SOURCE | BPT_COL_MEMBER, "fio");
	char *l2 = strchr(out, '\n') + 1;

	cr_assert(strstr(out, ",error,sched_us,source,member\n"));
	cr_assert(strstr(l2, ",-5,999.000,17,2\n"), "%s", l2);
	free(out);
}

Test(dump_format, json, .init = setup)
{
	char *out = run(DUMP_JSON, BPT_COL_SOURCE, "a\"b");

	cr_assert_eq(out[0], '[');
	cr_assert(strstr(out, "{\"queue_us\":1000.500,\"issue_us\":1002.000,"
			 "\"complete_us\":1102.250,\"dev\":\"loop7\",\"sector\":123456,"
			 "\"bytes\":4096,\"op\":\"write\",\"flags\":\"SF\",\"pid\":42,"
			 "\"comm\":\"a\\\"b\",\"cgroup\":7,\"wait_us\":1.500,"
			 "\"service_us\":100.250,\"error\":-5,\"source\":17},\n{"), "%s", out);
	cr_assert(strstr(out, "\"op\":\"flush\""));
	cr_assert_eq(strcmp(out + strlen(out) - 4, "}\n]\n"), 0);
	free(out);
}

Test(dump_format, json_empty, .init = setup)
{
	char *buf = NULL;
	size_t len = 0;
	struct dump_out o = { .fmt = DUMP_JSON, .hdr = &hdr };

	o.f = open_memstream(&buf, &len);
	dump_begin(&o);
	dump_end(&o);
	fclose(o.f);
	cr_assert_str_eq(buf, "[\n]\n");
	free(buf);
}

Test(dump_format, text, .init = setup)
{
	char *out = run(DUMP_TEXT, BPT_COL_MEMBER, "");
	char *l2 = strchr(out, '\n') + 1;

	cr_assert_eq(out[0], '#');
	cr_assert(strstr(out, "service_us error       member\n"), "%s", out);
	cr_assert(strstr(l2, "1000.500     1002.000     1102.250 loop7          123456     4096 write  SF         42 -"),
		  "%s", l2);
	cr_assert(strstr(l2, " flush  -  "), "no flags print as -");
	free(out);
}

Test(dump_format, parse)
{
	enum dump_format f;

	cr_assert_eq(dump_format_parse("csv", &f), 0);
	cr_assert_eq(f, DUMP_CSV);
	cr_assert_eq(dump_format_parse("json", &f), 0);
	cr_assert_eq(f, DUMP_JSON);
	cr_assert_eq(dump_format_parse("text", &f), 0);
	cr_assert_eq(f, DUMP_TEXT);
	cr_assert_neq(dump_format_parse("xml", &f), 0);
}
