/*
 * rng.h -- the tests' random numbers: xorshift64*, small and the same on
 * every machine, so that a seed names the same run everywhere (the unit
 * tests' random edits and programs, and fuzz_rewrite through
 * rewrite_random.h).
 */
#ifndef KEEL_TESTS_RNG_H
#define KEEL_TESTS_RNG_H

#include <stdint.h>

/* The next number below n from the state *s (0 when n is 0). */
static inline uint32_t
rng_below(uint64_t *s, uint32_t n)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	uint64_t x = *s * 0x2545F4914F6CDD1Dull;
	return n ? (uint32_t)((x >> 32) % n) : 0;
}

#endif
