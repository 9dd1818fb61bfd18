/* plan/observe_file.c - write a local file atomically: a temp file beside
 * it, fsync, rename over it. Readers (node_exporter's textfile collector, a
 * browser) see the old file or the new one, never half of one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loom/observe.h"
#include "util/error.h"
#include "util/uuid.h"

LOOM_EXTERN(int) loom_file_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[4096], uuid[37];
	const char *p = data;
	int fd;
	if (!path || !*path || (!data && len))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OS, "loom_file_write_atomic: no path");
	if (loom_uuid_v4_string(uuid) < 0)
		snprintf(uuid, sizeof(uuid), "%ld", (long)getpid());
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%s.tmp", path, uuid) >= sizeof(tmp))
		return loom_err(LOOM_EINVAL, LOOM_ERRCLASS_OS, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_OS, "%s: cannot create a temp file beside it: %s",
		                path, strerror(errno));
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_OS, "%s: cannot rename the temp file over it: %s",
		                path, strerror(e));
	}
	return 0;
fail: {
		int e = errno;
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return loom_err(LOOM_EIO, LOOM_ERRCLASS_OS, "%s: write failed: %s", path, strerror(e));
	}
}
