/* util/uuid.c - UUID v4 from the kernel's random source. */
#include "util/uuid.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>

#include "util/error.h"

int loom_uuid_v4(uint8_t out[16])
{
	size_t got = 0;
	while (got < 16) {
		ssize_t n = getrandom(out + got, 16 - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return loom_err_os(LOOM_EIO, errno, "getrandom failed");
		}
		got += (size_t)n;
	}
	out[6] = (uint8_t)((out[6] & 0x0f) | 0x40);
	out[8] = (uint8_t)((out[8] & 0x3f) | 0x80);
	return 0;
}

void loom_uuid_format(const uint8_t u[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	int i, o = 0;
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[u[i] >> 4];
		out[o++] = hex[u[i] & 15];
	}
	out[o] = '\0';
}

int loom_uuid_v4_string(char out[37])
{
	uint8_t u[16];
	LOOM_TRY(loom_uuid_v4(u));
	loom_uuid_format(u, out);
	return 0;
}

int loom_uuid_v4_hex(char out[33])
{
	char text[37];
	size_t i, k;
	LOOM_TRY(loom_uuid_v4_string(text));
	for (i = k = 0; text[i]; i++)
		if (text[i] != '-')
			out[k++] = text[i];
	out[k] = '\0';
	return 0;
}
