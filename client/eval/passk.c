/* pass@k (passk.h). The product form never forms a binomial coefficient, so
 * it stays exact enough for n in the thousands where C(n, k) overflows. */
#include "client/eval/passk.h"

double passk_estimate(int n, int c, int k)
{
	if (n < 1 || c < 0 || c > n || k < 1 || k > n)
		return -1;
	if (n - c < k)
		return 1.0;
	double miss = 1.0; /* C(n-c, k) / C(n, k) */
	for (int i = n - c + 1; i <= n; i++)
		miss *= 1.0 - (double)k / i;
	return 1.0 - miss;
}

size_t passk_ks(int n, int ks[PASSK_MAX_KS])
{
	size_t m = 0;
	/* 2^10 > PASSK_MAX_SAMPLES: the powers and n fit PASSK_MAX_KS. */
	for (int k = 1; k < n && m < PASSK_MAX_KS - 1; k *= 2)
		ks[m++] = k;
	if (n >= 1)
		ks[m++] = n;
	return m;
}
