/* bench/many_files.c - a tree of empty files for the VACUUM listing bench:
 *
 *   many_files ROOT FILES DIRS AGE_DAYS
 *
 * creates ROOT/p=<d>/part-<i>-0000-c000.snappy.parquet, FILES empty files
 * spread evenly over DIRS partition directories (p=0 .. p=DIRS-1), each
 * with its mtime set AGE_DAYS days back (so a VACUUM's retention has
 * passed). Two threads, each taking every other directory: creating an
 * empty file is all kernel time, and 10,000,000 of them one at a time take
 * minutes. Shell loops over `touch` take an hour at that count. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define THREADS 2

typedef struct job {
	int root;            /* dirfd of ROOT */
	long files, dirs;
	int first;           /* this thread's first directory */
	struct timespec mtime[2];
	int failed;
} job;

/* Files of directory d: an even share, the first FILES % DIRS one more. */
static long files_in(const job *j, long d)
{
	return j->files / j->dirs + (d < j->files % j->dirs ? 1 : 0);
}

static int fill_dir(job *j, long d)
{
	char name[64];
	long i, n = files_in(j, d);
	int dir;

	snprintf(name, sizeof(name), "p=%ld", d);
	if (mkdirat(j->root, name, 0755) != 0 && errno != EEXIST) {
		perror(name);
		return -1;
	}
	dir = openat(j->root, name, O_RDONLY | O_DIRECTORY);
	if (dir < 0) {
		perror(name);
		return -1;
	}
	for (i = 0; i < n; i++) {
		int fd;
		snprintf(name, sizeof(name), "part-%05ld-0000-c000.snappy.parquet", i);
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || futimens(fd, j->mtime) != 0) {
			perror(name);
			close(dir);
			return -1;
		}
		close(fd);
	}
	close(dir);
	return 0;
}

static void *run(void *arg)
{
	job *j = arg;
	long d;
	for (d = j->first; d < j->dirs && !j->failed; d += THREADS)
		if (fill_dir(j, d) != 0)
			j->failed = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	job jobs[THREADS];
	time_t when;
	int root, k, failed = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: many_files ROOT FILES DIRS AGE_DAYS\n");
		return 2;
	}
	root = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (root < 0) {
		perror(argv[1]);
		return 1;
	}
	when = time(NULL) - (time_t)atol(argv[4]) * 86400;
	for (k = 0; k < THREADS; k++) {
		memset(&jobs[k], 0, sizeof(jobs[k]));
		jobs[k].root = root;
		jobs[k].files = atol(argv[2]);
		jobs[k].dirs = atol(argv[3]);
		jobs[k].first = k;
		jobs[k].mtime[0].tv_sec = jobs[k].mtime[1].tv_sec = when;
		if (jobs[k].dirs <= 0 || jobs[k].files < 0) {
			fprintf(stderr, "many_files: FILES >= 0 and DIRS > 0\n");
			return 2;
		}
		pthread_create(&t[k], NULL, run, &jobs[k]);
	}
	for (k = 0; k < THREADS; k++) {
		pthread_join(t[k], NULL);
		failed |= jobs[k].failed;
	}
	close(root);
	return failed ? 1 : 0;
}
