/*
 * ibsmd-topogen: print a generated topology in ibsim's net format.
 *
 *   ibsmd-topogen fattree2|fattree3|dual [-k K] [-n HOSTS] [--parallel] [--same]
 *   ibsmd-topogen mesh|torus [-x X] [-y Y] [-z Z] [-p HOSTS_PER_SWITCH] [--parallel]
 *   ibsmd-topogen random [-s SWITCHES] [-e EXTRA_LINKS] [-p HOSTS_PER_SWITCH] [-E EMPTY]
 *                 [--parallel] [--seed N]
 *   common: [--speeds NAME=WxSPEED,...] [--shuffle SEED] [-o FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/topogen.h"

static void topogen_usage(FILE *out)
{
	fprintf(out,
		"usage: ibsmd-topogen TYPE [options]\n"
		"types:\n"
		"  fattree2, fattree3   k-ary fat tree, 2 or 3 levels\n"
		"  dual                 2-level fat tree of dual-ported hosts\n"
		"  mesh, torus          2-D (3-D with -z) grid of switches\n"
		"  random               connected irregular graph of switches\n"
		"options:\n"
		"  -k K                 switch radix for fat trees (even, default 4)\n"
		"  -n HOSTS             hosts for fat trees (default: full population)\n"
		"  -x X, -y Y, -z Z     grid dimensions (default 4 x 4 x 1)\n"
		"  -p N                 hosts per switch for mesh/torus/random (default 1)\n"
		"  -s N                 switches for random (default 16)\n"
		"  -e N                 extra links for random (default switches / 2)\n"
		"  -E N                 random: the last N switches get no hosts\n"
		"  --parallel           double every switch-to-switch link (random: every\n"
		"                       spanning-tree link)\n"
		"  --same               dual: both host ports on the same leaf\n"
		"  --seed N             random seed (default 1)\n"
		"  --speeds SPEC        link widths and speeds ibsim reads, SPEC a comma\n"
		"                       list of NAME=WxSPEED (\"*=4xHDR,ca-3=1xHDR\"): a link\n"
		"                       takes an end's entry, else \"*\"'s\n"
		"  --shuffle N          shuffle the node records with seed N\n"
		"  -o FILE              write to FILE instead of stdout\n");
}

static bool topogen_int(const char *s, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < -1000000 || v > 1000000)
		return false;
	*ret = (int)v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"parallel", no_argument, NULL, 'P'},
	    {"same", no_argument, NULL, 'S'},
	    {"seed", required_argument, NULL, 'r'},
	    {"shuffle", required_argument, NULL, 'u'},
	    {"speeds", required_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int k = 4, hosts = 0, x = 4, y = 4, z = 1, per = 1, switches = 16, extra = -1, empty = 0;
	int seed = 1, shuffle = -1, c, *iv;
	unsigned int flags = 0;
	const char *type, *outpath = NULL, *speeds = NULL;
	char *text, *tmp;
	FILE *out;

	while ((c = getopt_long(argc, argv, "k:n:x:y:z:p:s:e:E:o:h", opts, NULL)) != -1) {
		iv = NULL;
		switch (c) {
		case 'k':
			iv = &k;
			break;
		case 'n':
			iv = &hosts;
			break;
		case 'x':
			iv = &x;
			break;
		case 'y':
			iv = &y;
			break;
		case 'z':
			iv = &z;
			break;
		case 'E':
			iv = &empty;
			break;
		case 'p':
			iv = &per;
			break;
		case 's':
			iv = &switches;
			break;
		case 'e':
			iv = &extra;
			break;
		case 'r':
			iv = &seed;
			break;
		case 'u':
			iv = &shuffle;
			break;
		case 'P':
			flags |= TOPOGEN_PARALLEL;
			break;
		case 'S':
			flags |= TOPOGEN_DUAL_SAME;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'v':
			speeds = optarg;
			break;
		case 'h':
			topogen_usage(stdout);
			return 0;
		default:
			topogen_usage(stderr);
			return 2;
		}
		if (iv && !topogen_int(optarg, iv)) {
			fprintf(stderr, "ibsmd-topogen: bad number '%s'\n", optarg);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		topogen_usage(stderr);
		return 2;
	}
	type = argv[optind];
	if (!strcmp(type, "fattree2") || !strcmp(type, "fattree3")) {
		text = topogen_fat_tree(type[7] - '0', k, hosts, flags & TOPOGEN_PARALLEL);
	} else if (!strcmp(type, "dual")) {
		if (!(flags & TOPOGEN_DUAL_SAME))
			flags |= TOPOGEN_DUAL;
		text = topogen_fat_tree(2, k, hosts, flags);
	} else if (!strcmp(type, "mesh") || !strcmp(type, "torus")) {
		flags &= TOPOGEN_PARALLEL;
		if (!strcmp(type, "torus"))
			flags |= TOPOGEN_TORUS;
		text = topogen_grid(x, y, z, per, flags);
	} else if (!strcmp(type, "random")) {
		text = topogen_random_ex(switches, extra < 0 ? switches / 2 : extra, per, empty,
					 flags & TOPOGEN_PARALLEL, (unsigned int)seed);
	} else {
		fprintf(stderr, "ibsmd-topogen: unknown type '%s'\n", type);
		topogen_usage(stderr);
		return 2;
	}
	if (!text) {
		fprintf(stderr, "ibsmd-topogen: %s: %s\n", type,
			errno == EINVAL ? "impossible parameters" : strerror(errno));
		return 1;
	}
	if (speeds) {
		tmp = topogen_speeds(text, speeds);
		free(text);
		if (!tmp) {
			fprintf(stderr, "ibsmd-topogen: --speeds '%s': %s\n", speeds,
				errno == EINVAL ? "want NAME=WxSPEED,..." : strerror(errno));
			return 2;
		}
		text = tmp;
	}
	if (shuffle >= 0) {
		tmp = topogen_shuffle(text, (unsigned int)shuffle);
		free(text);
		if (!tmp) {
			fprintf(stderr, "ibsmd-topogen: %s\n", strerror(errno));
			return 1;
		}
		text = tmp;
	}
	out = outpath ? fopen(outpath, "w") : stdout;
	if (!out) {
		fprintf(stderr, "ibsmd-topogen: %s: %s\n", outpath, strerror(errno));
		free(text);
		return 1;
	}
	fputs(text, out);
	free(text);
	if ((outpath ? fclose(out) : fflush(out)) != 0) {
		fprintf(stderr, "ibsmd-topogen: write failed: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
