/* kix_parallel_run (kix/parallel.h): each job once, job 0 on the caller's
 * thread, the others beside it. */
#include <pthread.h>
#include <stdatomic.h>

#include "harness.h"
#include "kix/parallel.h"

struct job {
    atomic_int *started;
    int runs;
    pthread_t ran_on;
};

static void *count_run(void *arg)
{
    struct job *j = arg;

    atomic_fetch_add(j->started, 1);
    j->runs++;
    j->ran_on = pthread_self();
    return NULL;
}

KIX_TEST(every_job_runs_once_the_first_on_the_callers_thread)
{
    for (size_t n = 0; n <= 9; n++) {
        struct job jobs[9];
        atomic_int started;
        atomic_init(&started, 0);
        for (size_t i = 0; i < 9; i++)
            jobs[i] = (struct job){&started, 0, pthread_self()};
        kix_parallel_run(jobs, sizeof(jobs[0]), n, count_run);
        ASSERT_EQ_INT((int)n, atomic_load(&started));
        for (size_t i = 0; i < 9; i++)
            ASSERT_EQ_INT(i < n ? 1 : 0, jobs[i].runs);
        if (n > 0)
            ASSERT_TRUE(pthread_equal(jobs[0].ran_on, pthread_self()));
        /* the others on threads of their own (creating 8 threads does not
         * fail on the machines the suite runs on) */
        for (size_t i = 1; i < n; i++)
            ASSERT_TRUE(!pthread_equal(jobs[i].ran_on, pthread_self()));
    }
}

KIX_TEST_MAIN()
