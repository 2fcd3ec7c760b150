/*
 * One hexadecimal digit's value, for the hand-written parsers of GUIDs,
 * P_Keys and byte strings (fabric/lid.c, policy/pkeyset.c,
 * failover/syncdoc.c).
 */
#ifndef IBSMD_HEX_H
#define IBSMD_HEX_H

/* c's value as a hex digit (0-9, a-f, A-F), or -1. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
