/* The values of a request's query string and headers. libmicrohttpd has
 * split and percent-decoded them into C strings; what they mean is parsed
 * here, without a connection, so that it can be tested and fuzzed. */
#ifndef CGFB_SERVER_PARAMS_H
#define CGFB_SERVER_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

/* A query parameter that is a whole number from 0 to max, written in
 * decimal digits only ("7", never "7x", "+7", " 7" or "-1"): true and the
 * value in *out, or dflt when v is NULL (absent); false when v is anything
 * else or larger than max. */
bool params_uint(const char *v, uint64_t max, uint64_t dflt, uint64_t *out);

/* A Content-Type header saying application/json, optionally with
 * charset=utf-8; nothing else. */
bool params_json_content_type(const char *ct);

#endif
