/*
 * Identifiers in control requests (docs/protocol.md "Identifiers"): a LID, a
 * node or port GUID, or a node description, resolved to (node, port) of the
 * published snapshot.  LIDs and GUIDs go through the snapshot's indexes, so a
 * lookup costs O(1) whatever the size of the fabric; a description is a scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ui/api_int.h"

uint8_t api_node_port(const struct node *n)
{
	if (node_is_switch(n))
		return 0;
	for (uint8_t pn = 1; pn <= n->nports; pn++)
		if (port_is_linked(&n->ports[pn]) && n->ports[pn].lid)
			return pn;
	for (uint8_t pn = 1; pn <= n->nports; pn++)
		if (n->ports[pn].lid)
			return pn;
	return n->nports ? 1 : 0;
}

uint16_t api_node_lid(const struct node *n)
{
	return n->ports[api_node_port(n)].lid;
}

static bool api_find_lid(const struct snapshot *s, unsigned lid, uint32_t *ret_node,
			 uint8_t *ret_port)
{
	return snapshot_find_lid(s, lid, ret_node, ret_port);
}

/* A node GUID (its representative port) or a port GUID. */
static bool api_find_guid(const struct snapshot *s, uint64_t guid, uint32_t *ret_node,
			  uint8_t *ret_port)
{
	uint32_t ni = fabric_find_guid(s->fabric, guid);

	if (ni != FABRIC_NO_NODE) {
		*ret_node = ni;
		*ret_port = api_node_port(&s->fabric->nodes[ni]);
		return true;
	}
	return snapshot_find_port_guid(s, guid, ret_node, ret_port);
}

int api_resolve(const struct snapshot *snap, json_t *v, const char *what, uint32_t *ret_node,
		uint8_t *ret_port, struct ctl_error *err)
{
	const char *s;
	char *end;
	unsigned long long num;
	uint32_t match = FABRIC_NO_NODE;
	const struct fabric *f = snap->fabric;

	if (json_is_integer(v)) {
		json_int_t lid = json_integer_value(v);

		if (lid < 1 || lid > FABRIC_MAX_UCAST_LID)
			return ctl_error_set(
			    err, CTL_ERR_BAD_ARGUMENT,
			    "%s: LID %" JSON_INTEGER_FORMAT " is not a unicast LID", what, lid);
		if (!api_find_lid(snap, (unsigned)lid, ret_node, ret_port))
			return ctl_error_set(err, CTL_ERR_NOT_FOUND,
					     "%s: no port has LID %" JSON_INTEGER_FORMAT, what,
					     lid);
		return 0;
	}
	if (!json_is_string(v) || !json_string_length(v))
		return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
				     "%s must be a GUID, a LID or a node description", what);
	s = json_string_value(v);
	errno = 0;
	num = strtoull(s, &end, 0);
	if (!errno && end != s && !*end && s[0] != '-' && s[0] != '+' && s[0] != ' ') {
		bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

		if (hex && strlen(s) > 6) {
			if (!api_find_guid(snap, num, ret_node, ret_port))
				return ctl_error_set(err, CTL_ERR_NOT_FOUND,
						     "%s: no node or port has GUID %s", what, s);
			return 0;
		}
		if (num >= 1 && num <= FABRIC_MAX_UCAST_LID) {
			if (!api_find_lid(snap, (unsigned)num, ret_node, ret_port))
				return ctl_error_set(err, CTL_ERR_NOT_FOUND,
						     "%s: no port has LID %llu", what, num);
			return 0;
		}
		/* a number that is neither: maybe a description made of digits */
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		if (strcmp(f->nodes[i].desc, s))
			continue;
		if (match != FABRIC_NO_NODE)
			return ctl_error_set(err, CTL_ERR_BAD_ARGUMENT,
					     "%s: more than one node is called \"%.64s\": use a "
					     "GUID or a LID",
					     what, s);
		match = i;
	}
	if (match == FABRIC_NO_NODE)
		return ctl_error_set(err, CTL_ERR_NOT_FOUND,
				     "%s: no node, port or LID matches \"%.64s\"", what, s);
	*ret_node = match;
	*ret_port = api_node_port(&f->nodes[match]);
	return 0;
}
