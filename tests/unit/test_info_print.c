/* Unit tests of the info report (cli/info_print.c) on made-up data:
 * the truncated and verify lines, and the JSON keys scripts rely on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_print.h"

static struct bpt_header hdr;

static struct info_data make(void)
{
	struct info_data d = { .path = "t.bpt", .hdr = &hdr, .verified = -1 };

	static struct bpt_device devs[1];

	memset(&hdr, 0, sizeof(hdr));
	memset(devs, 0, sizeof(devs));
	hdr.devices = devs;
	strcpy(hdr.kind, "capture");
	hdr.version_major = 1;
	hdr.ndevices = 1;
	strcpy(hdr.devices[0].name, "loop0");
	hdr.nmeta = 1;
	strcpy(hdr.meta[0].key, "options");
	strcpy(hdr.meta[0].value, "say \"hi\"");
	trace_summary_init(&d.sum);
	for (int i = 0; i < 4; i++) {
		struct bpt_record rec = { .op = BPT_OP_READ, .bytes = 4096 };

		cr_assert_eq(trace_summary_add(&d.sum, &rec), 0);
	}
	d.st.records = 4;
	d.st.blocks = 1;
	d.st.first_issue_ns = 1000;
	d.st.last_complete_ns = 2001000;
	d.st.file_bytes = 1000;
	d.st.valid_bytes = 800;
	return d;
}

static char *print(void (*fn)(FILE *, const struct info_data *), const struct info_data *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, d);
	fclose(f);
	return buf;
}

Test(info_print, truncated_text)
{
	struct info_data d = make();
	char *s;

	d.st.truncated = 1;
	d.verified = 0;
	s = print(info_print_text, &d);
	cr_assert(strstr(s, "status:       TRUNCATED: good data ends at offset 800 (800 B), "
			 "200 bytes cut off\n"), "%s", s);
	cr_assert(strstr(s, "verified:     FAILED"));
	cr_assert(strstr(s, "time span:    0.002000 s"));
	cr_assert(strstr(s, "on disk:      1000 B (1000 bytes), 250.00 bytes per I/O"), "%s", s);
	cr_assert(strstr(s, "  read                     4  100.0%     16.0 KiB    4.0 KiB"), "%s", s);
	free(s);
}

Test(info_print, complete_json)
{
	struct info_data d = make();
	char *s;

	d.st.complete = 1;
	d.verified = 1;
	d.have_digest = 1;
	d.digest = 0xabc;
	cr_assert_eq(cut_bytes(&d.st), 0, "a complete file has nothing cut off");
	s = print(info_print_json, &d);
	cr_assert(strstr(s, "\"meta\": {\n    \"options\": \"say \\\"hi\\\"\"\n  }"), "%s", s);
	cr_assert(strstr(s, "\"mix\": {\n    \"read\": {\n      \"ios\": 4,\n      \"bytes\": 16384\n    },"), "%s", s);
	cr_assert(strstr(s, "\"complete\": true,\n  \"truncated\": false"));
	cr_assert(strstr(s, "\"cut_bytes\": 0,\n  \"digest\": \"0000000000000abc\""));
	cr_assert(strstr(s, "\"verified\": true\n}\n"));
	cr_assert(strstr(s, "\"ios\": 4\n    }\n  ],\n  \"ios\": 4,"), "%s", s);
	free(s);
}
