/* parquet/types.h - Parquet enums as the format defines them (values are
 * the Thrift enum values of parquet.thrift, so they go to and from the
 * footer unchanged). */
#ifndef LOOM_PARQUET_TYPES_H
#define LOOM_PARQUET_TYPES_H

#include <stdint.h>

typedef enum pq_physical_type {
	PQ_BOOLEAN = 0,
	PQ_INT32 = 1,
	PQ_INT64 = 2,
	PQ_INT96 = 3,
	PQ_FLOAT = 4,
	PQ_DOUBLE = 5,
	PQ_BYTE_ARRAY = 6,
	PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_physical_type;

typedef enum pq_repetition {
	PQ_REQUIRED = 0,
	PQ_OPTIONAL = 1,
	PQ_REPEATED = 2
} pq_repetition;

typedef enum pq_encoding {
	PQ_ENC_PLAIN = 0,
	PQ_ENC_PLAIN_DICTIONARY = 2,
	PQ_ENC_RLE = 3,
	PQ_ENC_BIT_PACKED = 4,
	PQ_ENC_DELTA_BINARY_PACKED = 5,
	PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
	PQ_ENC_DELTA_BYTE_ARRAY = 7,
	PQ_ENC_RLE_DICTIONARY = 8,
	PQ_ENC_BYTE_STREAM_SPLIT = 9
} pq_encoding;

typedef enum pq_codec {
	PQ_CODEC_UNCOMPRESSED = 0,
	PQ_CODEC_SNAPPY = 1,
	PQ_CODEC_GZIP = 2,
	PQ_CODEC_LZO = 3,
	PQ_CODEC_BROTLI = 4,
	PQ_CODEC_LZ4 = 5,      /* Hadoop-framed LZ4 (deprecated) */
	PQ_CODEC_ZSTD = 6,
	PQ_CODEC_LZ4_RAW = 7
} pq_codec;

typedef enum pq_page_type {
	PQ_PAGE_DATA = 0,
	PQ_PAGE_INDEX = 1,
	PQ_PAGE_DICTIONARY = 2,
	PQ_PAGE_DATA_V2 = 3
} pq_page_type;

/* ConvertedType (legacy annotations). */
typedef enum pq_converted_type {
	PQ_CT_NONE = -1,
	PQ_CT_UTF8 = 0,
	PQ_CT_MAP = 1,
	PQ_CT_MAP_KEY_VALUE = 2,
	PQ_CT_LIST = 3,
	PQ_CT_ENUM = 4,
	PQ_CT_DECIMAL = 5,
	PQ_CT_DATE = 6,
	PQ_CT_TIME_MILLIS = 7,
	PQ_CT_TIME_MICROS = 8,
	PQ_CT_TIMESTAMP_MILLIS = 9,
	PQ_CT_TIMESTAMP_MICROS = 10,
	PQ_CT_UINT_8 = 11,
	PQ_CT_UINT_16 = 12,
	PQ_CT_UINT_32 = 13,
	PQ_CT_UINT_64 = 14,
	PQ_CT_INT_8 = 15,
	PQ_CT_INT_16 = 16,
	PQ_CT_INT_32 = 17,
	PQ_CT_INT_64 = 18,
	PQ_CT_JSON = 19,
	PQ_CT_BSON = 20,
	PQ_CT_INTERVAL = 21
} pq_converted_type;

/* LogicalType union member (field id in the LogicalType struct). */
typedef enum pq_logical_kind {
	PQ_LT_NONE = 0,
	PQ_LT_STRING = 1,
	PQ_LT_MAP = 2,
	PQ_LT_LIST = 3,
	PQ_LT_ENUM = 4,
	PQ_LT_DECIMAL = 5,
	PQ_LT_DATE = 6,
	PQ_LT_TIME = 7,
	PQ_LT_TIMESTAMP = 8,
	/* 9 is reserved */
	PQ_LT_INTEGER = 10,
	PQ_LT_UNKNOWN = 11,    /* "null" type */
	PQ_LT_JSON = 12,
	PQ_LT_BSON = 13,
	PQ_LT_UUID = 14,
	PQ_LT_FLOAT16 = 15,
	PQ_LT_VARIANT = 16,
	PQ_LT_GEOMETRY = 17,
	PQ_LT_GEOGRAPHY = 18
} pq_logical_kind;

typedef enum pq_time_unit {
	PQ_UNIT_MILLIS = 0,
	PQ_UNIT_MICROS = 1,
	PQ_UNIT_NANOS = 2
} pq_time_unit;

typedef struct pq_logical_type {
	pq_logical_kind kind;
	int32_t decimal_scale, decimal_precision;   /* DECIMAL */
	int is_adjusted_to_utc;                      /* TIME, TIMESTAMP */
	pq_time_unit unit;                           /* TIME, TIMESTAMP */
	int8_t int_bit_width;                        /* INTEGER: 8, 16, 32, 64 */
	int int_is_signed;                           /* INTEGER */
} pq_logical_type;

/* One element of the flattened schema, as Parquet stores it in the footer
 * (SchemaElement): the tree in depth-first order, the root first, a group's
 * children right after it. The reader produces this array from a footer;
 * the writer takes one to describe the file it writes. */
typedef struct pq_schema_node {
	const char *name;               /* owned by whoever built the array */
	int has_repetition;             /* 0 for the root */
	pq_repetition repetition;
	int is_group;                   /* groups have children and no type */
	pq_physical_type type;          /* leaves only */
	int32_t type_length;            /* FIXED_LEN_BYTE_ARRAY width */
	int32_t num_children;           /* groups only */
	pq_converted_type converted_type;   /* PQ_CT_NONE if absent */
	pq_logical_type logical_type;       /* kind PQ_LT_NONE if absent */
	int32_t scale, precision;       /* legacy DECIMAL annotation */
	int has_field_id;
	int32_t field_id;
} pq_schema_node;

#endif
