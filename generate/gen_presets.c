/*
 * gen_presets.c — Intel's IOMeter access specifications as presets.
 *
 * These are the four server/desktop access specifications that Intel
 * distributed with IOMeter and that review sites (StorageReview.com's
 * testbed, Tom's Hardware, Tweakers.net, The SSD Review) have used since
 * the early 2000s. The numbers are those of the table Tom's Hardware
 * publishes with its IOMeter profiles ("Tom's Storage Charts 2009: A New
 * Test Environment", tomshardware.com/reviews/tom-s-hdd-charts,2285-8.html),
 * which The SSD Review's file-server sizes and Tweakers.net's 2004 RAID
 * adapter comparison agree with:
 *
 *   File Server  100% random, 80% read; sizes 512 B 10%, 1 KiB 5%,
 *                2 KiB 5%, 4 KiB 60%, 8 KiB 2%, 16 KiB 4%, 32 KiB 4%,
 *                64 KiB 10%
 *   Web Server   100% random, 100% read; sizes 512 B 22%, 1 KiB 15%,
 *                2 KiB 8%, 4 KiB 23%, 8 KiB 15%, 16 KiB 2%, 32 KiB 6%,
 *                64 KiB 7%, 128 KiB 1%, 512 KiB 1%
 *   Workstation  8 KiB, 80% read, 80% random
 *   Database     8 KiB, 67% read, 100% random
 *
 * IOMeter itself leaves the queue depth and the rate to the run (reviews
 * sweep outstanding I/Os 1..256); here they come from --queue-depth and
 * --iops like for any other pattern.
 */
#include "gen_presets.h"

#include <string.h>

static const struct gen_preset presets[] = {
	{ "fileserver",
	  "512:10,1k:5,2k:5,4k:60,8k:2,16k:4,32k:4,64k:10", 80, 100,
	  "IOMeter file server: 512 B..64 KiB mix, 80% read, 100% random" },
	{ "webserver",
	  "512:22,1k:15,2k:8,4k:23,8k:15,16k:2,32k:6,64k:7,128k:1,512k:1", 100, 100,
	  "IOMeter web server: 512 B..512 KiB mix, 100% read, 100% random" },
	{ "workstation", "8k", 80, 80,
	  "IOMeter workstation: 8 KiB, 80% read, 80% random" },
	{ "database", "8k", 67, 100,
	  "IOMeter database: 8 KiB, 67% read, 100% random" },
};

const struct gen_preset *gen_preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

const struct gen_preset *gen_presets(size_t *n)
{
	*n = sizeof(presets) / sizeof(presets[0]);
	return presets;
}
