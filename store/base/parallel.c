#include "kix/parallel.h"

#include <pthread.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

void kix_parallel_run(void *jobs, size_t job_size, size_t n, void *(*fn)(void *))
{
    char *job = jobs;
    pthread_t *tids = n > 1 ? malloc((n - 1) * sizeof(*tids)) : NULL;
    unsigned char *started = n > 1 ? calloc(n - 1, 1) : NULL;

    if (n == 0)
        return;
    for (size_t i = 1; tids && started && i < n; i++)
        started[i - 1] = pthread_create(&tids[i - 1], NULL, fn, job + i * job_size) == 0;
    fn(job);
    /* joined in order; a job without a thread runs here, after the ones
     * before it are done */
    for (size_t i = 1; i < n; i++) {
        if (started && started[i - 1])
            pthread_join(tids[i - 1], NULL);
        else
            fn(job + i * job_size);
    }
    free(tids);
    free(started);
}

void kix_parallel_heap_pad(void)
{
#ifdef __GLIBC__
    mallopt(M_TOP_PAD, 32 << 20);
#endif
}
