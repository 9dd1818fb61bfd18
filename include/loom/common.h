/*
 * loom/common.h - export macros and the library version.
 */
#ifndef LOOM_COMMON_H
#define LOOM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define LOOM_BEGIN_DECL extern "C" {
#define LOOM_END_DECL }
#else
#define LOOM_BEGIN_DECL
#define LOOM_END_DECL
#endif

/* Only functions marked LOOM_EXTERN leave the shared library; everything
 * else is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#define LOOM_EXTERN(type) __attribute__((visibility("default"))) type
#else
#define LOOM_EXTERN(type) type
#endif

#define LOOM_VERSION_MAJOR 1
#define LOOM_VERSION_MINOR 0
#define LOOM_VERSION_PATCH 0

LOOM_BEGIN_DECL

/* A string -> string pair: table properties, partition values, storage
 * options, writer and commit settings (nested YAML keys joined with dots,
 * e.g. commit.custom_metadata.team). A NULL value means null. */
typedef struct loom_kv {
	const char *key;
	const char *value;
} loom_kv;

/** The library version as "MAJOR.MINOR.PATCH". Static storage; never free. */
LOOM_EXTERN(const char *) loom_version(void);

LOOM_END_DECL

#endif
