/*
 * blktrace_decode.c — one blktrace record from bytes, in either byte
 * order and either version (blktrace_format.h has the layouts), and one
 * v0x07 record header to bytes (the blktrace writer's).
 */
#include <errno.h>
#include <string.h>

#include "blktrace_format.h"

static inline uint16_t get16(const uint8_t *p, int be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t get32(const uint8_t *p, int be)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return be ? __builtin_bswap32(v) : v;
#else
	return be ? v : __builtin_bswap32(v);
#endif
}

static inline uint64_t get64(const uint8_t *p, int be)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return be ? __builtin_bswap64(v) : v;
#else
	return be ? v : __builtin_bswap64(v);
#endif
}

int bt_layout_detect(const uint8_t *p, struct bt_layout *lay)
{
	uint32_t le = get32(p, 0), be = get32(p, 1), m;

	if ((le & BT_MAGIC_MASK) == BT_MAGIC) {
		lay->big_endian = 0;
		m = le;
	} else if ((be & BT_MAGIC_MASK) == BT_MAGIC) {
		lay->big_endian = 1;
		m = be;
	} else {
		return -EPROTO;
	}
	lay->version = m & 0xff;
	if (lay->version == BT_VERSION_1)
		lay->hdr_size = BT_HDR_SIZE_1;
	else if (lay->version == BT_VERSION_2)
		lay->hdr_size = BT_HDR_SIZE_2;
	else
		return -EPROTONOSUPPORT;
	return 0;
}

long bt_decode(const uint8_t *p, size_t avail, const struct bt_layout *lay,
	       struct bt_event *ev)
{
	int be = lay->big_endian;
	uint64_t action;
	size_t len;

	if (avail < lay->hdr_size)
		return 0;
	if (get32(p, be) != (BT_MAGIC | lay->version))
		return -EPROTO;
	ev->sequence = get32(p + 4, be);
	ev->time = get64(p + 8, be);
	ev->sector = get64(p + 16, be);
	ev->bytes = get32(p + 24, be);
	if (lay->version == BT_VERSION_1) {
		action = get32(p + 28, be);
		ev->pid = get32(p + 32, be);
		ev->dev = get32(p + 36, be);
		ev->cpu = get32(p + 40, be);
		ev->error = get16(p + 44, be);
		ev->pdu_len = get16(p + 46, be);
	} else {
		ev->pid = get32(p + 28, be);
		action = get64(p + 32, be);
		ev->dev = get32(p + 40, be);
		ev->cpu = get32(p + 44, be);
		ev->error = get16(p + 48, be);
		ev->pdu_len = get16(p + 50, be);
	}
	len = (size_t)lay->hdr_size + ev->pdu_len;
	if (avail < len)
		return 0;
	ev->cat = action >> BT_TC_SHIFT;
	ev->act = (uint16_t)(action & 0xffff & ~BT_TA_CGROUP);
	ev->pdu = p + lay->hdr_size;
	ev->cgroup = 0;
	if ((action & BT_TA_CGROUP) && ev->pdu_len >= 8) {
		ev->cgroup = get64(ev->pdu, be);
		ev->pdu += 8;
		ev->pdu_len -= 8;
	}
	return (long)len;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void put32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}

static inline void put64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

void bt_encode_v1(uint8_t out[BT_HDR_SIZE_1], uint32_t sequence, uint64_t time,
		  uint64_t sector, uint32_t bytes, uint32_t action, uint32_t pid,
		  uint32_t dev, uint32_t cpu, uint16_t error, uint16_t pdu_len)
{
	put32(out, BT_MAGIC | BT_VERSION_1);
	put32(out + 4, sequence);
	put64(out + 8, time);
	put64(out + 16, sector);
	put32(out + 24, bytes);
	put32(out + 28, action);
	put32(out + 32, pid);
	put32(out + 36, dev);
	put32(out + 40, cpu);
	put16(out + 44, error);
	put16(out + 46, pdu_len);
}
