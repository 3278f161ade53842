/* kix/api.h — what libkix exports. Every object of the library is compiled
 * with -fvisibility=hidden, so a symbol is local unless its declaration in
 * a public header (kix/NAME.h) carries KIX_API: a program linked against
 * libkix.so can use only what a header documents, and kix__ internals and
 * helpers stay inside (as libuv's UV_EXTERN). tools/dist/exports.py writes
 * the same list as a version script, and style.exports checks that the
 * library exports exactly it. */
#ifndef KIX_API_H
#define KIX_API_H

#if defined(__GNUC__) || defined(__clang__)
#define KIX_API __attribute__((visibility("default")))
#else
#define KIX_API
#endif

#endif
