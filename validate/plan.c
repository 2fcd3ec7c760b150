/*
 * The cabling plan and the check of a fabric against it (see plan.h).
 *
 * The check is three passes over arrays, no search: plan nodes are matched
 * to fabric nodes (GUID index, or an index of descriptions built once),
 * then every fabric link is looked at once (planned: its speed against the
 * plan; between two planned nodes but not planned: miswired; any link with
 * no planned speed: against what both ends enable), then every planned
 * cable once (not there, and neither of its ports taken by a miswired
 * cable: missing).  Linear in nodes and ports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "fabric/speed.h"
#include "fabric/topo.h"
#include "lib/u64map.h"
#include "mad/field.h"
#include "mad/wire.h"
#include "validate/plan.h"

#define PLAN_NONE FABRIC_NO_NODE

static const char *const plan_kind_names[PLAN_NKINDS] = {
    [PLAN_MISSING_LINK] = "missing_link",
    [PLAN_MISWIRED] = "miswired",
    [PLAN_UNEXPECTED_NODE] = "unexpected_node",
    [PLAN_MISSING_NODE] = "missing_node",
    [PLAN_DEGRADED_WIDTH] = "degraded_width",
    [PLAN_DEGRADED_SPEED] = "degraded_speed",
    [PLAN_DUPLICATE_GUID] = "duplicate_guid",
    [PLAN_DUPLICATE_NODE_DESC] = "duplicate_node_desc",
    [PLAN_EXTRA_SM] = "extra_sm",
};

static const uint8_t plan_kind_severity[PLAN_NKINDS] = {
    [PLAN_MISSING_LINK] = PLAN_ERROR,	   [PLAN_MISWIRED] = PLAN_ERROR,
    [PLAN_UNEXPECTED_NODE] = PLAN_WARNING, [PLAN_MISSING_NODE] = PLAN_ERROR,
    [PLAN_DEGRADED_WIDTH] = PLAN_WARNING,  [PLAN_DEGRADED_SPEED] = PLAN_WARNING,
    [PLAN_DUPLICATE_GUID] = PLAN_ERROR,	   [PLAN_DUPLICATE_NODE_DESC] = PLAN_WARNING,
    [PLAN_EXTRA_SM] = PLAN_WARNING,
};

const char *plan_kind_name(unsigned kind)
{
	return kind < PLAN_NKINDS ? plan_kind_names[kind] : "unknown";
}

int plan_kind_from_name(const char *name)
{
	for (int k = 0; k < PLAN_NKINDS; k++)
		if (!strcmp(plan_kind_names[k], name))
			return k;
	return -1;
}

const char *plan_severity_name(unsigned severity)
{
	return severity == PLAN_ERROR ? "error" : "warning";
}

static uint64_t plan_fnv(const void *data, size_t len, uint64_t h)
{
	const unsigned char *s = data;

	for (size_t i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t plan_desc_key(const char *desc)
{
	return plan_fnv(desc, strlen(desc), 0xcbf29ce484222325ULL);
}

/* ---- the plan ---------------------------------------------------------- */

static int plan_wrap(struct fabric *f, bool *has_guid, struct plan **ret)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (!p) {
		fabric_free(f);
		free(has_guid);
		return -ENOMEM;
	}
	p->f = f;
	p->has_guid = has_guid;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct node *n = &f->nodes[i];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *pt = &n->ports[pn];

			if (!port_is_linked(pt) || pt->remote_node < i ||
			    (pt->remote_node == i && pt->remote_port < pn))
				continue;
			p->links++;
			p->speeds += pt->lane_speed != SPEED_NONE;
		}
	}
	*ret = p;
	return 0;
}

int plan_parse(const char *text, size_t len, struct plan **ret, char *err, size_t err_len)
{
	struct fabric *f;
	bool *has_guid;
	int r = topo_parse_ex(text, len, &f, &has_guid, err, err_len);

	return r < 0 ? r : plan_wrap(f, has_guid, ret);
}

int plan_load(const char *path, struct plan **ret, char *err, size_t err_len)
{
	struct fabric *f;
	bool *has_guid;
	int r = topo_load_ex(path, &f, &has_guid, err, err_len);

	return r < 0 ? r : plan_wrap(f, has_guid, ret);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	fabric_free(p->f);
	free(p->has_guid);
	free(p);
}

void plan_result_clear(struct plan_result *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---- the check ----------------------------------------------------------- */

struct plan_ctx {
	const struct plan *plan; /* NULL: no plan */
	const struct fabric *pf; /* plan->f */
	const struct fabric *f;
	struct plan_result *res;
	uint32_t *p2f;	 /* plan node -> fabric node, PLAN_NONE */
	uint32_t *f2p;	 /* fabric node -> plan node, PLAN_NONE */
	bool *desc_dup;	 /* fabric node: another node has its description */
	uint32_t *pbase; /* fabric node -> index of its port 0 in covered[] */
	bool *covered;	 /* fabric port: on a cable reported miswired */
	struct u64map descs;
};

static void plan_end_fabric(const struct fabric *f, uint32_t ni, uint8_t port, struct plan_end *e)
{
	const struct node *n = &f->nodes[ni];

	e->guid = n->guid;
	e->port = port;
	e->type = n->type;
	snprintf(e->desc, sizeof(e->desc), "%s", n->desc);
}

/* A plan node as a finding names it: the fabric's node when matched, else the plan's. */
static void plan_end_plan(const struct plan_ctx *c, uint32_t pi, uint8_t port, struct plan_end *e)
{
	const struct node *n = &c->pf->nodes[pi];

	if (c->p2f[pi] != PLAN_NONE) {
		plan_end_fabric(c->f, c->p2f[pi], port, e);
		return;
	}
	e->guid = c->plan->has_guid[pi] ? n->guid : 0;
	e->port = port;
	e->type = n->type;
	snprintf(e->desc, sizeof(e->desc), "%s", n->desc);
}

/* The far end of a fabric port, or no end. */
static void plan_end_peer(const struct fabric *f, uint32_t ni, uint8_t port, struct plan_end *e)
{
	const struct port *p = &f->nodes[ni].ports[port];

	if (port_is_linked(p))
		plan_end_fabric(f, p->remote_node, p->remote_port, e);
}

static struct plan_finding *plan_add(struct plan_ctx *c, unsigned kind)
{
	struct plan_result *r = c->res;
	struct plan_finding *fd;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct plan_finding *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	fd = &r->v[r->n++];
	memset(fd, 0, sizeof(*fd));
	fd->kind = (uint8_t)kind;
	fd->severity = plan_kind_severity[kind];
	r->n_kind[kind]++;
	return fd;
}

/* Descriptions: an index, and which nodes share theirs (one finding per group). */
static int plan_descs(struct plan_ctx *c)
{
	const struct fabric *f = c->f;

	if (u64map_reserve(&c->descs, f->n_nodes) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		u64map_add(&c->descs, plan_desc_key(f->nodes[i].desc), i);
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const char *d = f->nodes[i].desc;
		uint64_t key = plan_desc_key(d);
		uint32_t cur, j, first = i, second = PLAN_NONE;

		for (j = u64map_first(&c->descs, key, &cur); j != U64MAP_NONE;
		     j = u64map_next(&c->descs, key, &cur)) {
			if (j == i || strcmp(f->nodes[j].desc, d))
				continue;
			c->desc_dup[i] = true;
			if (j < first)
				first = j;
			if (j > i && (second == PLAN_NONE || j < second))
				second = j;
		}
		/* the group's first node reports it, naming the next one; no name, no finding */
		if (c->desc_dup[i] && first == i && d[0]) {
			struct plan_finding *fd = plan_add(c, PLAN_DUPLICATE_NODE_DESC);

			if (!fd)
				return -ENOMEM;
			plan_end_fabric(f, i, 0, &fd->node);
			plan_end_fabric(f, second, 0, &fd->other);
		}
	}
	return 0;
}

/* The fabric node for plan node pi: by GUID when it has one, else by a description none other has.
 */
static uint32_t plan_match_one(struct plan_ctx *c, uint32_t pi, bool *ambiguous)
{
	const struct node *pn = &c->pf->nodes[pi];
	uint32_t fi = PLAN_NONE, cur, j;
	uint64_t key;

	*ambiguous = false;
	if (c->plan->has_guid[pi]) {
		fi = fabric_find_guid(c->f, pn->guid);
	} else {
		key = plan_desc_key(pn->desc);
		for (j = u64map_first(&c->descs, key, &cur); j != U64MAP_NONE;
		     j = u64map_next(&c->descs, key, &cur)) {
			if (strcmp(c->f->nodes[j].desc, pn->desc))
				continue;
			if (c->desc_dup[j]) {
				*ambiguous = true;
				return PLAN_NONE;
			}
			fi = j;
		}
	}
	if (fi == PLAN_NONE || c->f->nodes[fi].type != pn->type || c->f2p[fi] != PLAN_NONE)
		return PLAN_NONE;
	return fi;
}

static int plan_match(struct plan_ctx *c)
{
	const struct fabric *f = c->f, *pf = c->pf;
	bool *amb = calloc(pf->n_nodes ? pf->n_nodes : 1, sizeof(*amb));

	if (!amb)
		return -ENOMEM;
	for (uint32_t pi = 0; pi < pf->n_nodes; pi++) {
		uint32_t fi = plan_match_one(c, pi, &amb[pi]);

		c->p2f[pi] = fi;
		if (fi != PLAN_NONE) {
			c->f2p[fi] = pi;
			c->res->matched++;
		}
	}
	for (uint32_t pi = 0; pi < pf->n_nodes; pi++) {
		struct plan_finding *fd;

		/* an ambiguous description is its duplicate_node_desc finding */
		if (c->p2f[pi] != PLAN_NONE || amb[pi])
			continue;
		if (!(fd = plan_add(c, PLAN_MISSING_NODE)))
			goto fail;
		plan_end_plan(c, pi, 0, &fd->node);
	}
	for (uint32_t fi = 0; fi < f->n_nodes; fi++) {
		const struct node *n = &f->nodes[fi];
		struct plan_finding *fd;
		uint8_t port = 0;

		if (c->f2p[fi] != PLAN_NONE || c->desc_dup[fi])
			continue;
		/* where it hangs: its first linked port */
		for (unsigned pn = 1; pn <= n->nports && !port; pn++)
			if (port_is_linked(&n->ports[pn]))
				port = (uint8_t)pn;
		if (!(fd = plan_add(c, PLAN_UNEXPECTED_NODE)))
			goto fail;
		plan_end_fabric(f, fi, port, &fd->node);
		if (port)
			plan_end_peer(f, fi, port, &fd->peer);
	}
	free(amb);
	return 0;
fail:
	free(amb);
	return -ENOMEM;
}

static uint8_t plan_fastest(uint16_t mask)
{
	for (uint8_t l = SPEED_LANES - 1; l > SPEED_NONE; l--)
		if (mask & SPEED_BIT(l))
			return l;
	return SPEED_NONE;
}

/*
 * The width and lane speed of the link (fi, pn) against planned (a port of
 * the plan with a width and speed), else against what both ends enable.
 */
static int plan_speed(struct plan_ctx *c, uint32_t fi, uint8_t pn, const struct port *planned)
{
	const struct port *a = &c->f->nodes[fi].ports[pn];
	const struct port *b = &c->f->nodes[a->remote_node].ports[a->remote_port];
	unsigned la = speed_width_lanes(a->width_active), lb = speed_width_lanes(b->width_active);
	uint8_t sa = speed_port_lane(a), sb = speed_port_lane(b);
	uint8_t width = la <= lb ? a->width_active : b->width_active, lane = sa <= sb ? sa : sb;
	uint8_t want_width, want_lane;
	bool from_plan = planned && planned->lane_speed != SPEED_NONE;

	if (from_plan) {
		want_width = planned->width_active;
		want_lane = planned->lane_speed;
	} else {
		if (!a->lanes_enabled || !b->lanes_enabled || !a->width_enabled ||
		    !b->width_enabled)
			return 0; /* not known (a topology file's fabric) */
		want_width = speed_width_widest(a->width_enabled & b->width_enabled);
		want_lane = plan_fastest(a->lanes_enabled & b->lanes_enabled);
	}
	for (unsigned kind = PLAN_DEGRADED_WIDTH; kind <= PLAN_DEGRADED_SPEED; kind++) {
		struct plan_finding *fd;
		bool below =
		    kind == PLAN_DEGRADED_WIDTH
			? want_width && speed_width_lanes(width) < speed_width_lanes(want_width)
			: want_lane && lane < want_lane;

		if (!below)
			continue;
		if (!(fd = plan_add(c, kind)))
			return -ENOMEM;
		plan_end_fabric(c->f, fi, pn, &fd->node);
		plan_end_peer(c->f, fi, pn, &fd->peer);
		fd->width = width;
		fd->lane = lane;
		fd->want_width = want_width;
		fd->want_lane = want_lane;
		fd->planned = from_plan;
	}
	return 0;
}

/* The plan's port for fabric port (fi, pn), NULL when the plan has no such port. */
static const struct port *plan_port_of(const struct plan_ctx *c, uint32_t fi, uint8_t pn)
{
	uint32_t pi = c->plan ? c->f2p[fi] : PLAN_NONE;

	if (pi == PLAN_NONE || pn > c->pf->nodes[pi].nports)
		return NULL;
	return &c->pf->nodes[pi].ports[pn];
}

/* Where the plan puts the cable of fabric port (fi, pn): into e (left empty for none). */
static void plan_want_of(const struct plan_ctx *c, uint32_t fi, uint8_t pn, struct plan_end *e)
{
	const struct port *pp = plan_port_of(c, fi, pn);

	if (pp && port_is_linked(pp))
		plan_end_plan(c, pp->remote_node, pp->remote_port, e);
}

/* Every fabric link once: its speed; between planned nodes and not planned, miswired. */
static int plan_links(struct plan_ctx *c)
{
	const struct fabric *f = c->f;

	for (uint32_t fi = 0; fi < f->n_nodes; fi++) {
		const struct node *n = &f->nodes[fi];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *p = &n->ports[pn], *pa;
			uint32_t ri = p->remote_node;
			uint8_t rp = p->remote_port;
			bool planned = false;
			struct plan_finding *fd;

			if (!port_is_linked(p) || ri < fi || (ri == fi && rp < pn))
				continue;
			c->res->links_checked++;
			pa = plan_port_of(c, fi, (uint8_t)pn);
			if (pa && port_is_linked(pa))
				planned = pa->remote_node == c->f2p[ri] && pa->remote_port == rp;
			if (plan_speed(c, fi, (uint8_t)pn, planned ? pa : NULL) < 0)
				return -ENOMEM;
			/* a cable between two planned nodes that the plan does not have */
			if (planned || !c->plan || c->f2p[fi] == PLAN_NONE ||
			    c->f2p[ri] == PLAN_NONE)
				continue;
			if (!(fd = plan_add(c, PLAN_MISWIRED)))
				return -ENOMEM;
			plan_end_fabric(f, fi, (uint8_t)pn, &fd->node);
			plan_end_fabric(f, ri, rp, &fd->peer);
			plan_want_of(c, fi, (uint8_t)pn, &fd->want);
			plan_want_of(c, ri, rp, &fd->other);
			c->covered[c->pbase[fi] + pn] = true;
			c->covered[c->pbase[ri] + rp] = true;
		}
	}
	return 0;
}

/* Every planned cable once: not in the fabric, its ports free of miswired cables: missing. */
static int plan_missing_links(struct plan_ctx *c)
{
	const struct fabric *pf = c->pf, *f = c->f;

	for (uint32_t pi = 0; pi < pf->n_nodes; pi++) {
		const struct node *n = &pf->nodes[pi];
		uint32_t fa = c->p2f[pi];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct port *pp = &n->ports[pn];
			uint32_t rpi = pp->remote_node, fb;
			uint8_t rp = pp->remote_port;
			struct plan_finding *fd;

			if (!port_is_linked(pp) || rpi < pi || (rpi == pi && rp < pn))
				continue;
			fb = c->p2f[rpi];
			/* a missing node is its own finding */
			if (fa == PLAN_NONE || fb == PLAN_NONE)
				continue;
			if (pn > f->nodes[fa].nports || rp > f->nodes[fb].nports) {
				if (!(fd = plan_add(c, PLAN_MISSING_LINK)))
					return -ENOMEM;
				plan_end_fabric(f, fa, (uint8_t)pn, &fd->node);
				plan_end_fabric(f, fb, rp, &fd->want);
				continue;
			}
			if ((f->nodes[fa].ports[pn].remote_node == fb &&
			     f->nodes[fa].ports[pn].remote_port == rp) ||
			    c->covered[c->pbase[fa] + pn] || c->covered[c->pbase[fb] + rp])
				continue;
			/* linked to a node the plan does not have: that node's finding says where
			 */
			if (port_is_linked(&f->nodes[fa].ports[pn]) &&
			    c->f2p[f->nodes[fa].ports[pn].remote_node] == PLAN_NONE)
				continue;
			if (port_is_linked(&f->nodes[fb].ports[rp]) &&
			    c->f2p[f->nodes[fb].ports[rp].remote_node] == PLAN_NONE)
				continue;
			if (!(fd = plan_add(c, PLAN_MISSING_LINK)))
				return -ENOMEM;
			plan_end_fabric(f, fa, (uint8_t)pn, &fd->node);
			plan_end_fabric(f, fb, rp, &fd->want);
		}
	}
	return 0;
}

static int plan_dups(struct plan_ctx *c)
{
	const struct fabric *f = c->f;

	for (uint32_t i = 0; i < f->n_dups; i++) {
		const struct fabric_dup *d = &f->dups[i];
		struct plan_finding *fd = plan_add(c, PLAN_DUPLICATE_GUID);
		uint32_t ni = fabric_find_guid(f, d->guid), a = fabric_find_guid(f, d->first_guid),
			 b = fabric_find_guid(f, d->second_guid);

		if (!fd)
			return -ENOMEM;
		fd->node.guid = d->guid;
		fd->node.port = d->port;
		if (ni != FABRIC_NO_NODE)
			plan_end_fabric(f, ni, d->port, &fd->node);
		fd->peer.guid = d->first_guid;
		fd->peer.port = d->first_port;
		if (a != FABRIC_NO_NODE)
			plan_end_fabric(f, a, d->first_port, &fd->peer);
		fd->other.guid = d->second_guid;
		fd->other.port = d->second_port;
		if (b != FABRIC_NO_NODE)
			plan_end_fabric(f, b, d->second_port, &fd->other);
	}
	return 0;
}

/* Ports with IsSM that are not one of the SMs that belong. */
static int plan_sms(struct plan_ctx *c, const struct plan_opts *o)
{
	static const struct field capmask = FIELD_IBMAD(IB_PORT_CAPMASK_F, 0);
	const struct fabric *f = c->f;
	struct fabric_port_iter it;

	fabric_for_each_lid_port (f, &it) {
		const struct port *p = &f->nodes[it.node].ports[it.port];
		struct plan_finding *fd;
		bool known = false;

		if (!p->valid || !(field_get(&capmask, p->pi) & WIRE_CAP_IS_SM) ||
		    (it.node == f->sm_node && it.port == f->sm_port))
			continue;
		for (size_t i = 0; o && i < o->n_sm_guids && !known; i++)
			known = o->sm_guids[i] == p->guid;
		if (known)
			continue;
		if (!(fd = plan_add(c, PLAN_EXTRA_SM)))
			return -ENOMEM;
		plan_end_fabric(f, it.node, it.port, &fd->node);
		if (it.port)
			plan_end_peer(f, it.node, it.port, &fd->peer);
	}
	return 0;
}

int plan_check(const struct plan *plan, const struct fabric *f, const struct plan_opts *o,
	       struct plan_result *ret)
{
	struct plan_ctx c = {.plan = plan, .pf = plan ? plan->f : NULL, .f = f, .res = ret};
	uint32_t np = plan ? plan->f->n_nodes : 0, nf = f->n_nodes, nports = 0;
	int r = -ENOMEM;

	for (uint32_t i = 0; i < nf; i++)
		nports += f->nodes[i].nports + 1u;
	c.p2f = malloc((np ? np : 1) * sizeof(*c.p2f));
	c.f2p = malloc((nf ? nf : 1) * sizeof(*c.f2p));
	c.desc_dup = calloc(nf ? nf : 1, sizeof(*c.desc_dup));
	c.pbase = malloc((nf ? nf : 1) * sizeof(*c.pbase));
	c.covered = calloc(nports ? nports : 1, sizeof(*c.covered));
	if (!c.p2f || !c.f2p || !c.desc_dup || !c.pbase || !c.covered)
		goto out;
	nports = 0;
	for (uint32_t i = 0; i < nf; i++) {
		c.f2p[i] = PLAN_NONE;
		c.pbase[i] = nports;
		nports += f->nodes[i].nports + 1u;
	}
	if ((r = plan_descs(&c)) < 0)
		goto out;
	if (plan && (r = plan_match(&c)) < 0)
		goto out;
	if ((r = plan_links(&c)) < 0)
		goto out;
	if (plan && (r = plan_missing_links(&c)) < 0)
		goto out;
	if ((r = plan_dups(&c)) < 0)
		goto out;
	r = plan_sms(&c, o);
out:
	u64map_free(&c.descs);
	free(c.p2f);
	free(c.f2p);
	free(c.desc_dup);
	free(c.pbase);
	free(c.covered);
	return r;
}

/* ---- naming findings ------------------------------------------------------ */

static uint64_t plan_end_key(const struct plan_end *e, uint64_t h)
{
	h = plan_fnv(&e->guid, sizeof(e->guid), h);
	h = plan_fnv(&e->port, sizeof(e->port), h);
	/* a plan node without a GUID is known by its description */
	return e->guid ? h : plan_fnv(e->desc, strlen(e->desc), h);
}

uint64_t plan_finding_key(const struct plan_finding *fd)
{
	uint64_t h = plan_fnv(&fd->kind, 1, 0xcbf29ce484222325ULL);

	h = plan_end_key(&fd->node, h);
	h = plan_end_key(&fd->peer, h);
	h = plan_end_key(&fd->want, h);
	return plan_end_key(&fd->other, h);
}

/* "switch "L1" 0x... port 3", or "nothing" for an empty end. */
static void plan_end_str(const struct plan_end *e, char *buf, size_t len)
{
	const char *t = e->type == NODE_SWITCH ? "switch" : e->type ? "CA" : "node";

	if (!e->guid && !e->desc[0])
		snprintf(buf, len, "nothing");
	else if (e->port)
		snprintf(buf, len, "%s \"%s\" 0x%016llx port %u", t, e->desc,
			 (unsigned long long)e->guid, e->port);
	else
		snprintf(buf, len, "%s \"%s\" 0x%016llx", t, e->desc, (unsigned long long)e->guid);
}

static const char *plan_width_str(uint8_t width, char *buf, size_t len)
{
	snprintf(buf, len, "%ux", speed_width_lanes(width));
	return buf;
}

void plan_finding_str(const struct plan_finding *fd, char *buf, size_t len)
{
	char a[128], b[128], w[128], o[128], x[8], y[8];
	const char *sa = speed_name(fd->lane), *sw = speed_name(fd->want_lane);

	plan_end_str(&fd->node, a, sizeof(a));
	plan_end_str(&fd->peer, b, sizeof(b));
	plan_end_str(&fd->want, w, sizeof(w));
	plan_end_str(&fd->other, o, sizeof(o));
	switch (fd->kind) {
	case PLAN_MISSING_LINK:
		snprintf(buf, len, "missing_link: %s to %s: no cable", a, w);
		break;
	case PLAN_MISWIRED:
		snprintf(buf, len, "miswired: %s is cabled to %s; planned: %s to %s, %s to %s", a,
			 b, a, w, b, o);
		break;
	case PLAN_UNEXPECTED_NODE:
		snprintf(buf, len, "unexpected_node: %s (on %s) is not in the plan", a, b);
		break;
	case PLAN_MISSING_NODE:
		snprintf(buf, len, "missing_node: %s of the plan not found", a);
		break;
	case PLAN_DEGRADED_WIDTH:
		snprintf(buf, len, "degraded_width: %s to %s runs %s, %s %s", a, b,
			 plan_width_str(fd->width, x, sizeof(x)),
			 fd->planned ? "planned" : "both ends enable",
			 plan_width_str(fd->want_width, y, sizeof(y)));
		break;
	case PLAN_DEGRADED_SPEED:
		snprintf(buf, len, "degraded_speed: %s to %s runs %s, %s %s", a, b, sa ? sa : "?",
			 fd->planned ? "planned" : "both ends enable", sw ? sw : "?");
		break;
	case PLAN_DUPLICATE_GUID:
		snprintf(buf, len, "duplicate_guid: 0x%016llx port %u seen behind %s and behind %s",
			 (unsigned long long)fd->node.guid, fd->node.port, b, o);
		break;
	case PLAN_DUPLICATE_NODE_DESC:
		snprintf(buf, len, "duplicate_node_desc: %s and %s share the description", a, o);
		break;
	case PLAN_EXTRA_SM:
		snprintf(buf, len, "extra_sm: %s runs an SM that is not ours", a);
		break;
	default:
		snprintf(buf, len, "unknown finding");
	}
}
