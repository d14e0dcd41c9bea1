/* SPDX-License-Identifier: MIT */
/* What the libFuzzer targets share: a broken promise is a crash the fuzzer keeps. */
#ifndef PCL_FUZZ_H
#define PCL_FUZZ_H

#define require(cond)                                                                      \
	do {                                                                               \
		if (!(cond))                                                               \
			__builtin_trap();                                                  \
	} while (0)

#endif
