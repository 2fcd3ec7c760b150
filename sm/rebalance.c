/*
 * The routing worker (see rebalance.h): one thread a job, joined on the loop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/clock.h"
#include "sm/rebalance.h"

struct rebalance {
	struct event_base *base;
	rebalance_done_fn *done;
	void *arg;
	int efd;
	struct event *ev;
	pthread_t thread;
	bool running; /* a thread to join */
	/* the job: the thread's until it writes efd */
	struct fabric *f;
	struct routing_opts o;
	uint64_t *roots;
	char first[64], chain[256];
	struct rebalance_result out;
	bool have; /* out holds a result not taken */
};

static void *rebalance_thread(void *arg)
{
	struct rebalance *rb = arg;
	struct rebalance_result *out = &rb->out;
	double t0 = clock_mono_ms();
	uint64_t one = 1;

	out->rc = chain_run(rb->f, &rb->o, rb->first, rb->chain, &out->res);
	if (out->rc == 0 && out->res.routes) {
		struct lid_map m = {0};
		int e = fabric_lid_map(rb->f, &m);

		/* the port counts the next repair starts from (sm/route.c) */
		if (!e || e == -EEXIST)
			routes_load_count(out->res.routes, rb->f, &m);
		fabric_lid_map_clear(&m);
	}
	out->ms = clock_mono_ms() - t0;
	/* the loop joins us; a short write cannot happen on an eventfd */
	if (write(rb->efd, &one, sizeof(one)) < 0)
		abort(); /* the loop would wait forever */
	return NULL;
}

/* The job is over: join, free its input, hand the result to done. */
static void rebalance_finish(struct rebalance *rb)
{
	pthread_join(rb->thread, NULL);
	rb->running = false;
	fabric_free(rb->f);
	rb->f = NULL;
	free(rb->roots);
	rb->roots = NULL;
	rb->have = true;
}

static void rebalance_cb(evutil_socket_t fd, short what, void *arg)
{
	struct rebalance *rb = arg;
	uint64_t v;

	(void)what;
	if (read(fd, &v, sizeof(v)) != sizeof(v) || !rb->running)
		return;
	rebalance_finish(rb);
	if (rb->done)
		rb->done(rb->arg);
}

int rebalance_new(struct event_base *base, rebalance_done_fn *done, void *arg,
		  struct rebalance **ret)
{
	struct rebalance *rb = calloc(1, sizeof(*rb));

	if (!rb)
		return -ENOMEM;
	rb->base = base;
	rb->done = done;
	rb->arg = arg;
	rb->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rb->efd < 0) {
		int e = -errno;

		free(rb);
		return e;
	}
	if (base) {
		rb->ev = event_new(base, rb->efd, EV_READ | EV_PERSIST, rebalance_cb, rb);
		if (!rb->ev || event_add(rb->ev, NULL) < 0) {
			if (rb->ev)
				event_free(rb->ev);
			close(rb->efd);
			free(rb);
			return -ENOMEM;
		}
	}
	*ret = rb;
	return 0;
}

static void rebalance_drop(struct rebalance *rb)
{
	if (rb->have)
		chain_result_clear(&rb->out.res);
	rb->have = false;
}

void rebalance_free(struct rebalance *rb)
{
	if (!rb)
		return;
	if (rb->running)
		rebalance_finish(rb);
	rebalance_drop(rb);
	if (rb->ev)
		event_free(rb->ev);
	close(rb->efd);
	free(rb);
}

int rebalance_start(struct rebalance *rb, const struct fabric *f, const struct routing_opts *o,
		    const char *first, const char *chain, uint64_t generation)
{
	int r;

	if (rb->running)
		return -EBUSY;
	rebalance_drop(rb);
	rb->f = fabric_clone(f);
	if (!rb->f)
		return -ENOMEM;
	rb->o = *o;
	rb->roots = NULL;
	if (o->n_roots) {
		rb->roots = malloc(o->n_roots * sizeof(*rb->roots));
		if (!rb->roots) {
			fabric_free(rb->f);
			rb->f = NULL;
			return -ENOMEM;
		}
		memcpy(rb->roots, o->roots, o->n_roots * sizeof(*rb->roots));
	}
	rb->o.roots = rb->roots;
	snprintf(rb->first, sizeof(rb->first), "%s", first ? first : "");
	snprintf(rb->chain, sizeof(rb->chain), "%s", chain ? chain : "");
	memset(&rb->out, 0, sizeof(rb->out));
	rb->out.generation = generation;
	r = -pthread_create(&rb->thread, NULL, rebalance_thread, rb);
	if (r < 0) {
		fabric_free(rb->f);
		rb->f = NULL;
		free(rb->roots);
		rb->roots = NULL;
		return r;
	}
	rb->running = true;
	return 0;
}

bool rebalance_running(const struct rebalance *rb)
{
	return rb && rb->running;
}

bool rebalance_take(struct rebalance *rb, struct rebalance_result *ret)
{
	if (!rb || !rb->have)
		return false;
	*ret = rb->out;
	memset(&rb->out, 0, sizeof(rb->out));
	rb->have = false;
	return true;
}
