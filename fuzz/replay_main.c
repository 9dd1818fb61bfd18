/* fuzz/replay_main.c - run a fuzz target's LLVMFuzzerTestOneInput over
 * every file of the corpus directories (and every file) given, without
 * libFuzzer: the CTest
 * replay of the corpora (fuzz_replay_* tests), under the sanitizers in the
 * sanitizer build. A crash, a sanitizer report or an abort fails the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, files = 0;
	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		if (!d && replay_file(argv[i]) == 0) {
			files++; /* a single input */
			continue;
		}
		if (!d) {
			fprintf(stderr, "cannot open corpus %s\n", argv[i]);
			return 2;
		}
		while ((e = readdir(d)) != NULL) {
			char path[4096];
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (replay_file(path) < 0) {
				fprintf(stderr, "cannot read %s\n", path);
				closedir(d);
				return 2;
			}
			files++;
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", files);
	if (files == 0) {
		fprintf(stderr, "no corpus inputs found\n");
		return 1;
	}
	return 0;
}
