/* FNV-1a: a small, fast, non-cryptographic hash, for telling names apart
 * where nobody chooses them against us (a table's slot, a fingerprint that
 * is checked again, a boot id). Not for anything an attacker picks to
 * collide: that is what the keyed tokens (SHA-256) are for. */
#ifndef CGFB_FNV_H
#define CGFB_FNV_H

#include <stddef.h>
#include <stdint.h>

#define CGFB_FNV32_INIT 2166136261u
#define CGFB_FNV64_INIT 0xcbf29ce484222325ULL

static inline uint32_t cgfb_fnv32_add(uint32_t h, unsigned char c)
{
	return (h ^ c) * 16777619u;
}

static inline uint64_t cgfb_fnv64_add(uint64_t h, unsigned char c)
{
	return (h ^ c) * 0x100000001b3ULL;
}

static inline uint32_t cgfb_fnv32_str(const char *s)
{
	uint32_t h = CGFB_FNV32_INIT;

	for (; *s; s++)
		h = cgfb_fnv32_add(h, (unsigned char)*s);
	return h;
}

static inline uint64_t cgfb_fnv64(const char *s, size_t len)
{
	uint64_t h = CGFB_FNV64_INIT;

	for (size_t i = 0; i < len; i++)
		h = cgfb_fnv64_add(h, (unsigned char)s[i]);
	return h;
}

#endif
