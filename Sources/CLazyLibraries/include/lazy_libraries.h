#pragma once
// libpq, libarchive and libcurl are loaded when a command first needs them (`load`, `report --db`,
// `top --db`; `dsyms import` of a zip; a symbol server asked for a debug file), not when the
// process starts: with their dependencies they
// are thirty shared libraries, about 5 ms of every start-up (docs/speed.md, "Start-up").
//
// The functions below load a library if it is not loaded yet and return NULL, or the dynamic
// loader's message when it cannot be loaded; call one before any function of that library.

const char *yui_load_libpq(void);
const char *yui_load_libarchive(void);
const char *yui_load_libcurl(void);

// libcurl's variadic curl_easy_setopt and curl_easy_getinfo, one wrapper per argument type.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
typedef size_t (*yui_curl_write_callback)(char *data, size_t size, size_t count, void *context);
CURLcode yui_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode yui_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode yui_curl_set_text(CURL *handle, CURLoption option, const char *value);
CURLcode yui_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode yui_curl_set_write(CURL *handle, yui_curl_write_callback callback, void *context);
CURLcode yui_curl_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode yui_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value);
