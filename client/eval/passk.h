/* The unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large
 * Language Models Trained on Code"), for `sbx eval --samples N`: with n
 * independent episodes of a task of which c solved it, the chance that at
 * least one of k episodes drawn without replacement solved it. */
#ifndef SBX_PASSK_H
#define SBX_PASSK_H

#include <stddef.h>

/* Episodes per task and setting: Chen et al. drew 200 for pass@100; more
 * would only make tasks × settings × samples a run no machine finishes. */
#define PASSK_MAX_SAMPLES 200

/* 1 - C(n-c, k) / C(n, k), computed as 1 - prod_{i=n-c+1..n} (1 - k/i)
 * (no huge binomials). 1 when n - c < k (every draw of k holds a solving
 * episode); -1 (undefined) unless 0 <= c <= n and 1 <= k <= n. */
double passk_estimate(int n, int c, int k);
/* The k reported for tasks with at least n episodes each: the powers of two
 * below n, and n itself (n = 10: 1 2 4 8 10), ascending, into ks (room for
 * PASSK_MAX_KS). How many; 0 when n < 1. */
#define PASSK_MAX_KS 12
size_t passk_ks(int n, int ks[PASSK_MAX_KS]);

#endif
