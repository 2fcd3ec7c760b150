/*
 * The SM object (see sm.h): opens the MAD port, wires received MADs through
 * the dispatch table to the transaction engine and the SM's handlers, owns
 * the LID database.  IBA 1.4 vol 1, 14.4.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "fabric/lid.h"
#include "mad/xact.h"
#include "mad/madio.h"
#include "policy/partition.h"
#include "mad/dispatch.h"
#include "mad/sa_wire.h"
#include "mad/wire.h"
#include "lib/log.h"
#include "policy/roots.h"
#include "sa/sa.h"
#include "dump/dump.h"
#include "sm/changes.h"
#include "sm/mfts.h"
#include "sm/vltables.h"
#include "sm/route.h"
#include "sm/sm.h"
#include "sm/sweep.h"
#include "sm/trap.h"

/*
 * Received MADs, wired by the dispatch table (sm_dispatch_new): responses
 * to the transaction engine, traps to trap.c, the SA class to the SA, the
 * rest counted as not served.  Parts add rows of their own (the role:
 * SMInfo Get and Set, TrapRepress; failover/smstate.c).
 */
static void sm_recv_response(void *ctx, const struct madio_addr *from,
			     const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	bool smp = hdr->mgmt_class == WIRE_CLASS_SMI || hdr->mgmt_class == WIRE_CLASS_SMI_DR;
	int r = xact_input(sm->xe, buf, len);

	if (r == -EBADMSG) {
		sm->mad_malformed++;
		log_ratelimited(LOG_CAT_MAD, LOG_WARNING,
				"dropped a malformed %s response (class 0x%02x, %zu bytes) "
				"from LID %u",
				smp ? "SMP" : "GSI", hdr->mgmt_class, len, from->slid);
	} else if (r == -ENOENT) {
		log_msg(LOG_CAT_MAD, LOG_DEBUG, "late or unknown response TID 0x%016llx",
			(unsigned long long)hdr->tid);
	}
}

static void sm_recv_unserved(void *ctx, const struct madio_addr *from,
			     const struct wire_mad_hdr *hdr, const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;

	sm->mad_unexpected++;
	log_ratelimited(LOG_CAT_MAD, LOG_NOTICE,
			"ignored a MAD of class 0x%02x method 0x%02x attr 0x%04x from LID %u: "
			"not served yet",
			hdr->mgmt_class, hdr->method, hdr->attr_id, from->slid);
}

static int sm_conf_appliers_init(struct sm *sm);

/* ---- the SA's view of us --------------------------------------------------- */

static int sm_sa_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len)
{
	struct sm *sm = ctx;
	struct wire_mad_hdr h;
	bool report = wire_mad_hdr_decode(mad, len, &h) == 0 && h.method == SA_METHOD_REPORT;

	/* a Report waits for its ReportResp: only then does the kernel hand it to us */
	return madio_send(sm->io, to, mad, len, report ? SA_REPORT_WAIT_MS : 0);
}

static void sm_sa_sm_info(void *ctx, struct sa_sm_info *ret)
{
	struct sm *sm = ctx;

	*ret = (struct sa_sm_info){
	    .port_guid = sm->port_guid,
	    .sm_key = sm->conf.sm_key,
	    .sa_key = sm->conf.sa_key,
	    .act_count = (uint32_t)sm->sweeps,
	    .priority = (uint8_t)sm->conf.sm_priority,
	    .state = (uint8_t)sm->state,
	    .switch_life_set = sm->policy.pub_switch_life > 0,
	    .switch_life =
		(uint8_t)(sm->policy.pub_switch_life > 0 ? sm->policy.pub_switch_life - 1 : 0)};
}

/* A snapshot was published: the SA answers from it from now on. */
static void sm_on_published(void *ctx, const void *old)
{
	struct sm *sm = ctx;

	changes_log(sm, old);
	sa_set_policies(sm->sa, sm->policy.pub_qos, sm->policy.pub_parts);
	sa_publish(sm->sa, sm->snap);
}

static struct dispatch *sm_dispatch_new(struct sm *sm)
{
	static const struct {
		uint8_t mgmt_class;
		unsigned method, attr_id;
		dispatch_fn fn;
	} table[] = {
	    /* responses to our requests: SMPs, and GSI for PerfMgt and SA queries */
	    {WIRE_CLASS_SMI, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_SMI_DR, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_SA, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_PERF, DISPATCH_ANY_RESPONSE, DISPATCH_ANY_ATTR, sm_recv_response},
	    {WIRE_CLASS_SMI, WIRE_TRAP, DISPATCH_ANY_ATTR, trap_recv},
	};
	struct dispatch *d = dispatch_new(sm_recv_unserved, sm);

	if (!d)
		return NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (dispatch_register(d, table[i].mgmt_class, table[i].method, table[i].attr_id,
				      table[i].fn, sm) < 0) {
			dispatch_free(d);
			return NULL;
		}
	}
	return d;
}

static void sm_recv(void *ctx, int mgmt_class, int status, const struct madio_addr *from,
		    const uint8_t *buf, size_t len)
{
	struct sm *sm = ctx;
	struct wire_mad_hdr hdr;

	if (status) {
		/* a send that failed (umad2sim: the simulator dropped it) */
		if (wire_mad_hdr_decode(buf, len, &hdr) == 0) {
			/* the SA's Reports are resent by the SA's own timer */
			if (!(hdr.mgmt_class == WIRE_CLASS_SA && hdr.method == SA_METHOD_REPORT))
				xact_send_failed(sm->xe, hdr.tid);
			return;
		}
	} else if (dispatch_input(sm->disp, from, buf, len) != -EBADMSG) {
		return;
	}
	sm->mad_malformed++;
	log_ratelimited(LOG_CAT_MAD, LOG_WARNING, "dropped a truncated MAD (%zu bytes) from LID %u",
			len, from->slid);
}

static int sm_send(void *ctx, const struct madio_dest *to, const uint8_t *mad, size_t len,
		   unsigned timeout_ms)
{
	struct sm *sm = ctx;
	return madio_send(sm->io, to, mad, len, timeout_ms);
}

static void sm_sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct sm *sm = arg;

	dump_reap(&sm->sched.dump_pid, false); /* no zombie lingers until the next dump */
}

/*
 * Take the state directory: "lock" in it, flock()ed for as long as we run,
 * holding our PID.  A second daemon on the same directory (two SMs writing
 * one guid2lid) is refused naming the first; an unwritable directory is
 * refused here rather than at the first LID change.
 */
static int sm_lock_state_dir(struct sm *sm, char *err, size_t err_len)
{
	char path[sizeof(sm->conf.state_dir) + 8], pid[24] = "";
	int fd, r;

	snprintf(path, sizeof(path), "%s/lock", sm->conf.state_dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		snprintf(err, err_len, "state directory %s is not writable: %s (%s)",
			 sm->conf.state_dir, strerror(errno), path);
		return r;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (r == -EWOULDBLOCK)
			snprintf(err, err_len,
				 "state directory %s is in use by another ibsmd (pid %s): one "
				 "state directory per daemon",
				 sm->conf.state_dir, pid[0] ? pid : "unknown");
		else
			snprintf(err, err_len, "cannot lock %s: %s", path, strerror(-r));
		close(fd);
		return r == -EWOULDBLOCK ? -EBUSY : r;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid)) {
		r = -errno;
		snprintf(err, err_len, "state directory %s: cannot write %s: %s",
			 sm->conf.state_dir, path, strerror(errno));
		close(fd);
		return r;
	}
	sm->lock_fd = fd;
	return 0;
}

int sm_init(struct sm *sm, struct event_base *base, const struct sm_conf *c, char *err,
	    size_t err_len)
{
	const struct sm_conf *o = &sm->conf;
	struct xact_opts xo = {(unsigned)c->mad_window, (unsigned)c->mad_timeout_ms,
			       (unsigned)c->mad_retries, true};
	char lerr[512];
	int r;

	memset(sm, 0, sizeof(*sm));
	sm->base = base;
	sm->conf = *c;
	sm->file_conf = *c;
	sm->state = SM_NOTACTIVE;
	sm->lock_fd = -1;
	sm->sched.begin = sweep_begin; /* the scheduler starts the sweep's phases */
	if (mkdir(o->state_dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(err, err_len, "cannot create state directory %s: %s", o->state_dir,
			 strerror(errno));
		return r;
	}
	r = sm_lock_state_dir(sm, err, err_len);
	if (r < 0)
		return r;
	sm->sigchld = evsignal_new(base, SIGCHLD, sm_sigchld_cb, sm);
	if (sm->sigchld)
		evsignal_add(sm->sigchld, NULL);
	snprintf(sm->lid_path, sizeof(sm->lid_path), "%s/guid2lid", o->state_dir);
	r = lid_db_load(sm->lid_path, &sm->lids, lerr, sizeof(lerr));
	if (!sm->lids) {
		snprintf(err, err_len, "out of memory loading %s", sm->lid_path);
		return -ENOMEM;
	}
	if (r < 0)
		log_warn("%s; rebuilding the LID map from the fabric", lerr);
	else
		log_msg(LOG_CAT_SWEEP, LOG_DEBUG, "%u LIDs loaded from %s", lid_db_count(sm->lids),
			sm->lid_path);
	r = route_state_new(base, &sm->route);
	if (r < 0) {
		snprintf(err, err_len, "out of memory");
		goto fail;
	}
	r = sm_load_roots(sm, err, err_len);
	if (r < 0)
		goto fail;
	r = mfts_init(sm);
	if (r < 0) {
		snprintf(err, err_len, "out of memory setting up multicast");
		goto fail;
	}
	r = sm_load_partitions(sm, err, err_len);
	if (r < 0)
		goto fail;
	r = sm_load_qos(sm, err, err_len);
	if (r < 0)
		goto fail;
	sm->sa = sa_new(base, &(struct sa_ops){sm_sa_send, sm_sa_sm_info, sm});
	if (sm->sa) {
		sa_set_mfts(sm->sa, &sm->mfts->known);
	}
	r = vltables_init(sm);
	if (r < 0) {
		snprintf(err, err_len, "out of memory setting up the VL tables");
		goto fail;
	}
	sm->disp = sm->sa && sa_set_mcast(sm->sa, sm->mcast) == 0 ? sm_dispatch_new(sm) : NULL;
	if (!sm->disp ||
	    dispatch_register(sm->disp, WIRE_CLASS_SA, DISPATCH_ANY_METHOD, DISPATCH_ANY_ATTR,
			      sa_recv, sm->sa) < 0 ||
	    dispatch_register(sm->disp, WIRE_CLASS_SA, SA_METHOD_REPORT_RESP, DISPATCH_ANY_ATTR,
			      sa_recv, sm->sa) < 0 ||
	    /* a client's ACK of our segmented answer, even with the R bit (mad/dispatch.h) */
	    dispatch_register(sm->disp, WIRE_CLASS_SA, DISPATCH_RMPP_CTL, DISPATCH_ANY_ATTR,
			      sa_recv, sm->sa) < 0 ||
	    hook_add(&sm->hooks.published, sm_on_published, sm) < 0) {
		snprintf(err, err_len, "out of memory setting up MAD dispatch");
		r = -ENOMEM;
		goto fail;
	}
	r = madio_open(base, o->ca_name, o->port_num, o->port_guid, sm_recv, sm, &sm->io, err,
		       err_len);
	if (r < 0)
		goto fail;
	struct madio_port_info mpi;
	if (madio_port_info(sm->io, &mpi) == 0) {
		sm->port_guid = mpi.port_guid;
		sm->io_split = mpi.split;
		if (mpi.split)
			log_info("port 0x%016llx: SMI on %s/%d, GSI (SA, PerfMgt) on %s/%d%s",
				 (unsigned long long)mpi.port_guid, mpi.ca_name, mpi.port_num,
				 mpi.gsi_ca_name, mpi.gsi_port_num,
				 o->dr_only == CONF_AUTO ? "; dr_only on (auto)" : "");
	}
	if (*madio_notes(sm->io))
		log_info("RDMA ports not used: %s", madio_notes(sm->io));
	sm->xe = xact_new(base, &xo, sm_send, sm);
	if (sm->xe)
		xact_set_mkey(sm->xe, o->m_key);
	if (sm->xe && sm_conf_appliers_init(sm) < 0) {
		snprintf(err, err_len, "out of memory");
		r = -ENOMEM;
		goto fail;
	}
	if (!sm->xe) {
		snprintf(err, err_len, "cannot create the transaction engine (window %u)",
			 (unsigned)o->mad_window);
		r = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	sm_fini(sm);
	return r;
}

/* ---- live configuration ------------------------------------------------ */

/*
 * The SM's own live keys: the MAD window and timers, the sweep timer, the
 * updn roots, the log, the priority (a master re-elects).
 */
static int sm_apply(void *ctx, struct sm *sm, const char *key, const struct sm_conf *old, char *err,
		    size_t err_len)
{
	if (!strcmp(key, "mad_window")) {
		int r = xact_set_window(sm->xe, (unsigned)sm->conf.mad_window);
		if (r < 0)
			snprintf(err, err_len, "cannot resize the MAD window: %s", strerror(-r));
		return r;
	} else if (!strcmp(key, "mad_timeout_ms") || !strcmp(key, "mad_retries")) {
		xact_set_opts(sm->xe, (unsigned)sm->conf.mad_timeout_ms,
			      (unsigned)sm->conf.mad_retries);
	} else if (!strcmp(key, "sweep_interval")) {
		light_schedule(sm);
	} else if (!strcmp(key, "m_key")) {
		/* our SMPs carry the new key; the next heavy sweep writes it into the ports */
		xact_set_mkey(sm->xe, sm->conf.m_key);
	} else if (!strcmp(key, "updn_roots_file")) {
		return sm_load_roots(sm, err, err_len);
	} else if (!strcmp(key, "partition_config_file") || !strcmp(key, "allow_both_pkeys")) {
		return sm_load_partitions(sm, err, err_len);
	} else if (!strncmp(key, "qos", 3)) {
		return sm_load_qos(sm, err, err_len);
	} else if (!strcmp(key, "log_level")) {
		log_set_level(-1, sm->conf.log_level);
	} else {
		snprintf(err, err_len, "no applier for %s", key);
		return -ENOENT;
	}
	return 0;
}

static int sm_conf_appliers_init(struct sm *sm)
{
	static const char *const keys[] = {
	    "mad_window",     "mad_timeout_ms",	 "mad_retries",
	    "sweep_interval", "updn_roots_file", "partition_config_file",
	    "log_level",      "m_key",		 "allow_both_pkeys"};

#define QOS_CLASS_KEYS(c)                                                                          \
	"qos_" c "max_vls", "qos_" c "high_limit", "qos_" c "vlarb_high", "qos_" c "vlarb_low",    \
	    "qos_" c "sl2vl"
	static const char *const qos_keys[] = {"qos",
					       "qos_policy_file",
					       QOS_CLASS_KEYS(""),
					       QOS_CLASS_KEYS("ca_"),
					       QOS_CLASS_KEYS("sw0_"),
					       QOS_CLASS_KEYS("swe_"),
					       QOS_CLASS_KEYS("rtr_")};
#undef QOS_CLASS_KEYS

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (sm_conf_applier_add(sm, keys[i], sm_apply, NULL) < 0)
			return -ENOMEM;
	/* the key names are kept: static strings */
	for (size_t i = 0; i < sizeof(qos_keys) / sizeof(qos_keys[0]); i++)
		if (sm_conf_applier_add(sm, qos_keys[i], sm_apply, NULL) < 0)
			return -ENOMEM;
	return 0;
}

/* Run every applier of key; the first failure puts the old value back. */
static int sm_conf_apply_key(struct sm *sm, const char *key, const struct sm_conf *old, char *err,
			     size_t err_len)
{
	bool applied = false;

	for (size_t i = 0; i < sm->n_appliers; i++) {
		const struct sm_conf_applier *a = &sm->appliers[i];
		int r;

		if (strcmp(a->key, key))
			continue;
		r = a->fn(a->ctx, sm, key, old, err, err_len);
		if (r < 0) {
			conf_copy_key(&sm->conf, old, key);
			/* appliers that already ran see the old value again */
			for (size_t j = 0; j < i; j++)
				if (!strcmp(sm->appliers[j].key, key))
					sm->appliers[j].fn(sm->appliers[j].ctx, sm, key, old, err,
							   err_len);
			return r;
		}
		applied = true;
	}
	if (!applied) {
		conf_copy_key(&sm->conf, old, key);
		snprintf(err, err_len, "nothing applies %s in this daemon", key);
		return -ENOENT;
	}
	return 0;
}

int sm_conf_changed(struct sm *sm, const char *key, const struct sm_conf *old, char *err,
		    size_t err_len)
{
	return sm_conf_apply_key(sm, key, old, err, err_len);
}

size_t sm_reconfigure(struct sm *sm, const struct sm_conf *nc)
{
	const char *keys[64], *over[64];
	struct sm_conf old = sm->conf;
	size_t n = conf_diff(&sm->file_conf, nc, keys, 64), live = 0;
	size_t no = conf_diff(&sm->file_conf, &sm->conf, over, 64);
	struct sm_conf file = *nc;

	for (size_t i = 0; i < no && i < 64; i++) {
		char run[160], in_file[160];
		bool changed = false;

		for (size_t j = 0; j < n && j < 64; j++)
			changed |= !strcmp(keys[j], over[i]);
		if (changed || conf_key_live(over[i]) == CONF_RESTART)
			continue;
		conf_value_str(&sm->conf, over[i], run, sizeof(run));
		conf_value_str(nc, over[i], in_file, sizeof(in_file));
		log_info("reload: %s stays %s, set at run time (the file says %s; an override "
			 "lasts until the file changes the key)",
			 over[i], run, in_file);
	}
	for (size_t i = 0; i < n && i < 64; i++) {
		char was[160], now[160], err[512] = "";

		conf_value_str(&old, keys[i], was, sizeof(was));
		conf_value_str(nc, keys[i], now, sizeof(now));
		if (conf_key_live(keys[i]) == CONF_RESTART) {
			log_warn("reload: %s changed (%s -> %s) but takes effect only on restart",
				 keys[i], was, now);
			continue;
		}
		conf_copy_key(&sm->conf, nc, keys[i]);
		if (conf_key_live(keys[i]) == CONF_LIVE_APPLY &&
		    sm_conf_apply_key(sm, keys[i], &old, err, sizeof(err)) < 0) {
			log_err("reload: %s: %s; keeping %s", keys[i], err, was);
			conf_copy_key(&file, &sm->file_conf, keys[i]); /* tried again next time */
			continue;
		}
		log_info("reload: %s: %s -> %s", keys[i], was, now);
		live++;
	}
	sm->file_conf = file;
	return live;
}

void sm_fini(struct sm *sm)
{
	sweep_abort(sm);
	if (sm->sa)
		sa_set_mcast(sm->sa, NULL); /* the database goes first */
	mfts_fini(sm);
	vltables_fini(sm);
	/* let the dump writer finish: the files are renamed into place whole */
	dump_reap(&sm->sched.dump_pid, true);
	if (sm->sigchld)
		event_free(sm->sigchld);
	sm->sigchld = NULL;
	xact_free(sm->xe); /* cancels the parts' requests: they go after */
	sm->xe = NULL;
	sm_parts_free(sm);
	madio_close(sm->io);
	sm->io = NULL;
	dispatch_free(sm->disp);
	sm->disp = NULL;
	sa_free(sm->sa);
	sm->sa = NULL;
	sweep_sched_fini(sm);
	light_fini(sm);
	route_state_free(sm->route);
	sm->route = NULL;
	snapshot_free(sm->snap);
	sm->snap = NULL;
	if (sm->lid_save.owed && sm->lids && lid_db_save(sm->lids, sm->lid_path) < 0)
		log_err("%s could not be written before exit: LIDs may change on restart",
			sm->lid_path);
	lid_db_free(sm->lids);
	hook_list_clear(&sm->hooks.sweep_begin);
	hook_list_clear(&sm->hooks.route_fallback);
	hook_list_clear(&sm->hooks.published);
	hook_list_clear(&sm->hooks.sweep_done);
	hook_list_clear(&sm->hooks.state_changed);
	hook_list_clear(&sm->hooks.port_health);
	hook_list_clear(&sm->hooks.quarantine);
	hook_list_clear(&sm->hooks.port_error);
	hook_list_clear(&sm->hooks.validation);
	hook_list_clear(&sm->hooks.configure);
	hook_list_clear(&sm->hooks.partitions);
	sm_policy_clear(&sm->policy);
	free(sm->appliers);
	sm->appliers = NULL;
	sm->n_appliers = 0;
	if (sm->lid_save.retry)
		event_free(sm->lid_save.retry);
	sm->lid_save.retry = NULL;
	if (sm->lock_fd >= 0)
		close(sm->lock_fd); /* the lock goes with it; the file stays */
	sm->lock_fd = -1;
	sm->lids = NULL;
}
