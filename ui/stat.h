/*
 * A part's counter table (lib/stat_table.h) rendered for the two readers: the
 * JSON of `smctl status` and the Prometheus text of /metrics.
 */
#ifndef IBSMD_UI_STAT_H
#define IBSMD_UI_STAT_H

#include <stdio.h>
#include <jansson.h>

#include "lib/stat_table.h"

/* Set every keyed field of t over the status struct st into object o.  0 or -ENOMEM. */
int stat_json_into(json_t *o, const struct stat_table *t, const void *st);
/* A new object of t's keyed fields over st; NULL on ENOMEM. */
json_t *stat_json(const struct stat_table *t, const void *st);
/*
 * Into the status object top: t's object under t->section (top itself when
 * the section is NULL).  0 or -ENOMEM.
 */
int stat_json_section(json_t *top, const struct stat_table *t, const void *st);
/* Every field of t with a metric: its HELP and TYPE lines and its sample. */
void stat_metrics(FILE *b, const struct stat_table *t, const void *st);

#endif
