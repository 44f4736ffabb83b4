/* SPDX-License-Identifier: MIT */
/*
 * Data pattern of the all-to-all program: the block card @src sends to
 * card @dst holds bytes that depend on (src, dst, offset), so a block that
 * lands in the wrong slot, at the wrong offset, or half-copied is caught.
 * Each 8-byte word is a 64-bit mix of the pair key and the word index.
 */
#ifndef M890_A2A_PATTERN_H
#define M890_A2A_PATTERN_H

#include <stdint.h>
#include <string.h>

static inline uint64_t a2a_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t a2a_pattern_word(uint32_t src, uint32_t dst,
					uint64_t word)
{
	uint64_t key = ((uint64_t)src << 32 | dst) * 0x9e3779b97f4a7c15ull;

	return a2a_mix64(key ^ a2a_mix64(word + 1));
}

/* Byte @off of block (src, dst), little-endian within each word. */
static inline uint8_t a2a_pattern_byte(uint32_t src, uint32_t dst,
				       uint64_t off)
{
	return (uint8_t)(a2a_pattern_word(src, dst, off >> 3) >>
			 ((off & 7) * 8));
}

/* Write @bytes of block (src, dst) to @buf. */
static inline void a2a_pattern_fill(uint8_t *buf, uint32_t src, uint32_t dst,
				    uint64_t bytes)
{
	uint64_t w, words = bytes / 8;

	for (w = 0; w < words; w++) {
		uint64_t v = a2a_pattern_word(src, dst, w);
		uint8_t b[8];

		for (int k = 0; k < 8; k++)
			b[k] = (uint8_t)(v >> (8 * k));
		memcpy(buf + w * 8, b, 8);
	}
	for (uint64_t off = words * 8; off < bytes; off++)
		buf[off] = a2a_pattern_byte(src, dst, off);
}

/*
 * Compare @bytes of @buf with block (src, dst).  Returns the offset of the
 * first wrong byte, or @bytes when all match.
 */
static inline uint64_t a2a_pattern_check(const uint8_t *buf, uint32_t src,
					 uint32_t dst, uint64_t bytes)
{
	uint64_t w, words = bytes / 8;

	for (w = 0; w < words; w++) {
		uint64_t v = a2a_pattern_word(src, dst, w);

		for (int k = 0; k < 8; k++)
			if (buf[w * 8 + k] != (uint8_t)(v >> (8 * k)))
				return w * 8 + k;
	}
	for (uint64_t off = words * 8; off < bytes; off++)
		if (buf[off] != a2a_pattern_byte(src, dst, off))
			return off;
	return bytes;
}

#endif /* M890_A2A_PATTERN_H */
