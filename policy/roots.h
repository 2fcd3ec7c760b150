/*
 * The root switches of updn and dnup routing (routing_opts.roots), read
 * from a roots file: OpenSM's root_guid_file format, one switch GUID a line
 * ("0x..."), '#' comments, blank lines; at most 16 MiB, lines of at most
 * 255 bytes.  Pure: no logging.
 */
#ifndef IBSMD_ROOTS_H
#define IBSMD_ROOTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * 0 with a malloc'd array in *ret (NULL, *ret_n 0, for an empty path), or
 * -errno (unreadable, -ENOMEM) / -EBADMSG with err "FILE:LINE: ...".
 */
int roots_load(const char *path, uint64_t **ret, size_t *ret_n, char *err, size_t err_len);

#endif
